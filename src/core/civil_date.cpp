// Civil dates: parsing, formatting, month and day arithmetic, time zones.
#include "budget/civil_date.hpp"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <unordered_map>

#include "budget/units.hpp"

namespace budget {

namespace {

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

// Floor division: months and days before the epoch must round towards -inf.
std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}

// Parses exactly `n` decimal digits at text[pos..pos+n).
std::optional<int> ParseDigits(std::string_view text, std::size_t pos, std::size_t n) {
  int value = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && IsLeapYear(year)) {
    return 29;
  }
  return kDays[month - 1];
}

bool IsValidCivilDate(const CivilDate& d) {
  return d.month >= 1 && d.month <= 12 && d.day >= 1 && d.day <= DaysInMonth(d.year, d.month);
}

std::optional<CivilDate> ParseCivilDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return std::nullopt;
  }
  const auto year = ParseDigits(text, 0, 4);
  const auto month = ParseDigits(text, 5, 2);
  const auto day = ParseDigits(text, 8, 2);
  if (!year || !month || !day) {
    return std::nullopt;
  }
  const CivilDate d{*year, *month, *day};
  if (!IsValidCivilDate(d)) {
    return std::nullopt;
  }
  return d;
}

std::optional<int> ParseTimeOfDay(std::string_view text) {
  if (text.size() != 8 || text[2] != ':' || text[5] != ':') {
    return std::nullopt;
  }
  const auto hour = ParseDigits(text, 0, 2);
  const auto minute = ParseDigits(text, 3, 2);
  const auto second = ParseDigits(text, 6, 2);
  if (!hour || !minute || !second || *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  return *hour * 3600 + *minute * 60 + *second;
}

std::string FormatCivilDate(const CivilDate& d) {
  // Real dates of years 0..9999, digit by digit: a pass formats two dates for
  // every pending job's lifecycle verdict, and snprintf costs ten times more.
  if (d.year >= 0 && d.year <= 9999 && d.month >= 1 && d.month <= 99 && d.day >= 1 && d.day <= 99) {
    const auto digit = [](int v) { return static_cast<char>('0' + v); };
    return std::string{digit(d.year / 1000),
                       digit(d.year / 100 % 10),
                       digit(d.year / 10 % 10),
                       digit(d.year % 10),
                       '-',
                       digit(d.month / 10),
                       digit(d.month % 10),
                       '-',
                       digit(d.day / 10),
                       digit(d.day % 10)};
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", d.year, d.month, d.day);
  return buf;
}

CivilDate FirstOfMonthAfter(const CivilDate& d, int months) {
  const std::int64_t index = static_cast<std::int64_t>(d.year) * 12 + (d.month - 1) + months;
  const std::int64_t year = FloorDiv(index, 12);
  return CivilDate{static_cast<int>(year), static_cast<int>(index - year * 12) + 1, 1};
}

CivilDate AddDays(const CivilDate& d, int days) { return CivilFromDays(DaysFromCivil(d) + days); }

// http://howardhinnant.github.io/date_algorithms.html, days_from_civil.
std::int64_t DaysFromCivil(const CivilDate& d) {
  const std::int64_t y = static_cast<std::int64_t>(d.year) - (d.month <= 2 ? 1 : 0);
  const std::int64_t m = d.month;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;                                        // [0, 399]
  const std::int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d.day - 1;  // [0, 365]
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;                // [0, 146096]
  return era * 146097 + doe - 719468;
}

// Same source, civil_from_days.
CivilDate CivilFromDays(std::int64_t days) {
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;                                       // [0, 146096]
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const std::int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;                           // [1, 31]
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;                            // [1, 12]
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return CivilDate{static_cast<int>(year), static_cast<int>(month), static_cast<int>(day)};
}

// What a local zone has converted so far. Bounded: a long-running
// controller converts the same few month starts and one `now` per pass.
struct TimeZone::LocalMemo {
  static constexpr std::size_t kMaxMidnights = 4096;

  std::mutex mutex;
  std::unordered_map<std::int64_t, UnixTime> midnights;  // by DaysFromCivil
  // The last DateAt: a pass asks it for every project at the same `now`.
  bool has_date = false;
  UnixTime date_instant = 0;
  CivilDate date;
};

TimeZone::TimeZone(bool utc) : utc_(utc) {
  if (!utc_) {
    memo_ = std::make_shared<LocalMemo>();
  }
}

TimeZone TimeZone::Utc() { return TimeZone(true); }
TimeZone TimeZone::Local() { return TimeZone(false); }

UnixTime TimeZone::MidnightOf(const CivilDate& d) const {
  if (utc_) {
    return DaysFromCivil(d) * kSecondsPerDay;
  }
  // Only real dates are remembered: mktime normalises the others (30 February),
  // and their day count need not name the date mktime makes of them.
  const bool remember = IsValidCivilDate(d);
  const std::int64_t day = remember ? DaysFromCivil(d) : 0;
  std::lock_guard lock(memo_->mutex);
  if (remember) {
    if (const auto hit = memo_->midnights.find(day); hit != memo_->midnights.end()) {
      return hit->second;
    }
  }
  std::tm tm{};
  tm.tm_year = d.year - 1900;
  tm.tm_mon = d.month - 1;
  tm.tm_mday = d.day;
  // Let mktime decide whether DST is in force at that midnight; where a DST
  // change skips midnight, mktime normalises to the first instant of the day.
  tm.tm_isdst = -1;
  const auto midnight = static_cast<UnixTime>(std::mktime(&tm));
  if (remember) {
    if (memo_->midnights.size() >= LocalMemo::kMaxMidnights) {
      memo_->midnights.clear();
    }
    memo_->midnights.emplace(day, midnight);
  }
  return midnight;
}

UnixTime TimeZone::InstantOf(const CivilDate& d, int second_of_day) const {
  if (utc_) {
    return MidnightOf(d) + second_of_day;
  }
  std::tm tm{};
  tm.tm_year = d.year - 1900;
  tm.tm_mon = d.month - 1;
  tm.tm_mday = d.day;
  tm.tm_hour = second_of_day / 3600;
  tm.tm_min = second_of_day / 60 % 60;
  tm.tm_sec = second_of_day % 60;
  tm.tm_isdst = -1;  // whichever of winter and summer time is in force at that time
  return static_cast<UnixTime>(std::mktime(&tm));
}

[[gnu::hot]] CivilDate TimeZone::DateAt(UnixTime t) const {
  if (utc_) {
    return CivilFromDays(FloorDiv(t, kSecondsPerDay));
  }
  std::lock_guard lock(memo_->mutex);
  if (memo_->has_date && memo_->date_instant == t) {
    return memo_->date;
  }
  const auto tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  const CivilDate date{tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday};
  memo_->has_date = true;
  memo_->date_instant = t;
  memo_->date = date;
  return date;
}

}  // namespace budget
