// Tests of CHF prices and the split of usage at project month boundaries (billing.hpp).
#include "budget/billing.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <limits>
#include <string>

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
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  setenv("TZ", "XXX-1", 1);
  tzset();
  const TimeZone local = TimeZone::Local();
  const auto slices = SplitByProjectMonth(cal_, local, At(2026, 4, 30, 22), At(2026, 5, 1, 1));
  if (old) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  ASSERT_EQ(slices.size(), 2U);
  EXPECT_EQ(slices[0].month, 1);
  EXPECT_EQ(slices[0].to, At(2026, 4, 30, 23));
  EXPECT_EQ(slices[1].month, 2);
}

}  // namespace
}  // namespace budget
