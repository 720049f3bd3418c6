// Tests of grace, minimal and the monthly schedule (schedule.hpp).
#include "budget/schedule.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace budget {
namespace {

TEST(GraceFor, IsHalfUpToTenThousandGpuHours) {
  for (const GpuSeconds credit : {GpuSeconds{1}, GpuHours(1), GpuHours(6'000), GpuHours(10'000)}) {
    const Grace g = GraceFor(credit);
    EXPECT_EQ(g.numerator, 1) << credit;
    EXPECT_EQ(g.denominator, 2) << credit;
  }
}

TEST(GraceFor, IsFifteenPercentFromOneHundredThousandGpuHours) {
  for (const GpuSeconds credit : {GpuHours(100'000), GpuHours(250'000), GpuHours(100'000'000),
                                  std::numeric_limits<GpuSeconds>::max()}) {
    const Grace g = GraceFor(credit);
    EXPECT_EQ(g.numerator, 3) << credit;
    EXPECT_EQ(g.denominator, 20) << credit;
  }
}

TEST(GraceFor, IsExactAndReducedInBetween) {
  // 30,000 GPUh: 50 - 35 * 20,000 / 90,000 = 42.2... % = 38/90 = 19/45.
  const Grace g = GraceFor(GpuHours(30'000));
  EXPECT_EQ(g.numerator, 19);
  EXPECT_EQ(g.denominator, 45);
  // One GPU-second above 10,000 GPUh is already below 50%.
  const Grace just_above = GraceFor(GpuHours(10'000) + 1);
  EXPECT_LT(just_above.numerator * 2, just_above.denominator);
  // One GPU-second below 100,000 GPUh is still above 15%.
  const Grace just_below = GraceFor(GpuHours(100'000) - 1);
  EXPECT_GT(just_below.numerator * 20, just_below.denominator * 3);
}

TEST(GraceFor, NeverRisesWithCredit) {
  Grace previous = GraceFor(GpuHours(9'000));
  for (GpuSeconds credit = GpuHours(9'000); credit <= GpuHours(101'000); credit += 7'777'777) {
    const Grace g = GraceFor(credit);
    // g <= previous, compared exactly by cross-multiplying.
    EXPECT_LE(static_cast<__int128>(g.numerator) * previous.denominator,
              static_cast<__int128>(previous.numerator) * g.denominator)
        << credit;
    previous = g;
  }
}

TEST(GracePercent, ShowsThePublishedPercentages) {
  EXPECT_DOUBLE_EQ(GraceFor(GpuHours(6'000)).Percent(), 50.0);
  EXPECT_NEAR(GraceFor(GpuHours(30'000)).Percent(), 42.2222222, 1e-6);
  EXPECT_DOUBLE_EQ(GraceFor(GpuHours(55'000)).Percent(), 32.5);
  EXPECT_DOUBLE_EQ(GraceFor(GpuHours(250'000)).Percent(), 15.0);
}

TEST(MinimalOf, IsTheShareNotCoveredByGrace) {
  EXPECT_EQ(MinimalOf(GpuHours(1'000), Grace{1, 2}), GpuHours(500));
  EXPECT_EQ(MinimalOf(GpuHours(1'000), Grace{3, 20}), GpuHours(850));
  EXPECT_EQ(MinimalOf(GpuHours(900), Grace{19, 45}), GpuHours(520));
}

TEST(MinimalOf, IsZeroWhenAheadOfTheLine) {
  EXPECT_EQ(MinimalOf(0, Grace{1, 2}), 0);
  EXPECT_EQ(MinimalOf(-GpuHours(500), Grace{1, 2}), 0);
}

TEST(MinimalOf, RoundsToNearestWithHalvesDown) {
  EXPECT_EQ(MinimalOf(3, Grace{1, 2}), 1);    // 1.5 -> 1
  EXPECT_EQ(MinimalOf(5, Grace{1, 2}), 2);    // 2.5 -> 2
  EXPECT_EQ(MinimalOf(1, Grace{2, 3}), 0);    // 0.33 -> 0
  EXPECT_EQ(MinimalOf(2, Grace{2, 3}), 1);    // 0.67 -> 1
  EXPECT_EQ(MinimalOf(10, Grace{3, 20}), 8);  // 8.5 -> 8
  EXPECT_EQ(MinimalOf(11, Grace{3, 20}), 9);  // 9.35 -> 9
}

TEST(MinimalOf, DoesNotOverflowForHugeExpectations) {
  constexpr GpuSeconds kMax = std::numeric_limits<GpuSeconds>::max();
  EXPECT_EQ(MinimalOf(kMax, Grace{0, 1}), kMax);
  EXPECT_EQ(MinimalOf(kMax, Grace{1, 2}), kMax / 2);  // 4611686018427387903.5 -> down
  const Grace g = GraceFor(GpuHours(30'000));
  // 9,223,372,036,854,775,807 * 26 / 45 = 5,329,059,399,071,648,244 + 2/45 -> down.
  EXPECT_EQ(MinimalOf(kMax, g), 5'329'059'399'071'648'244);
}

// MinimalOf divides in 64 bits while expected * (1 - grace)'s numerator fits
// and in 128 beyond: both sides of that boundary against exact arithmetic.
TEST(MinimalOf, AgreesWithExactArithmeticOnBothSidesOfTheInt64Boundary) {
  constexpr GpuSeconds kMax = std::numeric_limits<GpuSeconds>::max();
  for (const Grace grace : {Grace{1, 2}, Grace{3, 20}, Grace{19, 45}, GraceFor(GpuHours(30'000)),
                            GraceFor(GpuHours(99'999))}) {
    const std::int64_t kept = grace.denominator - grace.numerator;
    const GpuSeconds boundary = kMax / kept;  // boundary * kept fits, boundary + 1 does not
    for (int offset = -3; offset <= 3; ++offset) {
      if (offset > 0 && boundary > kMax - offset) {
        break;  // a grace of 1/2 keeps 1 of 2: its boundary is kMax itself
      }
      const GpuSeconds expected = boundary + offset;
      const __int128 product = static_cast<__int128>(expected) * kept;
      const __int128 quotient = product / grace.denominator;
      const bool up = product % grace.denominator * 2 > grace.denominator;
      EXPECT_EQ(MinimalOf(expected, grace), static_cast<GpuSeconds>(up ? quotient + 1 : quotient))
          << grace.numerator << "/" << grace.denominator << " of " << expected;
    }
  }
}

TEST(Schedule, StartsWithNothingAccounted) {
  const Schedule s(GpuHours(6'000), 6);
  EXPECT_EQ(s.credit(), GpuHours(6'000));
  EXPECT_EQ(s.months(), 6);
  EXPECT_EQ(s.closed_months(), 0);
  EXPECT_FALSE(s.over());
  EXPECT_EQ(s.accounted(), 0);
  EXPECT_EQ(s.remaining(), GpuHours(6'000));
  EXPECT_EQ(s.grace().numerator, 1);
  EXPECT_EQ(s.grace().denominator, 2);
  const MonthRow open = s.Open();
  EXPECT_EQ(open.month, 1);
  EXPECT_FALSE(open.closed);
  EXPECT_EQ(open.ideal, GpuHours(1'000));
  EXPECT_EQ(open.expected, GpuHours(1'000));
  EXPECT_TRUE(open.has_minimal);
  EXPECT_EQ(open.minimal, GpuHours(500));
  EXPECT_EQ(open.remaining, GpuHours(6'000));
}

TEST(Schedule, ClosingRecordsTheMonthAndOpensTheNext) {
  Schedule s(GpuHours(6'000), 6);
  ASSERT_TRUE(s.Close(1, GpuHours(750)).ok());
  ASSERT_EQ(s.closed().size(), 1U);
  const MonthRow& m1 = s.closed()[0];
  EXPECT_TRUE(m1.closed);
  EXPECT_EQ(m1.used, GpuHours(750));
  EXPECT_EQ(m1.lost, 0);
  EXPECT_EQ(m1.graced, GpuHours(250));
  EXPECT_EQ(m1.remaining, GpuHours(5'250));
  EXPECT_EQ(s.accounted(), GpuHours(750));
  EXPECT_EQ(s.Open().month, 2);
  EXPECT_EQ(s.Open().expected, GpuHours(1'250));
}

TEST(Schedule, UsageBelowMinimalIsAccountedAsMinimal) {
  Schedule s(GpuHours(6'000), 6);
  ASSERT_TRUE(s.Close(1, 0).ok());
  const MonthRow& m1 = s.closed()[0];
  EXPECT_EQ(m1.lost, GpuHours(500));
  EXPECT_EQ(m1.graced, GpuHours(500));
  EXPECT_EQ(s.accounted(), GpuHours(500));
  EXPECT_EQ(s.Open().expected, GpuHours(1'500));
}

TEST(Schedule, UsageAboveExpectedGracesNothing) {
  Schedule s(GpuHours(6'000), 6);
  ASSERT_TRUE(s.Close(1, GpuHours(4'000)).ok());
  EXPECT_EQ(s.closed()[0].graced, 0);
  EXPECT_EQ(s.closed()[0].lost, 0);
  EXPECT_EQ(s.Open().expected, -GpuHours(2'000));
  EXPECT_FALSE(s.Open().has_minimal);
  EXPECT_EQ(s.Open().minimal, 0);
}

TEST(Schedule, UsageBeyondTheCreditMakesRemainingNegative) {
  Schedule s(GpuHours(6'000), 6);
  ASSERT_TRUE(s.Close(1, GpuHours(7'000)).ok());
  EXPECT_EQ(s.remaining(), -GpuHours(1'000));
  EXPECT_EQ(s.credit(), s.accounted() + s.remaining());
}

TEST(Schedule, ClosingAClosedMonthAgainChangesNothing) {
  Schedule s(GpuHours(6'000), 6);
  ASSERT_TRUE(s.Close(1, GpuHours(750)).ok());
  ASSERT_TRUE(s.Close(2, GpuHours(1'250)).ok());
  EXPECT_TRUE(s.Close(1, GpuHours(9'999)).ok());
  EXPECT_TRUE(s.Close(2, GpuHours(1'250)).ok());
  EXPECT_EQ(s.closed_months(), 2);
  EXPECT_EQ(s.accounted(), GpuHours(2'000));
  EXPECT_EQ(s.closed()[0].used, GpuHours(750));
}

TEST(Schedule, MonthsCloseInOrder) {
  Schedule s(GpuHours(6'000), 6);
  const Status skipped = s.Close(2, GpuHours(100));
  ASSERT_FALSE(skipped.ok());
  EXPECT_EQ(skipped.error(), "month 2 cannot close before month 1");
  EXPECT_EQ(s.closed_months(), 0);
  EXPECT_EQ(s.accounted(), 0);
}

TEST(Schedule, RefusesMonthsOutsideTheProject) {
  Schedule s(GpuHours(6'000), 6);
  for (int m = 1; m <= 6; ++m) {
    ASSERT_TRUE(s.Close(m, GpuHours(1'000)).ok()) << m;
  }
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.remaining(), 0);
  const Status past = s.Close(7, 0);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error(), "month 7 is outside the project's months 1..6");
  EXPECT_FALSE(s.Close(0, 0).ok());
  EXPECT_FALSE(s.Close(-1, 0).ok());
}

TEST(Schedule, RefusesNegativeUsage) {
  Schedule s(GpuHours(6'000), 6);
  const Status st = s.Close(1, -1);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error(), "month 1: usage must not be negative, got -1 GPU-seconds");
  EXPECT_EQ(s.closed_months(), 0);
}

TEST(Schedule, RefusesUsageThatWouldOverflowAccounted) {
  Schedule s(GpuHours(6'000), 6);
  constexpr GpuSeconds kMax = std::numeric_limits<GpuSeconds>::max();
  ASSERT_TRUE(s.Close(1, kMax - GpuHours(1'000)).ok());
  EXPECT_FALSE(s.Close(2, GpuHours(1'000) + 1).ok());
  EXPECT_EQ(s.closed_months(), 1);
  EXPECT_EQ(s.credit(), s.accounted() + s.remaining());
}

TEST(Schedule, IdealReachesTheCreditExactlyWhenMonthsDoNotDivideIt) {
  // 7 GPU-seconds over 6 months: ideal 1, 2, 3, 4, 5, 7.
  Schedule s(7, 6);
  const GpuSeconds ideals[] = {1, 2, 3, 4, 5, 7};
  for (int m = 1; m <= 6; ++m) {
    EXPECT_EQ(s.Open().ideal, ideals[m - 1]) << m;
    ASSERT_TRUE(s.Close(m, s.Open().expected).ok());
  }
  EXPECT_EQ(s.remaining(), 0);
}

TEST(Schedule, HugeCreditsDoNotOverflowTheIdealLine) {
  constexpr GpuSeconds kMax = std::numeric_limits<GpuSeconds>::max();
  const Schedule s(kMax, 12);
  EXPECT_EQ(s.Open().ideal, kMax / 12);
  EXPECT_EQ(s.Open().expected, kMax / 12);
}

// The ideal line C * m / D divides in 64 bits while C * m fits and in 128
// beyond: credits around the boundary for every month of twelve.
TEST(SchedulePosition, IdealLineIsExactOnBothSidesOfTheInt64Boundary) {
  constexpr GpuSeconds kMax = std::numeric_limits<GpuSeconds>::max();
  for (int boundary_month = 2; boundary_month <= 12; ++boundary_month) {
    for (GpuSeconds credit = kMax / boundary_month - 2; credit <= kMax / boundary_month + 2;
         ++credit) {
      SchedulePosition position(credit, 12);
      for (int m = 1; m <= 12; ++m) {
        const MonthRow open = position.Open();
        ASSERT_EQ(open.ideal, static_cast<GpuSeconds>(static_cast<__int128>(credit) * m / 12))
            << credit << " in month " << m;
        ASSERT_TRUE(position.CloseNext(open.expected).ok());  // on the line: accounted = ideal
      }
      EXPECT_EQ(position.accounted(), credit);
    }
  }
}

TEST(SchedulePosition, ClosesTheOpenMonthAndReturnsItsRow) {
  SchedulePosition position(GpuHours(6'000), 6);
  const Result<MonthRow> first = position.CloseNext(GpuHours(200));  // minimal 500 GPUh
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value().month, 1);
  EXPECT_TRUE(first.value().closed);
  EXPECT_EQ(first.value().lost, GpuHours(300));
  EXPECT_EQ(first.value().graced, GpuHours(500));
  EXPECT_EQ(position.closed_months(), 1);
  EXPECT_EQ(position.accounted(), GpuHours(500));
  EXPECT_EQ(position.Open().month, 2);
  EXPECT_EQ(position.Open().expected, GpuHours(1'500));
}

// A position taken up from where a replay ended (what UsageSummary keeps)
// goes on as the replayed one does.
TEST(SchedulePosition, TakenUpWhereAReplayEndedGoesOnAsIt) {
  SchedulePosition replayed(GpuHours(6'000), 6);
  for (const GpuSeconds used : {GpuHours(200), GpuHours(2'000), GpuHours(0)}) {
    ASSERT_TRUE(replayed.CloseNext(used).ok());
  }
  SchedulePosition taken_up(GpuHours(6'000), 6, 3, replayed.accounted());
  EXPECT_EQ(taken_up.grace().numerator, replayed.grace().numerator);
  EXPECT_EQ(taken_up.grace().denominator, replayed.grace().denominator);
  EXPECT_EQ(taken_up.remaining(), replayed.remaining());
  EXPECT_EQ(taken_up.Open().expected, replayed.Open().expected);
  EXPECT_EQ(taken_up.Open().minimal, replayed.Open().minimal);
  const Result<MonthRow> next = taken_up.CloseNext(GpuHours(100));
  const Result<MonthRow> want = replayed.CloseNext(GpuHours(100));
  ASSERT_TRUE(next.ok() && want.ok());
  EXPECT_EQ(next.value().month, 4);
  EXPECT_EQ(next.value().lost, want.value().lost);
  EXPECT_EQ(next.value().graced, want.value().graced);
  EXPECT_EQ(next.value().remaining, want.value().remaining);
}

TEST(SchedulePosition, RefusesNegativeUsageAndOverflowWithoutMoving) {
  constexpr GpuSeconds kMax = std::numeric_limits<GpuSeconds>::max();
  SchedulePosition position(GpuHours(6'000), 6);
  ASSERT_TRUE(position.CloseNext(kMax - GpuHours(1'000)).ok());

  const Result<MonthRow> negative = position.CloseNext(-1);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error(), "month 2: usage must not be negative, got -1 GPU-seconds");
  const Result<MonthRow> overflow = position.CloseNext(GpuHours(1'000) + 1);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error(), "month 2: usage 3600001 GPU-seconds is too large to account");

  EXPECT_EQ(position.closed_months(), 1);
  EXPECT_EQ(position.accounted(), kMax - GpuHours(1'000));
  EXPECT_EQ(position.credit(), position.accounted() + position.remaining());
}

}  // namespace
}  // namespace budget
