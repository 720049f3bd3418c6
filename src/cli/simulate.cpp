// `sbudget simulate`: the monthly schedule of a credit for a given usage series.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/schedule.hpp"
#include "budget/text.hpp"
#include "budget/units.hpp"
#include "commands.hpp"
#include "simulate_output.hpp"

namespace budget::cli {

namespace {

constexpr std::int64_t kMaxGpuHours =
    std::numeric_limits<GpuSeconds>::max() / kGpuSecondsPerGpuHour;
// More decimals than this would be finer than a nanosecond of a GPU hour.
constexpr std::size_t kMaxDecimals = 9;

struct SimulateOptions {
  std::string credit;
  std::string months;
  std::string usage;
  bool json = false;
};

// Digits only, at most kMaxGpuHours; nullopt otherwise (also for "").
std::optional<std::int64_t> ParseWhole(std::string_view digits) {
  if (digits.empty()) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
    if (value > kMaxGpuHours) {
      return std::nullopt;
    }
  }
  return value;
}

// "1250", "0.5", "12.25": non-negative GPU hours to GPU-seconds, rounded to
// the nearest GPU-second (halves up). Decimal arithmetic, no double, so that
// 0.1 GPUh is exactly 360 GPU-seconds.
std::optional<GpuSeconds> ParseGpuHours(std::string_view text) {
  const std::size_t dot = text.find('.');
  const auto whole = ParseWhole(text.substr(0, dot));
  if (!whole) {
    return std::nullopt;
  }
  GpuSeconds seconds = *whole * kGpuSecondsPerGpuHour;
  if (dot == std::string_view::npos) {
    return seconds;
  }
  const std::string_view decimals = text.substr(dot + 1);
  if (decimals.empty() || decimals.size() > kMaxDecimals) {
    return std::nullopt;
  }
  std::int64_t numerator = 0;
  std::int64_t denominator = 1;
  for (const char c : decimals) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    numerator = numerator * 10 + (c - '0');
    denominator *= 10;
  }
  // numerator < 10^9, so numerator * 7200 stays far inside int64.
  const GpuSeconds fraction =
      (numerator * kGpuSecondsPerGpuHour * 2 + denominator) / (denominator * 2);
  if (seconds > std::numeric_limits<GpuSeconds>::max() - fraction) {
    return std::nullopt;
  }
  return seconds + fraction;
}

GpuSeconds CreditOf(const std::string& text) {
  const auto hours = ParseWhole(Trim(text));
  if (!hours || *hours == 0) {
    throw UsageError(
        fmt::format("--credit must be a positive whole number of GPU hours, got \"{}\"", text));
  }
  return GpuHours(*hours);
}

int MonthsOf(const std::string& text) {
  const std::string_view months = Trim(text);
  if (months == "6") {
    return 6;
  }
  if (months == "12") {
    return 12;
  }
  throw UsageError(fmt::format("--months must be 6 or 12, got \"{}\"", text));
}

// "750,1250,200" -> GPU-seconds per month; "" -> no month.
std::vector<GpuSeconds> UsageOf(const std::string& text) {
  std::vector<GpuSeconds> usage;
  if (Trim(text).empty()) {
    return usage;
  }
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = Trim(rest.substr(0, comma));
    const auto seconds = ParseGpuHours(item);
    if (!seconds) {
      throw UsageError(
          fmt::format("--usage value {} must be a non-negative number of GPU hours, got \"{}\"",
                      usage.size() + 1, item));
    }
    usage.push_back(*seconds);
    if (comma == std::string_view::npos) {
      return usage;
    }
    rest.remove_prefix(comma + 1);
  }
}

void RunSimulate(const SimulateOptions& options) {
  const GpuSeconds credit = CreditOf(options.credit);
  const int months = MonthsOf(options.months);
  const std::vector<GpuSeconds> usage = UsageOf(options.usage);
  if (usage.size() > static_cast<std::size_t>(months)) {
    throw UsageError(
        fmt::format("--usage has {} values but the project has {} months", usage.size(), months));
  }
  Schedule schedule(credit, months);
  for (const GpuSeconds used : usage) {
    const Status closed = schedule.Close(schedule.closed_months() + 1, used);
    if (!closed.ok()) {
      throw UsageError("--usage: " + closed.error());
    }
  }
  fmt::print("{}", options.json ? ScheduleJson(schedule) : ScheduleTable(schedule));
}

}  // namespace

void AddSimulateCommand(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Show a credit's monthly schedule (expected, minimal, lost, graced) for a usage series");
  cmd->add_option("--credit", options->credit, "Credit in GPU hours, a positive whole number")
      ->type_name("GPUH")
      ->required();
  cmd->add_option("--months", options->months, "Duration in months: 6 (small) or 12 (large)")
      ->type_name("6|12")
      ->required();
  cmd->add_option("--usage", options->usage,
                  "GPU hours used in each closed month, comma-separated; empty: no month closed")
      ->type_name("U1,U2,...")
      ->expected(0, 1);
  cmd->add_flag("--json", options->json, "Print a JSON array of the rows instead of a table");
  cmd->callback([options] { RunSimulate(*options); });
}

}  // namespace budget::cli
