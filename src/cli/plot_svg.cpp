// Draws a project report as SVG: the linear line, cumulative usage, and each month's window.
#include "plot_svg.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "budget/billing.hpp"
#include "svg_common.hpp"

namespace budget::cli {
namespace {

// The canvas and the plot area inside it, in SVG user units.
constexpr double kWidth = 940;
constexpr double kHeight = 500;
constexpr double kLeft = 90;
constexpr double kRight = 690;
constexpr double kTop = 60;
constexpr double kBottom = 430;

constexpr const char* kMonthNames[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

constexpr const char* kIdealColour = "#888888";
constexpr const char* kUsedColour = "#1f5fbf";
constexpr const char* kLostColour = "#c62828";
constexpr const char* kWindowColour = "#2e7d32";
constexpr const char* kRolledColour = "#ef8f00";

// GPU hours as a data attribute: the shortest decimal that reads back exactly.
std::string Gpuh(GpuSeconds s) { return fmt::format("{}", ToGpuHours(s)); }

std::string TickLabel(double gpuh) {
  return FormatGpuHours(static_cast<GpuSeconds>(std::llround(gpuh * kGpuSecondsPerGpuHour)));
}

class Canvas {
 public:
  Canvas(int months, double top_gpuh) : months_(months), top_(top_gpuh) {}
  // x of a position in months since the start (0..months).
  double X(double month) const { return kLeft + (kRight - kLeft) * month / months_; }
  double Y(GpuSeconds s) const { return YGpuh(ToGpuHours(s)); }
  double YGpuh(double gpuh) const { return kBottom - (kBottom - kTop) * gpuh / top_; }

 private:
  int months_;
  double top_;
};

// A polyline's points and, in data-gpuh, the GPU hours at each (what tests and scripts read).
class Polyline {
 public:
  explicit Polyline(const Canvas& canvas) : canvas_(canvas) {}

  void Add(double month, GpuSeconds at) {
    const char* separator = points_.empty() ? "" : " ";
    points_ += fmt::format("{}{:.1f},{:.1f}", separator, canvas_.X(month), canvas_.Y(at));
    gpuh_ += separator;
    gpuh_ += Gpuh(at);
  }
  const std::string& points() const { return points_; }
  const std::string& gpuh() const { return gpuh_; }

 private:
  const Canvas& canvas_;
  std::string points_;
  std::string gpuh_;
};

}  // namespace

std::string PlotSvg(const ProjectReport& r, UnixTime now, const TimeZone& zone) {
  // Cumulative amounts at each month's end: used, and used + lost (accounted).
  std::vector<GpuSeconds> used_at{0};
  std::vector<GpuSeconds> accounted_at{0};
  GpuSeconds accounted_before_open = 0;
  for (const ReportMonth& m : r.history) {
    if (m.open) {
      accounted_before_open = accounted_at.back();
      continue;
    }
    used_at.push_back(used_at.back() + m.row.used);
    accounted_at.push_back(accounted_at.back() + std::max(m.row.used, m.row.minimal));
  }
  const GpuSeconds used_now = used_at.back() + r.used_this_month;

  // Where now is, in months since the start (clamped to the project).
  double now_month = 0;
  if (r.month > r.months) {
    now_month = r.months;
  } else if (r.month >= 1) {
    const UnixTime from = zone.MidnightOf(FirstOfMonthAfter(r.start, r.month - 1));
    const UnixTime to = zone.MidnightOf(FirstOfMonthAfter(r.start, r.month));
    now_month = r.month - 1 + static_cast<double>(now - from) / static_cast<double>(to - from);
  }

  const double top =
      std::max({ToGpuHours(r.credit), ToGpuHours(used_now), ToGpuHours(accounted_at.back())}) *
      1.08;
  const Canvas c(r.months, top);
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<title>{2}: budget at {3}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, kHeight, EscapeXml(r.account), FormatCivilDate(zone.DateAt(now)));
  svg += fmt::format(
      "<text x=\"{}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}{}</text>\n"
      "<text x=\"{}\" y=\"46\">{} GPUh, {} .. {}, {} (at {})</text>\n",
      kLeft, EscapeXml(r.account), r.title.empty() ? "" : ": " + EscapeXml(r.title), kLeft,
      FormatGpuHours(r.credit), FormatCivilDate(r.start), FormatCivilDate(r.last_day),
      ToString(r.state), FormatCivilDate(zone.DateAt(now)));

  // Axes: GPUh ticks with grid lines, and the months.
  svg += "<g id=\"axes\" stroke=\"#dddddd\">\n";
  const double step = TickStep(top);
  for (int tick = 0; tick * step <= top; ++tick) {
    const double v = tick * step;
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" stroke=\"none\" "
        "fill=\"black\">{5}</text>\n",
        kLeft, c.YGpuh(v), kRight, kLeft - 6, c.YGpuh(v) + 4, TickLabel(v));
  }
  for (int m = 0; m <= r.months; ++m) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>", c.X(m), kTop,
                       kBottom + 4);
    if (m < r.months) {
      // "Apr", with the year under the first month and under each January.
      const CivilDate first = FirstOfMonthAfter(r.start, m);
      svg += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" stroke=\"none\" "
          "fill=\"black\">{}</text>",
          c.X(m + 0.5), kBottom + 16, kMonthNames[first.month - 1]);
      if (m == 0 || first.month == 1) {
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" stroke=\"none\" "
            "fill=\"black\">{}</text>",
            c.X(m + 0.5), kBottom + 30, first.year);
      }
    }
    svg += "\n";
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" stroke=\"none\" fill=\"black\">"
      "month of the project</text>\n"
      "<text transform=\"translate(18 {:.1f}) rotate(-90)\" text-anchor=\"middle\" stroke=\"none\" "
      "fill=\"black\">GPU hours, cumulative</text>\n</g>\n",
      (kLeft + kRight) / 2, kBottom + 50, (kTop + kBottom) / 2);

  // The ideal line.
  Polyline ideal(c);
  for (int m = 0; m <= r.months; ++m) {
    ideal.Add(m, r.credit / r.months * m + r.credit % r.months * m / r.months);
  }
  svg += fmt::format(
      "<polyline id=\"ideal\" data-gpuh=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
      "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
      ideal.gpuh(), ideal.points(), kIdealColour);

  // Each month: the window from minimal to expected, lost and rolled over.
  GpuSeconds accounted = 0;
  for (const ReportMonth& m : r.history) {
    const MonthRow& row = m.row;
    const double x = c.X(m.month);
    svg += fmt::format(
        "<g class=\"month\" data-month=\"{}\" data-open=\"{}\" data-expected=\"{}\" "
        "data-minimal=\"{}\" data-used=\"{}\" data-lost=\"{}\" data-rolled-over=\"{}\">",
        m.month, m.open ? "true" : "false", Gpuh(row.expected),
        row.has_minimal ? Gpuh(row.minimal) : "", Gpuh(row.used), m.open ? "" : Gpuh(row.lost),
        m.open ? "" : Gpuh(row.graced));
    const GpuSeconds before = m.open ? accounted_before_open : accounted;
    if (row.has_minimal) {
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
          "stroke-width=\"5\" stroke-opacity=\"0.45\"/>"
          "<line x1=\"{4:.1f}\" y1=\"{1:.1f}\" x2=\"{5:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\"/>"
          "<line x1=\"{4:.1f}\" y1=\"{2:.1f}\" x2=\"{5:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>",
          x, c.Y(before + row.expected), c.Y(before + row.minimal), kWindowColour, x - 6, x + 6);
    }
    if (!m.open) {
      accounted = before + std::max(row.used, row.minimal);
      if (row.lost > 0) {
        const GpuSeconds used_end = used_at[static_cast<std::size_t>(m.month)];
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
            "stroke-width=\"3\"/><text x=\"{4:.1f}\" y=\"{5:.1f}\" fill=\"{3}\">{6} lost</text>",
            x + 3, c.Y(used_end), c.Y(used_end + row.lost), kLostColour, x + 9,
            c.Y(used_end + row.lost / 2) + 4, FormatGpuHours(row.lost));
      }
      if (row.graced > 0) {
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
            "stroke-width=\"3\"/><text x=\"{4:.1f}\" y=\"{5:.1f}\" fill=\"{3}\" "
            "text-anchor=\"end\">+{6}</text>",
            x - 3, c.Y(accounted), c.Y(accounted + row.graced), kRolledColour, x - 10,
            c.Y(accounted + row.graced / 2) + 4, FormatGpuHours(row.graced));
      }
    }
    svg += "</g>\n";
  }

  // Cumulative usage: at each closed month's end, then now.
  if (r.month >= 1) {
    Polyline used(c);
    for (std::size_t m = 0; m < used_at.size(); ++m) {
      used.Add(static_cast<double>(m), used_at[m]);
    }
    if (r.open_month) {
      used.Add(now_month, used_now);
    }
    svg += fmt::format(
        "<polyline id=\"used\" data-gpuh=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"2.5\"/>\n",
        used.gpuh(), used.points(), kUsedColour);
    if (r.lost > 0) {
      Polyline accounted_line(c);
      for (std::size_t m = 0; m < accounted_at.size(); ++m) {
        accounted_line.Add(static_cast<double>(m), accounted_at[m]);
      }
      if (r.open_month) {
        // On to now, so that the open month's window reads against it.
        accounted_line.Add(now_month, accounted_before_open + r.used_this_month);
      }
      svg += fmt::format(
          "<polyline id=\"accounted\" data-gpuh=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
          "stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>\n",
          accounted_line.gpuh(), accounted_line.points(), kLostColour);
    }
  }
  if (r.month >= 1 && r.month <= r.months) {
    svg += fmt::format(
        "<line id=\"now\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"black\" "
        "stroke-dasharray=\"2 3\"/><text x=\"{0:.1f}\" y=\"{3}\" "
        "text-anchor=\"middle\">now</text>\n",
        c.X(now_month), kTop, kBottom, kTop - 4);
  }

  // The legend: what is drawn.
  const double lx = kRight + 20;
  struct Entry {
    const char* colour;
    const char* dash;
    double width;
    const char* text;
    bool shown;
  };
  const bool any_window = std::any_of(r.history.begin(), r.history.end(),
                                      [](const ReportMonth& m) { return m.row.has_minimal; });
  const bool any_rolled = std::any_of(r.history.begin(), r.history.end(), [](const ReportMonth& m) {
    return !m.open && m.row.graced > 0;
  });
  const Entry entries[] = {
      {kIdealColour, "6 4", 1.5, "ideal: the linear line", true},
      {kUsedColour, "none", 2.5, "used, cumulative", r.month >= 1},
      {kLostColour, "3 3", 1.5, "used + lost", r.lost > 0},
      {kWindowColour, "none", 5, "month end: minimal..expected", any_window},
      {kLostColour, "none", 3, "lost", r.lost > 0},
      {kRolledColour, "none", 3, "rolled over", any_rolled},
  };
  double ly = kTop + 10;
  svg += "<g id=\"legend\">\n";
  for (const Entry& e : entries) {
    if (!e.shown) {
      continue;
    }
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"{4}\" "
        "stroke-dasharray=\"{5}\"/><text x=\"{6}\" y=\"{7}\">{8}</text>\n",
        lx, ly, lx + 24, e.colour, e.width, e.dash, lx + 30, ly + 4, e.text);
    ly += 22;
  }
  svg += fmt::format(
      "<text x=\"{0}\" y=\"{1}\">used {2} GPUh</text>\n<text x=\"{0}\" y=\"{3}\">lost {4} "
      "GPUh</text>\n<text x=\"{0}\" y=\"{5}\">remaining {6} GPUh</text>\n</g>\n</svg>\n",
      lx, ly + 16, FormatGpuHours(r.used), ly + 34, FormatGpuHours(r.lost), ly + 52,
      FormatGpuHours(r.remaining));
  if (r.low_used > 0) {
    svg.insert(svg.size() - std::string_view("</g>\n</svg>\n").size(),
               fmt::format("<text x=\"{}\" y=\"{}\">low partition {} of {} GPUh</text>\n", lx,
                           ly + 70, FormatGpuHours(r.low_used), FormatGpuHours(r.low_allowance)));
  }
  return svg;
}

}  // namespace budget::cli
