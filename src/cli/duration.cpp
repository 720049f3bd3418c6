// Durations on sbudget's command line: Slurm's D-H:M:S forms, a unit suffix or a bare number.
#include "duration.hpp"

#include <fmt/core.h>

#include <array>
#include <charconv>
#include <limits>
#include <system_error>
#include <vector>

#include "budget/units.hpp"
#include "cli_error.hpp"

namespace budget::cli {

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// The whole of `text` as a whole number >= 0 (digits only: no sign, no blank).
std::optional<std::int64_t> WholeNumber(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') {
    return std::nullopt;
  }
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) {
    return std::nullopt;
  }
  return value;
}

// a * b + c, or nullopt past kMax (all >= 0).
std::optional<std::int64_t> MulAdd(std::int64_t a, std::int64_t b, std::int64_t c) {
  if (b != 0 && a > (kMax - c) / b) {
    return std::nullopt;
  }
  return a * b + c;
}

// "H:M:S" or "M:S" (or, after a day's '-', "H", "H:M", "H:M:S"): seconds.
std::optional<std::int64_t> ClockFields(std::string_view text, bool after_day) {
  std::vector<std::int64_t> fields;
  for (;;) {
    const std::size_t colon = text.find(':');
    const auto field = WholeNumber(text.substr(0, colon));
    if (!field) {
      return std::nullopt;
    }
    fields.push_back(*field);
    if (colon == std::string_view::npos) {
      break;
    }
    text.remove_prefix(colon + 1);
  }
  if (fields.size() > 3 || (!after_day && fields.size() < 2)) {
    return std::nullopt;
  }
  // Slurm reads two fields as M:S without a day and as H:M after one.
  const bool hours_first = after_day || fields.size() == 3;
  std::optional<std::int64_t> seconds = 0;
  constexpr std::array<std::int64_t, 3> kFromHours{3600, 60, 1};
  constexpr std::array<std::int64_t, 3> kFromMinutes{60, 1, 0};
  const auto& unit = hours_first ? kFromHours : kFromMinutes;
  for (std::size_t i = 0; i < fields.size() && seconds; ++i) {
    seconds = MulAdd(fields[i], unit[i], *seconds);
  }
  return seconds;
}

}  // namespace

std::optional<std::int64_t> ParseDuration(std::string_view text, std::int64_t bare_unit_seconds) {
  if (const std::size_t dash = text.find('-'); dash != std::string_view::npos) {
    const auto days = WholeNumber(text.substr(0, dash));
    const auto rest = ClockFields(text.substr(dash + 1), true);
    if (!days || !rest) {
      return std::nullopt;
    }
    return MulAdd(*days, kSecondsPerDay, *rest);
  }
  if (text.find(':') != std::string_view::npos) {
    return ClockFields(text, false);
  }
  std::int64_t unit = bare_unit_seconds;
  if (!text.empty() && (text.back() < '0' || text.back() > '9')) {
    switch (text.back()) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = kSecondsPerDay;
        break;
      default:
        return std::nullopt;
    }
    text.remove_suffix(1);
  }
  const auto number = WholeNumber(text);
  if (!number) {
    return std::nullopt;
  }
  return MulAdd(*number, unit, 0);
}

std::int64_t ParseDurationOption(std::string_view text, std::int64_t bare_unit_seconds,
                                 std::string_view option, std::string_view bare_unit_name) {
  const auto seconds = ParseDuration(text, bare_unit_seconds);
  if (!seconds) {
    throw UsageError(fmt::format(
        "{}: expected a duration (7-0, 14d, 12h, 90s, or a whole number of {}), got \"{}\"", option,
        bare_unit_name, text));
  }
  return *seconds;
}

}  // namespace budget::cli
