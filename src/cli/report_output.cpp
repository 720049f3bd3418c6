// Text and JSON renderings of a project report.
#include "report_output.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "budget/billing.hpp"
#include "budget/civil_date.hpp"
#include "budget/units.hpp"

namespace budget::cli {
namespace {

double Gpuh(GpuSeconds s) { return ToGpuHours(s); }
double Chf(Centimes c) { return static_cast<double>(c) / 100.0; }

const char* KindName(ProjectKind kind) { return kind == ProjectKind::kLarge ? "large" : "small"; }

std::string Month(const CivilDate& d) { return FormatCivilDate(d).substr(0, 7); }

// "  label       1,234 GPUh  note"
std::string Line(std::string_view label, GpuSeconds amount, std::string_view note = "") {
  std::string line = fmt::format("  {:<15}{:>9} GPUh", label, FormatGpuHours(amount));
  if (!note.empty()) {
    line += fmt::format("  {}", note);
  }
  return line + "\n";
}

// Rows of cells, each column as wide as its widest cell, numbers right-aligned.
std::string Table(const std::vector<std::vector<std::string>>& rows, std::size_t left_columns) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += i < left_columns ? fmt::format(" {:<{}}", row[i], widths[i])
                               : fmt::format("  {:>{}}", row[i], widths[i]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string HistoryTable(const ProjectReport& r) {
  std::vector<std::vector<std::string>> rows = {{"month", "calendar", "ideal", "expected",
                                                 "minimal", "used", "lost", "rolled over",
                                                 "remaining", ""}};
  for (const ReportMonth& m : r.history) {
    const MonthRow& row = m.row;
    rows.push_back({std::to_string(m.month), Month(m.first_day), FormatGpuHours(row.ideal),
                    FormatGpuHours(row.expected),
                    row.has_minimal ? FormatGpuHours(row.minimal) : "-", FormatGpuHours(row.used),
                    m.open ? "" : FormatGpuHours(row.lost),
                    m.open ? "" : FormatGpuHours(row.graced),
                    FormatGpuHours(m.open ? r.remaining : row.remaining), m.open ? "open" : ""});
  }
  return Table(rows, 0);
}

std::string UsersTable(const ProjectReport& r) {
  std::vector<std::vector<std::string>> rows = {
      {"user", "this month", "charged", "low", "preparatory"}};
  for (const ReportUser& u : r.users) {
    rows.push_back({u.user, FormatGpuHours(u.this_month), FormatGpuHours(u.charged),
                    FormatGpuHours(u.low), FormatGpuHours(u.preparatory)});
  }
  return Table(rows, 1);
}

std::string Days(std::int64_t seconds) {
  const std::int64_t tenths = seconds * 10 / kSecondsPerDay;
  return tenths % 10 == 0 ? fmt::format("{}", tenths / 10)
                          : fmt::format("{}.{}", tenths / 10, tenths % 10);
}

// GPU-seconds a day at the report's pace.
GpuSeconds PerDay(const Pace& pace) {
  return static_cast<GpuSeconds>(static_cast<__int128>(pace.usage) * kSecondsPerDay /
                                 pace.window_seconds);
}

std::string RunwayText(const ProjectReport& r) {
  const std::string window = Days(r.pace.window_seconds);
  if (!r.runway_seconds) {
    return fmt::format("no usage charged in the last {} days", window);
  }
  std::string text =
      fmt::format("{} days at the pace of the last {} days ({} GPUh a day): ",
                  *r.runway_seconds / kSecondsPerDay, window, FormatGpuHours(PerDay(r.pace)));
  if (r.outlasts_project) {
    return text + fmt::format("lasts past the project's end ({})", FormatCivilDate(r.last_day));
  }
  return text + fmt::format("used up around {}, before the project's end",
                            FormatCivilDate(*r.runs_out_on));
}

}  // namespace

std::string StateText(const ProjectReport& r) {
  switch (r.state) {
    case ProjectState::kPreparatory:
      return fmt::format("preparatory: created {}, starts {}", FormatCivilDate(r.created),
                         FormatCivilDate(r.start));
    case ProjectState::kActive:
      return fmt::format("active, month {} of {}", r.month, r.months);
    case ProjectState::kLow:
      return fmt::format("credit used up (month {} of {}): low partition only", r.month, r.months);
    case ProjectState::kBlocked:
      return fmt::format("credit and low allowance used up (month {} of {}): no job may start",
                         r.month, r.months);
    case ProjectState::kEnded:
      return fmt::format("ended on {}: no job may start", FormatCivilDate(r.last_day));
  }
  return ToString(r.state);
}

std::string BandText(const ProjectReport& r) {
  switch (r.band) {
    case FairShareBand::kBehind:
      return "behind its line: its jobs rank above those of every project ahead of its line";
    case FairShareBand::kAhead:
      return fmt::format(
          "ahead of its line: its jobs rank below those of every project behind its line{}",
          r.back_in_line_on ? fmt::format(", until {} if it uses nothing more",
                                          FormatCivilDate(*r.back_in_line_on))
                            : "");
    case FairShareBand::kPreparatory:
      return "not started: its jobs rank below those of every started project with credit";
    case FairShareBand::kLow:
      return "credit used up: its jobs run in the low partition only, below every other project";
    case FairShareBand::kNone:
      break;
  }
  return "no job may start";
}

std::string ReportText(const ProjectReport& r, bool users) {
  std::string out =
      r.title.empty() ? r.account + "\n" : fmt::format("{}  {}\n", r.account, r.title);
  out += fmt::format("  {} project: {} GPUh ({} CHF at {} CHF per node-hour), grace {:.1f}%\n",
                     KindName(r.kind), FormatGpuHours(r.credit), FormatChf(r.credit_chf),
                     FormatChf(r.price_per_node_hour), r.grace.Percent());
  out += fmt::format("  runs {} .. {}; {}\n", FormatCivilDate(r.start), FormatCivilDate(r.last_day),
                     StateText(r));
  if (r.open_month) {
    out += fmt::format("  this month     {} .. {}\n", FormatCivilDate(r.history.back().first_day),
                       FormatCivilDate(r.month_last_day));
    out += Line("  ideal", r.ideal, "the linear line at the end of the month");
    std::string expected_note;
    if (r.expected <= 0) {
      expected_note = "ahead of the line: nothing to use, nothing can be lost";
    } else if (r.rolled_over > 0) {
      expected_note =
          fmt::format("including {} rolled over from last month", FormatGpuHours(r.rolled_over));
    }
    out += Line("  expected", r.expected, expected_note);
    if (r.minimal > 0) {
      out += Line("  minimal", r.minimal, "what is not used of it is lost at the end of the month");
    }
    out += Line("  used so far", r.used_this_month);
    if (r.still_expected > 0) {
      out += Line(
          "  still to use", r.still_expected,
          fmt::format("to reach expected ({} to reach minimal)", FormatGpuHours(r.still_minimal)));
    } else if (r.expected > 0) {
      out += Line("  still to use", 0, "this month's expected is reached");
    }
  }
  if (r.state == ProjectState::kPreparatory) {
    out += Line("before start", r.preparatory_used,
                "used in the preparatory period: recorded, not charged");
  }
  out += Line("used", r.used, "charged to the credit so far");
  out += Line("lost so far", r.lost);
  out += Line("remaining", r.remaining,
              r.remaining > 0 ? fmt::format("{} CHF", FormatChf(r.remaining_chf)) : "");
  if (r.state == ProjectState::kActive && r.pace.window_seconds > 0) {
    out += fmt::format("  {:<15}{}\n", "runway", RunwayText(r));
  }
  if (r.state == ProjectState::kLow || r.state == ProjectState::kBlocked || r.low_used > 0) {
    out += Line("low partition", r.low_used,
                fmt::format("used of {} (one month of credit)", FormatGpuHours(r.low_allowance)));
  }
  out += fmt::format("  {:<15}{}\n", "priority", BandText(r));
  if (!r.history.empty()) {
    out += "\n" + HistoryTable(r);
  }
  if (users) {
    out += "\n" + (r.users.empty() ? std::string("  no usage by any user\n") : UsersTable(r));
  }
  return out + "\n";
}

nlohmann::ordered_json ReportJson(const ProjectReport& r, bool users) {
  using json = nlohmann::ordered_json;
  const auto date_or_null = [](const std::optional<CivilDate>& d) {
    return d ? json(FormatCivilDate(*d)) : json(nullptr);
  };
  // A month ahead of the line has no minimal: null, as simulate --json writes it, not a 0 that
  // reads as "nothing to use".
  const auto minimal_or_null = [](const MonthRow& row) {
    return row.has_minimal ? json(Gpuh(row.minimal)) : json(nullptr);
  };
  json this_month = nullptr;
  if (r.open_month) {
    this_month = {{"month", r.month},
                  {"first_day", FormatCivilDate(r.history.back().first_day)},
                  {"last_day", FormatCivilDate(r.month_last_day)},
                  {"ideal", Gpuh(r.ideal)},
                  {"expected", Gpuh(r.expected)},
                  {"minimal", minimal_or_null(r.history.back().row)},
                  {"used", Gpuh(r.used_this_month)},
                  {"still_expected", Gpuh(r.still_expected)},
                  {"still_minimal", Gpuh(r.still_minimal)},
                  {"rolled_over", Gpuh(r.rolled_over)}};
  }
  json pace = nullptr;
  if (r.pace.window_seconds > 0) {
    pace = {{"days", static_cast<double>(r.pace.window_seconds) / kSecondsPerDay},
            {"gpuh", Gpuh(r.pace.usage)},
            {"gpuh_per_day",
             Gpuh(r.pace.usage) * kSecondsPerDay / static_cast<double>(r.pace.window_seconds)}};
  }
  json history = json::array();
  for (const ReportMonth& m : r.history) {
    history.push_back({{"month", m.month},
                       {"first_day", FormatCivilDate(m.first_day)},
                       {"open", m.open},
                       {"ideal", Gpuh(m.row.ideal)},
                       {"expected", Gpuh(m.row.expected)},
                       {"minimal", minimal_or_null(m.row)},
                       {"used", Gpuh(m.row.used)},
                       {"lost", m.open ? json(nullptr) : json(Gpuh(m.row.lost))},
                       {"rolled_over", m.open ? json(nullptr) : json(Gpuh(m.row.graced))},
                       {"remaining", Gpuh(m.open ? r.remaining : m.row.remaining)}});
  }
  json out = {
      {"project", r.account},
      {"title", r.title},
      {"kind", KindName(r.kind)},
      {"state", ToString(r.state)},
      {"created", FormatCivilDate(r.created)},
      {"start", FormatCivilDate(r.start)},
      {"last_day", FormatCivilDate(r.last_day)},
      {"months", r.months},
      {"month", r.month},
      {"credit", Gpuh(r.credit)},
      {"credit_chf", Chf(r.credit_chf)},
      {"price_per_node_hour", Chf(r.price_per_node_hour)},
      {"grace_percent", r.grace.Percent()},
      {"this_month", this_month},
      {"used", Gpuh(r.used)},
      {"lost", Gpuh(r.lost)},
      {"remaining", Gpuh(r.remaining)},
      {"remaining_chf", Chf(r.remaining_chf)},
      {"low_used", Gpuh(r.low_used)},
      {"low_allowance", Gpuh(r.low_allowance)},
      {"preparatory_used", Gpuh(r.preparatory_used)},
      {"band", ToString(r.band)},
      {"back_in_line_on", date_or_null(r.back_in_line_on)},
      {"pace", pace},
      {"runway_days", r.runway_seconds ? json(*r.runway_seconds / kSecondsPerDay) : json(nullptr)},
      {"runs_out_on", date_or_null(r.runs_out_on)},
      {"outlasts_project", r.outlasts_project},
      {"history", history}};
  if (users) {
    json list = json::array();
    for (const ReportUser& u : r.users) {
      list.push_back({{"user", u.user},
                      {"this_month", Gpuh(u.this_month)},
                      {"charged", Gpuh(u.charged)},
                      {"low", Gpuh(u.low)},
                      {"preparatory", Gpuh(u.preparatory)}});
    }
    out["users"] = list;
  }
  return out;
}

}  // namespace budget::cli
