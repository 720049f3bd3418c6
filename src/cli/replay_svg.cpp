// Draws a replay's results as SVG: per-project bars of delivered against owed, daily occupancy
// lines.
#include "replay_svg.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budget/units.hpp"
#include "svg_common.hpp"

namespace budget::cli {
namespace {

constexpr double kWidth = 940;
constexpr double kHeight = 500;
constexpr double kLeft = 90;
constexpr double kRight = 760;
constexpr double kTop = 60;
constexpr double kBottom = 420;

// Budget in blue as in `sbudget plot`, the baseline in orange.
const char* ColourOf(ReplayPolicy policy) {
  return policy == ReplayPolicy::kBudget ? "#1f5fbf" : "#ef8f00";
}

std::string Header(std::string_view title, std::string_view subtitle) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<title>{2}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{3}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{2}</text>\n"
      "<text x=\"{3}\" y=\"46\">{4}</text>\n",
      kWidth, kHeight, EscapeXml(title), kLeft, EscapeXml(subtitle));
}

std::string Subtitle(const ReplayRun& run) {
  return fmt::format("{}: {} jobs, {} nodes x {} GPUs, from {}", run.trace, run.jobs, run.nodes,
                     run.gpus_per_node, FormatCivilDate(run.start));
}

// Horizontal grid lines with labels from 0 to `top`, `label` giving each text.
template <typename Label>
std::string YAxis(double top, Label label, std::string_view caption) {
  std::string svg = "<g id=\"axes\" stroke=\"#dddddd\">\n";
  const double step = TickStep(top);
  for (int tick = 0; tick * step <= top * 1.0000001; ++tick) {
    const double v = tick * step;
    const double y = kBottom - (kBottom - kTop) * v / top;
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" stroke=\"none\" "
        "fill=\"black\">{5}</text>\n",
        kLeft, y, kRight, kLeft - 6, y + 4, label(v));
  }
  svg += fmt::format(
      "<text transform=\"translate(18 {:.1f}) rotate(-90)\" text-anchor=\"middle\" "
      "stroke=\"none\" fill=\"black\">{}</text>\n</g>\n",
      (kTop + kBottom) / 2, caption);
  return svg;
}

std::string Legend(const std::vector<ReplayResult>& results, std::string_view extra) {
  std::string svg = "<g id=\"legend\">\n";
  double y = kTop + 10;
  for (const ReplayResult& r : results) {
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        kRight + 20, y - 5, ColourOf(r.policy), kRight + 44, y + 4, PolicyName(r.policy));
    y += 22;
  }
  if (!extra.empty()) {
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\" stroke-width=\"2\"/>"
        "<text x=\"{3}\" y=\"{4}\">{5}</text>\n",
        kRight + 20, y, kRight + 38, kRight + 44, y + 4, extra);
  }
  return svg + "</g>\n";
}

}  // namespace

std::string DeliveredSvg(const ReplayRun& run, const std::vector<ReplayResult>& results) {
  std::vector<std::string> accounts;
  for (const ReplayResult& r : results) {
    for (const ReplayProjectMonth& m : r.months) {
      if (std::find(accounts.begin(), accounts.end(), m.account) == accounts.end()) {
        accounts.push_back(m.account);
      }
    }
  }
  double top = 1;
  for (const ReplayResult& r : results) {
    for (const std::string& account : accounts) {
      const ReplayProjectMonth t = TotalOf(r, account);
      top = std::max({top, ToGpuHours(t.owed), ToGpuHours(t.delivered)});
    }
  }
  top *= 1.08;
  std::string svg = Header("Delivered against owed, per project", Subtitle(run));
  svg += YAxis(
      top, [](double v) { return FormatGpuHours(static_cast<GpuSeconds>(std::llround(v * 3600))); },
      "GPU hours over the replay");
  const double slot =
      (kRight - kLeft) / static_cast<double>(std::max<std::size_t>(accounts.size(), 1));
  const double bar = std::min(28.0, slot * 0.8 / static_cast<double>(results.size()));
  const auto y_of = [top](GpuSeconds s) {
    return kBottom - (kBottom - kTop) * ToGpuHours(s) / top;
  };
  for (std::size_t p = 0; p < accounts.size(); ++p) {
    const double centre = kLeft + slot * (static_cast<double>(p) + 0.5);
    std::string data;
    std::string shapes;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const ReplayResult& r = results[i];
      const ReplayProjectMonth t = TotalOf(r, accounts[p]);
      const char* name = PolicyName(r.policy);
      data += fmt::format(" data-{0}-owed=\"{1}\" data-{0}-delivered=\"{2}\" data-{0}-lost=\"{3}\"",
                          name, ToGpuHours(t.owed), ToGpuHours(t.delivered), ToGpuHours(t.lost));
      const double x =
          centre - bar * static_cast<double>(results.size()) / 2 + bar * static_cast<double>(i);
      shapes += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>", x,
          y_of(t.delivered), bar - 2, kBottom - y_of(t.delivered), ColourOf(r.policy));
      shapes += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"black\" "
          "stroke-width=\"2\"/>",
          x - 1, y_of(std::max<GpuSeconds>(t.owed, 0)), x + bar - 1);
    }
    svg += fmt::format(
        "<g class=\"project\" data-project=\"{}\"{}>{}<text x=\"{:.1f}\" y=\"{}\" "
        "text-anchor=\"middle\">{}</text></g>\n",
        EscapeXml(accounts[p]), data, shapes, centre, kBottom + 16, EscapeXml(accounts[p]));
  }
  svg += Legend(results, "owed");
  return svg + "</svg>\n";
}

std::string OccupancySvg(const ReplayRun& run, const std::vector<ReplayResult>& results,
                         const TimeZone& zone) {
  UnixTime from = -1;
  UnixTime to = 0;
  for (const ReplayResult& r : results) {
    from = from < 0 ? r.first_submit : std::min(from, r.first_submit);
    to = std::max(to, r.makespan_end);
  }
  const std::int64_t first_day = DaysFromCivil(zone.DateAt(std::max<UnixTime>(from, 0)));
  const std::int64_t last_day = DaysFromCivil(zone.DateAt(std::max(to - 1, from)));
  const auto days = static_cast<std::size_t>(std::max<std::int64_t>(last_day - first_day + 1, 1));

  std::string svg = Header("Occupancy: share of nodes busy, daily mean", Subtitle(run));
  svg += YAxis(
      1.0, [](double v) { return fmt::format("{:.0f}%", v * 100); }, "nodes busy");
  // Month ticks along x: the 1st of each month in the range.
  const auto x_of = [days](double day) {
    return kLeft + (kRight - kLeft) * day / static_cast<double>(days);
  };
  svg += "<g id=\"months\" stroke=\"#dddddd\">\n";
  for (std::size_t d = 0; d < days; ++d) {
    const CivilDate date = CivilFromDays(first_day + static_cast<std::int64_t>(d));
    if (date.day == 1 || d == 0) {
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/><text x=\"{0:.1f}\" "
          "y=\"{3}\" stroke=\"none\" fill=\"black\">{4}</text>\n",
          x_of(static_cast<double>(d)), kTop, kBottom + 4, kBottom + 16, FormatCivilDate(date));
    }
  }
  svg += "</g>\n";
  for (const ReplayResult& r : results) {
    std::vector<double> busy(days, 0);
    std::vector<int> samples(days, 0);
    for (const OccupancySample& s : r.occupancy) {
      const std::int64_t d = DaysFromCivil(zone.DateAt(s.at)) - first_day;
      if (d >= 0 && static_cast<std::size_t>(d) < days) {
        busy[static_cast<std::size_t>(d)] += s.busy_fraction;
        ++samples[static_cast<std::size_t>(d)];
      }
    }
    std::string points;
    std::string data;
    for (std::size_t d = 0; d < days; ++d) {
      const double mean = samples[d] == 0 ? 0 : busy[d] / samples[d];
      points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ",
                            x_of(static_cast<double>(d) + 0.5), kBottom - (kBottom - kTop) * mean);
      data += fmt::format("{}{:.4f}", data.empty() ? "" : " ", mean);
    }
    svg += fmt::format(
        "<polyline id=\"occupancy-{}\" data-days=\"{}\" data-busy=\"{}\" points=\"{}\" "
        "fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n",
        PolicyName(r.policy), days, data, points, ColourOf(r.policy));
  }
  svg += Legend(results, "");
  return svg + "</svg>\n";
}

}  // namespace budget::cli
