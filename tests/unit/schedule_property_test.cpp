// Property tests of the schedule's invariants (policy.md §3) on random credits and usage.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "budget/schedule.hpp"

namespace budget {
namespace {

constexpr int kTrials = 3'000;

bool SameRow(const MonthRow& a, const MonthRow& b) {
  return a.month == b.month && a.accounted_before == b.accounted_before && a.ideal == b.ideal &&
         a.expected == b.expected && a.minimal == b.minimal && a.has_minimal == b.has_minimal &&
         a.closed == b.closed && a.used == b.used && a.lost == b.lost && a.graced == b.graced &&
         a.remaining == b.remaining;
}

// Random usage for a month whose open row is `open`: none, a little, around
// the expectation (both sides of the minimal), a lot, or far beyond the credit.
GpuSeconds RandomUsage(std::mt19937_64& rng, const MonthRow& open, GpuSeconds credit) {
  const auto pick = [&rng](GpuSeconds lo, GpuSeconds hi) {
    return std::uniform_int_distribution<GpuSeconds>(lo, hi)(rng);
  };
  const GpuSeconds scale = open.expected > 0 ? open.expected : credit / 6 + 1;
  switch (pick(0, 5)) {
    case 0:
      return 0;
    case 1:
      return pick(0, 3'600);
    case 2:
      return pick(0, open.minimal + 1);
    case 3:
      return pick(scale / 2, scale + scale / 2);
    case 4:
      return pick(0, 3 * credit);
    default:
      return pick(0, 100 * credit);
  }
}

struct Walk {
  GpuSeconds credit;
  int months;
  std::vector<GpuSeconds> usage;
};

Walk RandomWalk(std::mt19937_64& rng, bool whole_hours) {
  const GpuSeconds credit =
      whole_hours ? GpuHours(std::uniform_int_distribution<std::int64_t>(1, 1'000'000)(rng))
                  : std::uniform_int_distribution<GpuSeconds>(1, GpuHours(1'000'000))(rng);
  const int months = std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? 6 : 12;
  return Walk{credit, months, {}};
}

// Checks every invariant of one month close against the open row before it.
void CheckClose(const Schedule& s, const MonthRow& open, GpuSeconds accounted_before) {
  const MonthRow& row = s.closed().back();
  ASSERT_EQ(row.month, open.month);
  ASSERT_TRUE(row.closed);
  // Conservation at every instant.
  ASSERT_EQ(s.credit(), s.accounted() + s.remaining());
  ASSERT_EQ(row.remaining, s.remaining());
  // The line and the expectation are what the open month announced.
  ASSERT_EQ(row.accounted_before, accounted_before);
  ASSERT_EQ(row.expected, row.ideal - row.accounted_before);
  ASSERT_EQ(row.expected, open.expected);
  ASSERT_EQ(row.minimal, open.minimal);
  // Amounts are never negative; accounted never falls.
  ASSERT_GE(row.lost, 0);
  ASSERT_GE(row.graced, 0);
  ASSERT_GE(row.minimal, 0);
  ASSERT_GE(s.accounted(), accounted_before);
  ASSERT_EQ(s.accounted() - accounted_before, std::max(row.used, row.minimal));
  // A minimal exists only below the line, and never exceeds the expectation.
  ASSERT_EQ(row.has_minimal, row.expected > 0);
  if (row.has_minimal) {
    ASSERT_LE(row.minimal, row.expected);
  } else {
    ASSERT_EQ(row.minimal, 0);
  }
  // Ahead of the line nothing can be lost.
  if (row.expected <= 0) {
    ASSERT_EQ(row.lost, 0);
    ASSERT_EQ(row.graced, 0);
  }
  // Lost is exactly the shortfall below the minimal.
  ASSERT_EQ(row.lost, row.used < row.minimal ? row.minimal - row.used : 0);
  // The last month expects everything that remains.
  if (row.month == s.months()) {
    ASSERT_EQ(row.expected, s.credit() - row.accounted_before);
    ASSERT_EQ(row.ideal, s.credit());
  }
}

// Closes every month of `walk`, checking the invariants, including that a
// repeated close of any closed month changes nothing.
void RunWalk(std::mt19937_64& rng, Walk& walk) {
  Schedule s(walk.credit, walk.months);
  ASSERT_EQ(s.credit(), s.accounted() + s.remaining());
  for (int m = 1; m <= walk.months; ++m) {
    const MonthRow open = s.Open();
    ASSERT_EQ(open.month, m);
    ASSERT_EQ(open.remaining, s.remaining());
    const GpuSeconds used = RandomUsage(rng, open, walk.credit);
    walk.usage.push_back(used);
    const GpuSeconds accounted_before = s.accounted();
    ASSERT_TRUE(s.Close(m, used).ok());
    ASSERT_NO_FATAL_FAILURE(CheckClose(s, open, accounted_before));

    // Closing any closed month again, with any usage, changes nothing.
    const std::vector<MonthRow> rows = s.closed();
    const GpuSeconds accounted = s.accounted();
    const int again = std::uniform_int_distribution<int>(1, m)(rng);
    ASSERT_TRUE(s.Close(again, RandomUsage(rng, open, walk.credit)).ok());
    ASSERT_EQ(s.accounted(), accounted);
    ASSERT_EQ(s.closed().size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ASSERT_TRUE(SameRow(s.closed()[i], rows[i])) << "month " << i + 1;
    }
  }
  ASSERT_TRUE(s.over());
}

TEST(ScheduleProperty, InvariantsHoldForWholeHourCredits) {
  std::mt19937_64 rng(20260401);
  for (int trial = 0; trial < kTrials; ++trial) {
    Walk walk = RandomWalk(rng, true);
    RunWalk(rng, walk);
    ASSERT_FALSE(HasFatalFailure()) << "trial " << trial << ": credit " << walk.credit
                                    << " GPU-seconds over " << walk.months << " months";
  }
}

TEST(ScheduleProperty, InvariantsHoldForAnyCreditInGpuSeconds) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < kTrials; ++trial) {
    Walk walk = RandomWalk(rng, false);
    RunWalk(rng, walk);
    ASSERT_FALSE(HasFatalFailure()) << "trial " << trial << ": credit " << walk.credit
                                    << " GPU-seconds over " << walk.months << " months";
  }
}

// expected(m+1) = C/D + graced(m) whenever used(m) <= expected(m). A whole
// number of GPU hours is a multiple of 3600 GPU-seconds, so C/D is exact for
// D = 6 and 12.
TEST(ScheduleProperty, GracedRollsIntoTheNextExpectation) {
  std::mt19937_64 rng(42);
  int checked = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const Walk walk = RandomWalk(rng, true);
    ASSERT_EQ(walk.credit % walk.months, 0);
    const GpuSeconds step = walk.credit / walk.months;
    Schedule s(walk.credit, walk.months);
    for (int m = 1; m < walk.months; ++m) {
      const MonthRow open = s.Open();
      const GpuSeconds used = RandomUsage(rng, open, walk.credit);
      ASSERT_TRUE(s.Close(m, used).ok());
      if (used <= open.expected) {
        ASSERT_EQ(s.Open().expected, step + s.closed().back().graced)
            << "credit " << walk.credit << " month " << m << " used " << used;
        ++checked;
      }
    }
  }
  // The generator must exercise the property, not skip it.
  EXPECT_GT(checked, kTrials);
}

// With a credit the months do not divide, the step of the line is C/D rounded
// down or up, and the roll-over holds with that step.
TEST(ScheduleProperty, GracedRollsOverWithTheIntegerStepOfTheLine) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Walk walk = RandomWalk(rng, false);
    Schedule s(walk.credit, walk.months);
    for (int m = 1; m < walk.months; ++m) {
      const MonthRow open = s.Open();
      const GpuSeconds used = RandomUsage(rng, open, walk.credit);
      ASSERT_TRUE(s.Close(m, used).ok());
      const MonthRow next = s.Open();
      const GpuSeconds step = next.ideal - open.ideal;
      ASSERT_GE(step, walk.credit / walk.months);
      ASSERT_LE(step, walk.credit / walk.months + 1);
      if (used <= open.expected) {
        ASSERT_EQ(next.expected, step + s.closed().back().graced);
      }
    }
  }
}

}  // namespace
}  // namespace budget
