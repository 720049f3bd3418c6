// Tests of project calendars: start rules, months, end and storage (calendar.hpp).
#include "budget/calendar.hpp"

#include <gtest/gtest.h>

#include <string>

namespace budget {
namespace {

constexpr CivilDate kMarch15{2026, 3, 15};

TEST(ProjectCalendarSmall, StartsOnTheFirstOfTheNextMonthByDefault) {
  const auto cal = ProjectCalendar::Small(kMarch15, std::nullopt);
  ASSERT_TRUE(cal.ok()) << cal.error();
  EXPECT_EQ(cal.value().kind(), ProjectKind::kSmall);
  EXPECT_EQ(cal.value().months(), 6);
  EXPECT_EQ(cal.value().created(), kMarch15);
  EXPECT_EQ(cal.value().start(), (CivilDate{2026, 4, 1}));
  EXPECT_EQ(cal.value().end(), (CivilDate{2026, 10, 1}));
  EXPECT_EQ(cal.value().last_day(), (CivilDate{2026, 9, 30}));
}

TEST(ProjectCalendarSmall, CreatedOnAFirstStillStartsNextMonth) {
  const auto cal = ProjectCalendar::Small({2026, 3, 1}, std::nullopt);
  ASSERT_TRUE(cal.ok());
  EXPECT_EQ(cal.value().start(), (CivilDate{2026, 4, 1}));
}

TEST(ProjectCalendarSmall, CreatedInDecemberStartsInJanuary) {
  const auto cal = ProjectCalendar::Small({2026, 12, 31}, std::nullopt);
  ASSERT_TRUE(cal.ok());
  EXPECT_EQ(cal.value().start(), (CivilDate{2027, 1, 1}));
  EXPECT_EQ(cal.value().last_day(), (CivilDate{2027, 6, 30}));
}

TEST(ProjectCalendarSmall, AcceptsPostponementUpToThreeMonths) {
  for (const CivilDate start :
       {CivilDate{2026, 4, 1}, CivilDate{2026, 5, 1}, CivilDate{2026, 6, 1}}) {
    const auto cal = ProjectCalendar::Small(kMarch15, start);
    ASSERT_TRUE(cal.ok()) << FormatCivilDate(start) << ": " << cal.error();
    EXPECT_EQ(cal.value().start(), start);
    EXPECT_EQ(cal.value().created(), kMarch15);
  }
}

TEST(ProjectCalendarSmall, RefusesPostponementPastThreeMonths) {
  const auto cal = ProjectCalendar::Small(kMarch15, CivilDate{2026, 7, 1});
  ASSERT_FALSE(cal.ok());
  EXPECT_EQ(cal.error(),
            "start 2026-07-01 is after 2026-06-01: a small project may be postponed at most 3 "
            "months after created 2026-03-15");
}

TEST(ProjectCalendarSmall, RefusesStartBeforeTheDefault) {
  for (const CivilDate start : {CivilDate{2026, 3, 1}, CivilDate{2026, 2, 1}}) {
    const auto cal = ProjectCalendar::Small(kMarch15, start);
    ASSERT_FALSE(cal.ok()) << FormatCivilDate(start);
    EXPECT_NE(cal.error().find("is before 2026-04-01"), std::string::npos) << cal.error();
  }
}

TEST(ProjectCalendarSmall, RefusesStartNotOnAFirst) {
  const auto cal = ProjectCalendar::Small(kMarch15, CivilDate{2026, 4, 15});
  ASSERT_FALSE(cal.ok());
  EXPECT_EQ(cal.error(), "start 2026-04-15 must be the 1st of a month");
}

TEST(ProjectCalendarSmall, RefusesDatesThatDoNotExist) {
  EXPECT_FALSE(ProjectCalendar::Small({2026, 2, 30}, std::nullopt).ok());
  EXPECT_FALSE(ProjectCalendar::Small(kMarch15, CivilDate{2026, 13, 1}).ok());
}

TEST(ProjectCalendarLarge, StartsOnFirstJanuaryOrFirstJuly) {
  for (const CivilDate start : {CivilDate{2026, 1, 1}, CivilDate{2026, 7, 1}}) {
    const auto cal = ProjectCalendar::Large(start, std::nullopt);
    ASSERT_TRUE(cal.ok()) << cal.error();
    EXPECT_EQ(cal.value().kind(), ProjectKind::kLarge);
    EXPECT_EQ(cal.value().months(), 12);
    EXPECT_EQ(cal.value().start(), start);
    EXPECT_EQ(cal.value().created(), start);
    EXPECT_EQ(cal.value().end(), (CivilDate{start.year + 1, start.month, 1}));
  }
}

TEST(ProjectCalendarLarge, RefusesOtherStarts) {
  for (const CivilDate start :
       {CivilDate{2026, 4, 1}, CivilDate{2026, 1, 2}, CivilDate{2026, 7, 15}}) {
    const auto cal = ProjectCalendar::Large(start, std::nullopt);
    ASSERT_FALSE(cal.ok()) << FormatCivilDate(start);
    EXPECT_NE(cal.error().find("must be 1 January or 1 July"), std::string::npos);
  }
}

TEST(ProjectCalendarLarge, KeepsACreatedDateNotAfterStart) {
  const auto cal = ProjectCalendar::Large({2026, 7, 1}, CivilDate{2026, 5, 20});
  ASSERT_TRUE(cal.ok());
  EXPECT_EQ(cal.value().created(), (CivilDate{2026, 5, 20}));
  EXPECT_EQ(cal.value().MonthAt({2026, 6, 1}), 0);
  const auto late = ProjectCalendar::Large({2026, 7, 1}, CivilDate{2026, 7, 2});
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error(),
            "created 2026-07-02 is after start 2026-07-01: a large project has no preparatory "
            "period");
}

TEST(ProjectCalendar, StorageStaysNinetyDaysAfterTheEnd) {
  const auto cal = ProjectCalendar::Small(kMarch15, std::nullopt);
  ASSERT_TRUE(cal.ok());
  EXPECT_EQ(cal.value().storage_until(), (CivilDate{2026, 12, 30}));
}

TEST(ProjectCalendar, MonthStartsAreFirstsOfConsecutiveMonths) {
  const auto cal = ProjectCalendar::Large({2026, 7, 1}, std::nullopt);
  ASSERT_TRUE(cal.ok());
  EXPECT_EQ(cal.value().MonthStart(1), (CivilDate{2026, 7, 1}));
  EXPECT_EQ(cal.value().MonthStart(6), (CivilDate{2026, 12, 1}));
  EXPECT_EQ(cal.value().MonthStart(7), (CivilDate{2027, 1, 1}));
  EXPECT_EQ(cal.value().MonthStart(13), cal.value().end());
}

TEST(ProjectCalendar, MonthAtNumbersPreparatoryProjectAndEndedMonths) {
  const auto result = ProjectCalendar::Small(kMarch15, std::nullopt);
  ASSERT_TRUE(result.ok());
  const ProjectCalendar& cal = result.value();
  EXPECT_EQ(cal.MonthAt({2026, 3, 15}), 0);
  EXPECT_EQ(cal.MonthAt({2026, 3, 31}), 0);
  EXPECT_EQ(cal.MonthAt({2025, 12, 31}), 0);
  EXPECT_EQ(cal.MonthAt({2026, 4, 1}), 1);
  EXPECT_EQ(cal.MonthAt({2026, 4, 30}), 1);
  EXPECT_EQ(cal.MonthAt({2026, 5, 1}), 2);
  EXPECT_EQ(cal.MonthAt({2026, 9, 30}), 6);
  EXPECT_EQ(cal.MonthAt({2026, 10, 1}), 7);
  EXPECT_EQ(cal.MonthAt({2030, 1, 1}), 7);
}

TEST(ProjectCalendar, MonthAtAgreesWithMonthStartAcrossYears) {
  const auto result = ProjectCalendar::Large({2026, 7, 1}, std::nullopt);
  ASSERT_TRUE(result.ok());
  const ProjectCalendar& cal = result.value();
  for (int m = 1; m <= cal.months(); ++m) {
    EXPECT_EQ(cal.MonthAt(cal.MonthStart(m)), m);
    EXPECT_EQ(cal.MonthAt(AddDays(cal.MonthStart(m + 1), -1)), m);
  }
}

TEST(ProjectState, HasLowerCaseNames) {
  EXPECT_STREQ(ToString(ProjectState::kPreparatory), "preparatory");
  EXPECT_STREQ(ToString(ProjectState::kActive), "active");
  EXPECT_STREQ(ToString(ProjectState::kLow), "low");
  EXPECT_STREQ(ToString(ProjectState::kBlocked), "blocked");
  EXPECT_STREQ(ToString(ProjectState::kEnded), "ended");
}

}  // namespace
}  // namespace budget
