// Instants on sbudget's command line, and sacct's UTC time format.
#include "instant.hpp"

#include <fmt/core.h>

#include <charconv>
#include <ctime>
#include <optional>
#include <system_error>

#include "cli_error.hpp"

namespace budget::cli {

namespace {

// Seconds since midnight of "THH:MM:SS" and nothing after it. sscanf's %d took
// signs, blanks, hour 25 and minute 61 (so 25:00 became 01:00 of the next day)
// and ignored what followed the seconds.
std::optional<int> SecondOfDay(std::string_view text) {
  if (text.empty() || text.front() != 'T') {
    return std::nullopt;
  }
  return ParseTimeOfDay(text.substr(1));
}

// The whole of "EPOCH" (after the '@') as Unix seconds, with an optional '-'.
std::optional<UnixTime> Epoch(std::string_view text) {
  UnixTime value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

UnixTime ParseInstant(const std::string& text, const TimeZone& zone, std::string_view option) {
  if (text.empty()) {
    return static_cast<UnixTime>(std::time(nullptr));
  }
  const std::string_view view = text;
  if (view.front() == '@') {
    const auto epoch = Epoch(view.substr(1));
    if (!epoch) {
      throw UsageError(fmt::format("{}: not a Unix time: \"{}\"", option, text));
    }
    return *epoch;
  }
  const auto date = ParseCivilDate(view.substr(0, 10));
  const auto second_of_day = view.size() > 10 ? SecondOfDay(view.substr(10)) : 0;
  if (!date || !second_of_day) {
    throw UsageError(
        fmt::format("{}: expected YYYY-MM-DD[THH:MM:SS] or @EPOCH, got \"{}\"", option, text));
  }
  // Not MidnightOf + seconds: on the days summer time begins or ends that is an hour off.
  return zone.InstantOf(*date, *second_of_day);
}

std::string FormatUtc(UnixTime t) {
  const CivilDate date = TimeZone::Utc().DateAt(t);
  const UnixTime second_of_day = t - TimeZone::Utc().MidnightOf(date);
  return fmt::format("{}T{:02}:{:02}:{:02}", FormatCivilDate(date), second_of_day / 3600,
                     second_of_day / 60 % 60, second_of_day % 60);
}

std::string FormatLocal(UnixTime t) {
  const auto seconds = static_cast<std::time_t>(t);
  std::tm local{};
  char text[64];
  if (localtime_r(&seconds, &local) == nullptr ||
      std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S %Z", &local) == 0) {
    return fmt::format("@{}", t);
  }
  return text;
}

}  // namespace budget::cli
