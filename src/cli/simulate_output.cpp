// Rendering of a simulated schedule as a table or as JSON.
#include "simulate_output.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "budget/units.hpp"

namespace budget::cli {

namespace {

constexpr std::array<const char*, 9> kColumns = {"month",    "accounted_before", "ideal",
                                                 "expected", "minimal",          "used",
                                                 "lost",     "graced",           "remaining"};

// Closed months, then the open one while the project is not over.
std::vector<MonthRow> Rows(const Schedule& schedule) {
  std::vector<MonthRow> rows = schedule.closed();
  if (!schedule.over()) {
    rows.push_back(schedule.Open());
  }
  return rows;
}

std::array<std::string, kColumns.size()> Cells(const MonthRow& row) {
  const auto closed_only = [&row](GpuSeconds s) {
    return row.closed ? FormatGpuHours(s) : std::string("-");
  };
  // Ahead of the line (expected <= 0) a month has no minimal (policy.md §3), which is not
  // a minimal of 0: "-" as in the project view's month table.
  const std::string minimal = row.has_minimal ? FormatGpuHours(row.minimal) : std::string("-");
  return {std::to_string(row.month),
          FormatGpuHours(row.accounted_before),
          FormatGpuHours(row.ideal),
          FormatGpuHours(row.expected),
          minimal,
          closed_only(row.used),
          closed_only(row.lost),
          closed_only(row.graced),
          FormatGpuHours(row.remaining)};
}

}  // namespace

std::string ScheduleTable(const Schedule& schedule) {
  std::vector<std::array<std::string, kColumns.size()>> lines;
  lines.push_back({});
  std::copy(kColumns.begin(), kColumns.end(), lines.back().begin());
  for (const MonthRow& row : Rows(schedule)) {
    lines.push_back(Cells(row));
  }
  std::array<std::size_t, kColumns.size()> widths{};
  for (const auto& line : lines) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      widths[i] = std::max(widths[i], line[i].size());
    }
  }
  std::string out =
      fmt::format("credit {} GPUh over {} months, grace {:.1f}%\n",
                  FormatGpuHours(schedule.credit()), schedule.months(), schedule.grace().Percent());
  for (const auto& line : lines) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      out += fmt::format("{}{:>{}}", i == 0 ? "" : "  ", line[i], widths[i]);
    }
    out += '\n';
  }
  return out;
}

std::string ScheduleJson(const Schedule& schedule) {
  // ordered_json keeps the keys in the table's column order.
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const MonthRow& row : Rows(schedule)) {
    const auto closed_only = [&row](GpuSeconds s) {
      return row.closed ? nlohmann::ordered_json(ToGpuHours(s)) : nlohmann::ordered_json(nullptr);
    };
    rows.push_back({{"month", row.month},
                    {"accounted_before", ToGpuHours(row.accounted_before)},
                    {"ideal", ToGpuHours(row.ideal)},
                    {"expected", ToGpuHours(row.expected)},
                    {"minimal", row.has_minimal ? nlohmann::ordered_json(ToGpuHours(row.minimal))
                                                : nlohmann::ordered_json(nullptr)},
                    {"used", closed_only(row.used)},
                    {"lost", closed_only(row.lost)},
                    {"graced", closed_only(row.graced)},
                    {"remaining", ToGpuHours(row.remaining)}});
  }
  return rows.dump(2) + "\n";
}

}  // namespace budget::cli
