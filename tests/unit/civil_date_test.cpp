// Tests of civil dates and time zones (civil_date.hpp).
#include "budget/civil_date.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

#include "scoped_tz.hpp"

namespace budget {
namespace {

TEST(ParseCivilDate, ReadsIsoDates) {
  EXPECT_EQ(ParseCivilDate("2026-03-15"), (CivilDate{2026, 3, 15}));
  EXPECT_EQ(ParseCivilDate("2024-02-29"), (CivilDate{2024, 2, 29}));
  EXPECT_EQ(ParseCivilDate("2000-02-29"), (CivilDate{2000, 2, 29}));
  EXPECT_EQ(ParseCivilDate("0001-01-01"), (CivilDate{1, 1, 1}));
}

TEST(ParseCivilDate, RefusesMalformedText) {
  for (const char* text : {"", "2026-3-15", "2026-03-5", "2026/03/15", "20260315", "2026-03-15 ",
                           " 2026-03-15", "2026-03-1a", "+026-03-15", "2026-03-15T00"}) {
    EXPECT_EQ(ParseCivilDate(text), std::nullopt) << '"' << text << '"';
  }
}

TEST(ParseCivilDate, RefusesDatesThatDoNotExist) {
  for (const char* text : {"2026-02-29", "2026-02-30", "2100-02-29", "2026-04-31", "2026-13-01",
                           "2026-00-10", "2026-01-00", "2026-12-32"}) {
    EXPECT_EQ(ParseCivilDate(text), std::nullopt) << text;
  }
}

TEST(ParseTimeOfDay, ReadsSecondsSinceMidnight) {
  EXPECT_EQ(ParseTimeOfDay("00:00:00"), 0);
  EXPECT_EQ(ParseTimeOfDay("02:30:05"), 2 * 3600 + 30 * 60 + 5);
  EXPECT_EQ(ParseTimeOfDay("23:59:59"), 86399);
}

TEST(ParseTimeOfDay, RefusesOutOfRangeAndMalformedText) {
  for (const char* text :
       {"24:00:00", "25:00:00", "12:60:00", "12:00:60", "", "2:30:05", "02:30", "02:30:05 ",
        " 02:30:05", "02-30-05", "+2:30:05", "02:3a:05", "02:30:05Z"}) {
    EXPECT_EQ(ParseTimeOfDay(text), std::nullopt) << '"' << text << '"';
  }
}

TEST(FormatCivilDate, WritesIsoDatesWithZeroPadding) {
  EXPECT_EQ(FormatCivilDate({2026, 4, 1}), "2026-04-01");
  EXPECT_EQ(FormatCivilDate({999, 12, 31}), "0999-12-31");
}

TEST(FormatCivilDate, RoundTripsThroughParse) {
  for (std::int64_t days = -800'000; days <= 800'000; days += 997) {
    const CivilDate d = CivilFromDays(days);
    if (d.year < 0 || d.year > 9999) {
      continue;
    }
    EXPECT_EQ(ParseCivilDate(FormatCivilDate(d)), d) << days;
  }
}

TEST(DaysInMonth, KnowsLeapYears) {
  EXPECT_EQ(DaysInMonth(2026, 2), 28);
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(1900, 2), 28);
  EXPECT_EQ(DaysInMonth(2000, 2), 29);
  EXPECT_EQ(DaysInMonth(2026, 4), 30);
  EXPECT_EQ(DaysInMonth(2026, 12), 31);
}

TEST(DaysFromCivil, CountsFromTheUnixEpoch) {
  EXPECT_EQ(DaysFromCivil({1970, 1, 1}), 0);
  EXPECT_EQ(DaysFromCivil({1970, 1, 2}), 1);
  EXPECT_EQ(DaysFromCivil({1969, 12, 31}), -1);
  EXPECT_EQ(DaysFromCivil({2000, 3, 1}), 11'017);
  EXPECT_EQ(DaysFromCivil({2026, 4, 1}), 20'544);
}

TEST(CivilFromDays, InvertsDaysFromCivilAndStepsOneDayAtATime) {
  CivilDate previous = CivilFromDays(-200'000);
  for (std::int64_t days = -199'999; days <= 200'000; ++days) {
    const CivilDate d = CivilFromDays(days);
    ASSERT_EQ(DaysFromCivil(d), days);
    ASSERT_TRUE(IsValidCivilDate(d));
    ASSERT_LT(previous, d);
    previous = d;
  }
}

TEST(FirstOfMonthAfter, MovesByCalendarMonths) {
  EXPECT_EQ(FirstOfMonthAfter({2026, 3, 15}, 1), (CivilDate{2026, 4, 1}));
  EXPECT_EQ(FirstOfMonthAfter({2026, 3, 15}, 3), (CivilDate{2026, 6, 1}));
  EXPECT_EQ(FirstOfMonthAfter({2026, 3, 15}, 0), (CivilDate{2026, 3, 1}));
  EXPECT_EQ(FirstOfMonthAfter({2026, 11, 30}, 2), (CivilDate{2027, 1, 1}));
  EXPECT_EQ(FirstOfMonthAfter({2026, 7, 1}, 12), (CivilDate{2027, 7, 1}));
  EXPECT_EQ(FirstOfMonthAfter({2026, 1, 31}, -1), (CivilDate{2025, 12, 1}));
  EXPECT_EQ(FirstOfMonthAfter({2026, 1, 31}, -13), (CivilDate{2024, 12, 1}));
}

TEST(AddDays, CrossesMonthAndYearEnds) {
  EXPECT_EQ(AddDays({2026, 10, 1}, -1), (CivilDate{2026, 9, 30}));
  EXPECT_EQ(AddDays({2026, 12, 31}, 1), (CivilDate{2027, 1, 1}));
  EXPECT_EQ(AddDays({2024, 2, 28}, 1), (CivilDate{2024, 2, 29}));
  EXPECT_EQ(AddDays({2026, 10, 1}, 90), (CivilDate{2026, 12, 30}));
  EXPECT_EQ(AddDays({2026, 4, 1}, 0), (CivilDate{2026, 4, 1}));
}

TEST(TimeZone, UtcMidnightIsWholeDaysOfSeconds) {
  const TimeZone utc = TimeZone::Utc();
  EXPECT_EQ(utc.MidnightOf({1970, 1, 1}), 0);
  EXPECT_EQ(utc.MidnightOf({2026, 4, 1}), 1'775'001'600);
  EXPECT_EQ(utc.MidnightOf({1969, 12, 31}), -86'400);
}

TEST(TimeZone, UtcDateAtFloorsToTheDay) {
  const TimeZone utc = TimeZone::Utc();
  EXPECT_EQ(utc.DateAt(1'775'001'600), (CivilDate{2026, 4, 1}));
  EXPECT_EQ(utc.DateAt(1'775'001'599), (CivilDate{2026, 3, 31}));
  EXPECT_EQ(utc.DateAt(1'775'087'999), (CivilDate{2026, 4, 1}));
  EXPECT_EQ(utc.DateAt(-1), (CivilDate{1969, 12, 31}));
}

TEST(TimeZone, LocalMidnightFollowsTheProcessZoneAndDst) {
  // A POSIX rule string, so the test does not depend on installed tzdata:
  // Central European Time, summer time from the last Sunday of March.
  const ScopedTz tz("CET-1CEST,M3.5.0,M10.5.0/3");
  const TimeZone local = TimeZone::Local();
  const TimeZone utc = TimeZone::Utc();
  // 1 April 2026 is in summer time (UTC+2); 1 January in winter time (UTC+1).
  EXPECT_EQ(local.MidnightOf({2026, 4, 1}), utc.MidnightOf({2026, 4, 1}) - 2 * 3600);
  EXPECT_EQ(local.MidnightOf({2026, 1, 1}), utc.MidnightOf({2026, 1, 1}) - 3600);
  // 23:30 UTC on 31 March is already 1 April in Zurich.
  EXPECT_EQ(local.DateAt(utc.MidnightOf({2026, 4, 1}) - 1800), (CivilDate{2026, 4, 1}));
  EXPECT_EQ(local.DateAt(local.MidnightOf({2026, 4, 1}) - 1), (CivilDate{2026, 3, 31}));
}

TEST(TimeZone, InstantOfReadsTheClocksOnTheDaysSummerTimeBeginsAndEnds) {
  const ScopedTz tz("CET-1CEST,M3.5.0,M10.5.0/3");
  const TimeZone local = TimeZone::Local();
  const TimeZone utc = TimeZone::Utc();
  constexpr int kNoon = 12 * 3600;
  // 29 March 2026: midnight is winter time (UTC+1), noon summer time (UTC+2), so noon is 11
  // hours after midnight, not 12.
  EXPECT_EQ(local.InstantOf({2026, 3, 29}, kNoon), utc.MidnightOf({2026, 3, 29}) + kNoon - 7200);
  EXPECT_EQ(local.InstantOf({2026, 3, 29}, kNoon) - local.MidnightOf({2026, 3, 29}), 11 * 3600);
  // 25 October 2026: midnight is summer time, noon winter time: 13 hours after midnight.
  EXPECT_EQ(local.InstantOf({2026, 10, 25}, kNoon), utc.MidnightOf({2026, 10, 25}) + kNoon - 3600);
  EXPECT_EQ(local.InstantOf({2026, 10, 25}, kNoon) - local.MidnightOf({2026, 10, 25}), 13 * 3600);
  // Any other day, and midnight itself: MidnightOf plus the seconds.
  EXPECT_EQ(local.InstantOf({2026, 4, 1}, 3723), local.MidnightOf({2026, 4, 1}) + 3723);
  EXPECT_EQ(local.InstantOf({2026, 10, 25}, 0), local.MidnightOf({2026, 10, 25}));
  EXPECT_EQ(utc.InstantOf({2026, 10, 25}, kNoon), utc.MidnightOf({2026, 10, 25}) + kNoon);
}

// Local() remembers what mktime and localtime_r answered (glibc's mktime
// checks the zone file at every call): the same answers, from every copy; a
// zone made after TZ changed sees the new rules.
TEST(TimeZone, LocalRemembersTheAnswersOfTheCLibrary) {
  std::optional<TimeZone> before;
  {
    const ScopedTz tz("CET-1CEST,M3.5.0,M10.5.0/3");
    const TimeZone local = TimeZone::Local();
    const TimeZone copy = local;  // NOLINT(performance-unnecessary-copy-initialization)
    for (int round = 0; round < 2; ++round) {
      for (int month = 1; month <= 12; ++month) {
        std::tm tm{};
        tm.tm_year = 2026 - 1900;
        tm.tm_mon = month - 1;
        tm.tm_mday = 1;
        tm.tm_isdst = -1;
        const auto want = static_cast<UnixTime>(std::mktime(&tm));
        const TimeZone& zone = round == 0 ? local : copy;
        ASSERT_EQ(zone.MidnightOf({2026, month, 1}), want) << month;
        for (const UnixTime t : {want - 1, want, want + 86'399, want + 86'400}) {
          const auto tt = static_cast<std::time_t>(t);
          std::tm at{};
          localtime_r(&tt, &at);
          ASSERT_EQ(zone.DateAt(t), (CivilDate{at.tm_year + 1900, at.tm_mon + 1, at.tm_mday})) << t;
        }
      }
    }
    // 30 February is mktime's 2 March.
    EXPECT_EQ(local.MidnightOf({2026, 2, 30}), local.MidnightOf({2026, 3, 2}));
    before = local;
  }
  const ScopedTz utc_tz("UTC0");
  EXPECT_EQ(TimeZone::Local().MidnightOf({2026, 7, 1}), TimeZone::Utc().MidnightOf({2026, 7, 1}));
  EXPECT_EQ(before->MidnightOf({2026, 7, 1}),
            TimeZone::Utc().MidnightOf({2026, 7, 1}) - 2 * 3600);  // CEST, as first answered
}

}  // namespace
}  // namespace budget
