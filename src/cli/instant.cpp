// Instants on sbudget's command line, and sacct's UTC time format.
#include "instant.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <exception>

namespace budget::cli {

UnixTime ParseInstant(const std::string& text, const TimeZone& zone, std::string_view option) {
  if (text.empty()) {
    return static_cast<UnixTime>(std::time(nullptr));
  }
  if (text.front() == '@') {
    try {
      return std::stoll(text.substr(1));
    } catch (const std::exception&) {
      throw CLI::ValidationError(fmt::format("{}: not a Unix time: \"{}\"", option, text));
    }
  }
  const auto date = ParseCivilDate(text.substr(0, 10));
  int h = 0, m = 0, s = 0;
  if (!date || (text.size() > 10 && std::sscanf(text.c_str() + 10, "T%d:%d:%d", &h, &m, &s) != 3)) {
    throw CLI::ValidationError(
        fmt::format("{}: expected YYYY-MM-DD[THH:MM:SS] or @EPOCH, got \"{}\"", option, text));
  }
  return zone.MidnightOf(*date) + UnixTime{h} * 3600 + UnixTime{m} * 60 + s;
}

std::string FormatUtc(UnixTime t) {
  const CivilDate date = TimeZone::Utc().DateAt(t);
  const UnixTime second_of_day = t - TimeZone::Utc().MidnightOf(date);
  return fmt::format("{}T{:02}:{:02}:{:02}", FormatCivilDate(date), second_of_day / 3600,
                     second_of_day / 60 % 60, second_of_day % 60);
}

}  // namespace budget::cli
