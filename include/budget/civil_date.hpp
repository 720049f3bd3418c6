// Civil (calendar) dates and their conversion to instants in the cluster's time zone.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "budget/units.hpp"

namespace budget {

// A proleptic Gregorian calendar date. Month 1..12, day 1..31 (validated).
struct CivilDate {
  int year = 1970;
  int month = 1;
  int day = 1;

  friend bool operator==(const CivilDate&, const CivilDate&) = default;
  // NOLINT below: clang-tidy 14 mistakes the literal 0 that a defaulted <=> compares its result
  // against for a null pointer (modernize-use-nullptr false positive).
  friend auto operator<=>(const CivilDate&,
                          const CivilDate&) = default;  // NOLINT(modernize-use-nullptr)
};

// Days in `month` (1..12) of `year`: 28..31.
int DaysInMonth(int year, int month);

// True when d names a real date: month 1..12, day 1..DaysInMonth.
bool IsValidCivilDate(const CivilDate& d);

// Parses "YYYY-MM-DD"; nullopt if malformed or not a real date (2026-02-30).
std::optional<CivilDate> ParseCivilDate(std::string_view text);

// Seconds since midnight (0..86399) of "HH:MM:SS" and nothing else; nullopt if
// malformed or out of range (hour 24, minute or second 60: a typo, not a time on
// another day). A clock time, not an instant: InstantOf makes one of it and a date.
std::optional<int> ParseTimeOfDay(std::string_view text);

// "YYYY-MM-DD".
std::string FormatCivilDate(const CivilDate& d);

// The 1st of the month `months` calendar months after d's month (negative: before).
CivilDate FirstOfMonthAfter(const CivilDate& d, int months);

// d plus `days` days.
CivilDate AddDays(const CivilDate& d, int days);

// Days since 1970-01-01 and back (Howard Hinnant's algorithms); negative before the epoch.
std::int64_t DaysFromCivil(const CivilDate& d);
CivilDate CivilFromDays(std::int64_t days);

// How civil dates become instants. Month boundaries are midnight in the
// cluster's time zone; the plugin uses the controller's local time, tests use UTC.
//
// Local() asks mktime(3) and localtime_r(3), and remembers their answers: the
// months of every project begin on the same few dates, and glibc's mktime
// checks the zone file on disk at every call (a stat(2) for each boundary of
// each running job's accrual). A zone and its copies so see the rules in
// force when each date or instant was first converted: a change of TZ or of
// /etc/localtime reaches a new TimeZone (a new engine), not an existing one.
// Thread-safe; copies share what was remembered.
class TimeZone {
 public:
  static TimeZone Utc();
  static TimeZone Local();  // the process's TZ, as mktime(3) sees it

  // The instant of 00:00:00 on `d` in this zone.
  UnixTime MidnightOf(const CivilDate& d) const;
  // The instant the clocks of this zone show `second_of_day` (0..86'399) on `d`: on the days
  // summer time begins or ends that is not MidnightOf(d) + second_of_day. A time that occurs
  // twice or not at all that day is placed as mktime(3) places it with tm_isdst = -1. Local
  // zones ask mktime at each call (the command line's --at, once a run): nothing remembered.
  UnixTime InstantOf(const CivilDate& d, int second_of_day) const;
  // The civil date at instant t in this zone.
  CivilDate DateAt(UnixTime t) const;

 private:
  struct LocalMemo;
  explicit TimeZone(bool utc);
  bool utc_;
  std::shared_ptr<LocalMemo> memo_;  // local zones only
};

}  // namespace budget
