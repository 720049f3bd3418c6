// Tests of CHF prices and the split of usage at project month boundaries (billing.hpp).
#include "budget/billing.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "scoped_tz.hpp"

namespace budget {
namespace {

constexpr Centimes k2026Price = 269;  // 2.69 CHF per node-hour

TEST(ChfOf, PricesNodeHoursAtTheGh200Rate) {
  // policy.md §2: 12 node-hours = 48 GPUh = 32.28 CHF at 2.69 CHF.
  EXPECT_EQ(ChfOf(GpuHours(48), k2026Price), 3'228);
  EXPECT_EQ(ChfOf(GpuHours(48), k2026Price, kGh200MilliRate), 3'228);
  EXPECT_EQ(ChfOf(GpuHours(4), k2026Price), 269);
  EXPECT_EQ(ChfOf(0, k2026Price), 0);
}

TEST(ChfOf, PricesOtherRates) {
  // 1 GPUh per node-hour: 48 GPUh = 48 node-hours.
  EXPECT_EQ(ChfOf(GpuHours(48), 100, 1'000), 4'800);
  // 0.25 GPUh per node-hour: 1 GPUh = 4 node-hours.
  EXPECT_EQ(ChfOf(GpuHours(1), 100, 250), 400);
}

TEST(ChfOf, RoundsToTheNearestCentime) {
  // 1 GPUh = 0.25 node-hour = 67.25 centimes -> 67; 3 GPUh = 201.75 -> 202.
  EXPECT_EQ(ChfOf(GpuHours(1), k2026Price), 67);
  EXPECT_EQ(ChfOf(GpuHours(3), k2026Price), 202);
  // 2 GPUh = 134.5 centimes: a half rounds away from zero.
  EXPECT_EQ(ChfOf(GpuHours(2), k2026Price), 135);
  EXPECT_EQ(ChfOf(-GpuHours(2), k2026Price), -135);
}

TEST(ChfOf, LargeCreditsDoNotOverflow) {
  // 1,000,000,000 GPUh at 2.69 CHF per node-hour = 672,500,000 CHF.
  EXPECT_EQ(ChfOf(GpuHours(1'000'000'000), k2026Price), 67'250'000'000);
}

TEST(ChfOf, ANonPositiveRateBillsNothing) {
  EXPECT_EQ(ChfOf(GpuHours(48), k2026Price, 0), 0);
  EXPECT_EQ(ChfOf(GpuHours(48), k2026Price, -4'000), 0);
}

TEST(FormatChf, WritesFrancsWithTwoDecimals) {
  EXPECT_EQ(FormatChf(3'228), "32.28");
  EXPECT_EQ(FormatChf(269), "2.69");
  EXPECT_EQ(FormatChf(5), "0.05");
  EXPECT_EQ(FormatChf(0), "0.00");
  EXPECT_EQ(FormatChf(100), "1.00");
  EXPECT_EQ(FormatChf(-150), "-1.50");
  EXPECT_EQ(FormatChf(123'456), "1,234.56");
  EXPECT_EQ(FormatChf(67'250'000'000), "672,500,000.00");
  EXPECT_EQ(FormatChf(std::numeric_limits<Centimes>::min()), "-92,233,720,368,547,758.08");
}

class SplitByProjectMonthTest : public ::testing::Test {
 protected:
  // Created 15 March 2026: months 1..6 are April..September.
  ProjectCalendar cal_ = ProjectCalendar::Small({2026, 3, 15}, std::nullopt).value();
  TimeZone utc_ = TimeZone::Utc();
  UnixTime At(int year, int month, int day, int hour = 0) const {
    return utc_.MidnightOf({year, month, day}) + hour * 3600;
  }
};

TEST_F(SplitByProjectMonthTest, KeepsAnIntervalInsideOneMonthWhole) {
  const auto slices = SplitByProjectMonth(cal_, utc_, At(2026, 5, 3), At(2026, 5, 4));
  ASSERT_EQ(slices.size(), 1U);
  EXPECT_EQ(slices[0].month, 2);
  EXPECT_EQ(slices[0].from, At(2026, 5, 3));
  EXPECT_EQ(slices[0].to, At(2026, 5, 4));
}

TEST_F(SplitByProjectMonthTest, SplitsAJobRunningAcrossMidnightOfTheFirst) {
  const auto slices = SplitByProjectMonth(cal_, utc_, At(2026, 4, 30, 22), At(2026, 5, 1, 1));
  ASSERT_EQ(slices.size(), 2U);
  EXPECT_EQ(slices[0].month, 1);
  EXPECT_EQ(slices[0].from, At(2026, 4, 30, 22));
  EXPECT_EQ(slices[0].to, At(2026, 5, 1));
  EXPECT_EQ(slices[1].month, 2);
  EXPECT_EQ(slices[1].from, At(2026, 5, 1));
  EXPECT_EQ(slices[1].to, At(2026, 5, 1, 1));
}

TEST_F(SplitByProjectMonthTest, SeparatesThePreparatoryPeriod) {
  const auto slices = SplitByProjectMonth(cal_, utc_, At(2026, 3, 31, 20), At(2026, 4, 1, 4));
  ASSERT_EQ(slices.size(), 2U);
  EXPECT_EQ(slices[0].month, 0);
  EXPECT_EQ(slices[0].to - slices[0].from, 4 * 3600);
  EXPECT_EQ(slices[1].month, 1);
  EXPECT_EQ(slices[1].to - slices[1].from, 4 * 3600);
}

TEST_F(SplitByProjectMonthTest, CoversTheWholeLifeInOrder) {
  const UnixTime from = At(2026, 1, 1);
  const UnixTime to = At(2027, 1, 1);
  const auto slices = SplitByProjectMonth(cal_, utc_, from, to);
  ASSERT_EQ(slices.size(), 8U);  // preparatory, 6 months, after the end
  UnixTime cursor = from;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    EXPECT_EQ(slices[i].month, static_cast<int>(i));
    EXPECT_EQ(slices[i].from, cursor);
    EXPECT_LT(slices[i].from, slices[i].to);
    cursor = slices[i].to;
  }
  EXPECT_EQ(cursor, to);
  EXPECT_EQ(slices[1].from, At(2026, 4, 1));
  EXPECT_EQ(slices[6].to, At(2026, 10, 1));
  EXPECT_EQ(slices[7].month, 7);
}

TEST_F(SplitByProjectMonthTest, EverythingAfterTheEndIsOneSlice) {
  const auto slices = SplitByProjectMonth(cal_, utc_, At(2026, 10, 1), At(2027, 6, 1));
  ASSERT_EQ(slices.size(), 1U);
  EXPECT_EQ(slices[0].month, 7);
}

TEST_F(SplitByProjectMonthTest, AnIntervalStartingOnABoundaryBelongsToTheNewMonth) {
  const auto slices = SplitByProjectMonth(cal_, utc_, At(2026, 4, 1), At(2026, 5, 1));
  ASSERT_EQ(slices.size(), 1U);
  EXPECT_EQ(slices[0].month, 1);
}

TEST_F(SplitByProjectMonthTest, IsEmptyForEmptyOrReversedIntervals) {
  EXPECT_TRUE(SplitByProjectMonth(cal_, utc_, At(2026, 5, 1), At(2026, 5, 1)).empty());
  EXPECT_TRUE(SplitByProjectMonth(cal_, utc_, At(2026, 5, 2), At(2026, 5, 1)).empty());
}

TEST_F(SplitByProjectMonthTest, UsesMidnightInTheGivenZone) {
  // A zone one hour ahead of UTC all year (no DST rule): month 2 starts at
  // 23:00 UTC on 30 April. Set through TZ only for this test.
  std::vector<MonthSlice> slices;
  {
    const ScopedTz tz("XXX-1");
    slices = SplitByProjectMonth(cal_, TimeZone::Local(), At(2026, 4, 30, 22), At(2026, 5, 1, 1));
  }
  ASSERT_EQ(slices.size(), 2U);
  EXPECT_EQ(slices[0].month, 1);
  EXPECT_EQ(slices[0].to, At(2026, 4, 30, 23));
  EXPECT_EQ(slices[1].month, 2);
}

// The split by its definition: boundary m is midnight of MonthStart(m) in the
// zone, found by walking up from the first.
std::vector<MonthSlice> SplitByWalkingTheBoundaries(const ProjectCalendar& calendar,
                                                    const TimeZone& zone, UnixTime from,
                                                    UnixTime to) {
  std::vector<MonthSlice> slices;
  const int last = calendar.months() + 1;
  int month = 0;
  while (month < last && zone.MidnightOf(calendar.MonthStart(month + 1)) <= from) {
    ++month;
  }
  for (UnixTime cursor = from; cursor < to; ++month) {
    const UnixTime end =
        month < last ? std::min(to, zone.MidnightOf(calendar.MonthStart(month + 1))) : to;
    slices.push_back(MonthSlice{month, cursor, end});
    cursor = end;
  }
  return slices;
}

// SplitByProjectMonth starts from the month of from's local date: in every
// zone, with DST changes at 02:00 or at midnight itself, its slices must be
// those of the boundaries, for intervals starting anywhere around them.
TEST(SplitByProjectMonth, IsTheSplitAtTheBoundariesInEveryZone) {
  const std::vector<ProjectCalendar> calendars = {
      ProjectCalendar::Small({2026, 3, 15}, std::nullopt).value(),
      ProjectCalendar::Large({2026, 1, 1}, std::nullopt).value(),
  };
  int slices_seen = 0;
  for (const char* tz : {"UTC0", "XXX-1", "CET-1CEST,M3.5.0,M10.5.0/3",
                         // DST from midnight of the first Sunday of October
                         // to midnight of the third Sunday of February.
                         "BRT3BRST,M10.1.0/0,M2.3.0/0",
                         // DST ends at midnight on 1 June 2026 (the first
                         // Monday): the hour from 23:00 on 31 May comes twice.
                         "AAA3BBB,M3.2.0,M6.1.1/0",
                         // DST ends at 01:00 on 1 June 2026: its midnight
                         // comes twice.
                         "AAA3BBB,M3.2.0,M6.1.1/1",
                         // DST ends at 00:30 on 1 June 2026, back to 23:30
                         // of 31 May: dates of May after June's midnight.
                         "AAA3BBB,M3.2.0,M6.1.1/0:30",
                         // DST starts at 23:30 on 31 May 2026, on to 00:30:
                         // 1 June has no midnight.
                         "AAA3BBB,M5.5.0/23:30,M10.5.0"}) {
    const ScopedTz tz_set(tz);
    const TimeZone zone = TimeZone::Local();
    std::mt19937_64 random(42);
    for (const ProjectCalendar& calendar : calendars) {
      const UnixTime first = zone.MidnightOf(calendar.MonthStart(1));
      const UnixTime end = zone.MidnightOf(calendar.MonthStart(calendar.months() + 1));
      std::vector<UnixTime> starts;
      for (int m = 1; m <= calendar.months() + 1; ++m) {  // around each boundary
        const UnixTime b = zone.MidnightOf(calendar.MonthStart(m));
        for (const UnixTime d : {-7'200, -3'601, -3'600, -1, 0, 1, 3'599, 3'600, 7'200}) {
          starts.push_back(b + d);
        }
      }
      std::uniform_int_distribution<UnixTime> anywhere(first - 40 * 86'400, end + 40 * 86'400);
      for (int i = 0; i < 300; ++i) {
        starts.push_back(anywhere(random));
      }
      std::uniform_int_distribution<UnixTime> length(1, 70 * 86'400);
      for (const UnixTime from : starts) {
        for (const UnixTime to : {from + 60, from + 7'200, from + length(random)}) {
          const auto got = SplitByProjectMonth(calendar, zone, from, to);
          const auto want = SplitByWalkingTheBoundaries(calendar, zone, from, to);
          ASSERT_EQ(got.size(), want.size()) << tz << " from " << from << " to " << to;
          for (std::size_t k = 0; k < got.size(); ++k) {
            EXPECT_EQ(got[k].month, want[k].month) << tz << " from " << from << " slice " << k;
            EXPECT_EQ(got[k].from, want[k].from) << tz << " from " << from << " slice " << k;
            EXPECT_EQ(got[k].to, want[k].to) << tz << " from " << from << " slice " << k;
          }
          slices_seen += static_cast<int>(got.size());
        }
      }
    }
  }
  EXPECT_GT(slices_seen, 8 * 2 * 300 * 3);  // some intervals span several months
}

}  // namespace
}  // namespace budget
