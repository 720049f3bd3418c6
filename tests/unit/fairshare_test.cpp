// Tests of the budget fair-share factor: hand-computed values and the orderings of policy.md §5.
#include "budget/fairshare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace budget {
namespace {

constexpr int kCases = 20000;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Random project inputs over realistic and extreme ranges: budgets from one
// GPU-hour to a large project's month, usage from nothing to far past it.
class InputGenerator {
 public:
  explicit InputGenerator(std::uint32_t seed) : rng_(seed) {}

  GpuSeconds Budget() { return Pick({1, GpuHours(1), GpuHours(1000), GpuHours(50000)}, 1); }

  // Non-negative GPU-seconds, often 0, spread over many magnitudes.
  GpuSeconds Usage() {
    switch (Int(0, 5)) {
      case 0:
        return 0;
      case 1:
        return Int(1, 100);
      case 2:
        return GpuHours(Int(1, 2000));
      case 3:
        return GpuHours(Int(1, 1000000));
      default:
        return Int(0, std::int64_t{1} << 50);
    }
  }

  double Decayed() {
    switch (Int(0, 6)) {
      case 0:
        return 0.0;
      case 1:
        return kInf;
      default:
        return static_cast<double>(Usage()) * Real(0.0, 1.5);
    }
  }

  GpuSeconds Expected() {
    const GpuSeconds magnitude = Usage();
    return Int(0, 2) == 0 ? -magnitude : magnitude;
  }

  FairShareInputs Any(ProjectState state) {
    FairShareInputs in;
    in.state = state;
    in.expected = Expected();
    in.used_this_month = Usage();
    in.monthly_budget = Budget();
    in.decayed_usage = Decayed();
    in.low_used = Usage();
    return in;
  }

  FairShareInputs Behind() {
    FairShareInputs in = Any(ProjectState::kActive);
    in.expected = in.used_this_month + 1 + Usage();
    return in;
  }

  FairShareInputs Ahead() {
    FairShareInputs in = Any(ProjectState::kActive);
    in.expected = in.used_this_month - Usage();
    return in;
  }

  std::int64_t Int(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  double Real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

 private:
  GpuSeconds Pick(std::initializer_list<GpuSeconds> choices, GpuSeconds lo) {
    const auto i = static_cast<std::size_t>(Int(0, static_cast<std::int64_t>(choices.size())));
    if (i == choices.size()) {
      return Int(lo, GpuHours(100000));
    }
    return *(choices.begin() + static_cast<std::ptrdiff_t>(i));
  }

  std::mt19937_64 rng_;
};

double Factor(const FairShareInputs& in) { return ComputeFairShare(in).factor; }

// Bit-for-bit identity, stricter than ==.
std::uint64_t Bits(double x) { return std::bit_cast<std::uint64_t>(x); }

// --- Hand-computed values ---------------------------------------------------

TEST(FairShare, BehindUsesDecayedUsageOverExpected) {
  FairShareInputs in;
  in.state = ProjectState::kActive;
  in.expected = GpuHours(1000);
  in.used_this_month = GpuHours(200);
  in.monthly_budget = GpuHours(1000);
  in.decayed_usage = static_cast<double>(GpuHours(500));
  const FairShare fs = ComputeFairShare(in);
  EXPECT_EQ(fs.band, FairShareBand::kBehind);
  EXPECT_DOUBLE_EQ(fs.usage_ratio, 0.5);
  EXPECT_NEAR(fs.key, 0.70710678, 1e-8);
  EXPECT_NEAR(fs.factor, 0.6 + 0.4 * 0.70710678, 1e-8);
  EXPECT_NEAR(fs.factor, 0.88284271, 1e-8);
}

TEST(FairShare, BehindWithoutUsageIsTheTop) {
  FairShareInputs in;
  in.state = ProjectState::kActive;
  in.expected = GpuHours(1000);
  in.monthly_budget = GpuHours(1000);
  const FairShare fs = ComputeFairShare(in);
  EXPECT_EQ(fs.band, FairShareBand::kBehind);
  EXPECT_EQ(fs.key, 1.0);
  EXPECT_EQ(fs.factor, 1.0);
}

TEST(FairShare, AheadUsesDistancePastTheLineOverMonthlyBudget) {
  // policy.md §6: 6,000 GPUh over 6 months, 2,500 used in month 1, so month 2
  // has expected -500; nothing used yet in month 2.
  FairShareInputs in;
  in.state = ProjectState::kActive;
  in.expected = GpuHours(-500);
  in.used_this_month = 0;
  in.monthly_budget = GpuHours(1000);
  in.decayed_usage = static_cast<double>(GpuHours(2500));  // ignored in this band
  const FairShare fs = ComputeFairShare(in);
  EXPECT_EQ(fs.band, FairShareBand::kAhead);
  EXPECT_DOUBLE_EQ(fs.usage_ratio, 0.5);
  EXPECT_NEAR(fs.factor, 0.4 + 0.2 * 0.70710678, 1e-8);

  in.used_this_month = GpuHours(1500);  // 2,000 GPUh past the line
  EXPECT_DOUBLE_EQ(ComputeFairShare(in).factor, 0.4 + 0.2 * 0.25);
}

TEST(FairShare, ExactlyOnTheLineIsTheTopOfAhead) {
  FairShareInputs in;
  in.state = ProjectState::kActive;
  in.expected = GpuHours(1000);
  in.used_this_month = GpuHours(1000);
  in.monthly_budget = GpuHours(1000);
  const FairShare fs = ComputeFairShare(in);
  EXPECT_EQ(fs.band, FairShareBand::kAhead);
  EXPECT_EQ(fs.factor, 0.6);

  in.used_this_month -= 1;  // one GPU-second behind
  EXPECT_EQ(ComputeFairShare(in).band, FairShareBand::kBehind);
  EXPECT_GT(ComputeFairShare(in).factor, 0.6);
}

TEST(FairShare, PreparatoryUsesDecayedUsageOverMonthlyBudget) {
  FairShareInputs in;
  in.state = ProjectState::kPreparatory;
  in.monthly_budget = GpuHours(1000);
  in.decayed_usage = static_cast<double>(GpuHours(2000));
  const FairShare fs = ComputeFairShare(in);
  EXPECT_EQ(fs.band, FairShareBand::kPreparatory);
  EXPECT_DOUBLE_EQ(fs.key, 0.25);
  EXPECT_DOUBLE_EQ(fs.factor, 0.25);
}

TEST(FairShare, LowUsesLowUsedOverMonthlyBudget) {
  FairShareInputs in;
  in.state = ProjectState::kLow;
  in.monthly_budget = GpuHours(1000);
  in.low_used = GpuHours(1000);
  in.decayed_usage = 0.0;  // ignored in this band
  const FairShare fs = ComputeFairShare(in);
  EXPECT_EQ(fs.band, FairShareBand::kLow);
  EXPECT_DOUBLE_EQ(fs.key, 0.5);
  EXPECT_DOUBLE_EQ(fs.factor, 0.1);
}

TEST(FairShare, BlockedAndEndedAreZero) {
  for (ProjectState s : {ProjectState::kBlocked, ProjectState::kEnded}) {
    FairShareInputs in;
    in.state = s;
    in.expected = GpuHours(1000);
    in.monthly_budget = GpuHours(1000);
    const FairShare fs = ComputeFairShare(in);
    EXPECT_EQ(fs.band, FairShareBand::kNone) << ToString(s);
    EXPECT_EQ(fs.factor, 0.0) << ToString(s);
    EXPECT_EQ(fs.key, 0.0) << ToString(s);
  }
}

TEST(FairShare, HugeUsageStaysStrictlyAboveTheBandBelow) {
  FairShareInputs in;
  in.state = ProjectState::kActive;
  in.expected = 1;
  in.monthly_budget = 1;
  in.decayed_usage = kInf;
  FairShare fs = ComputeFairShare(in);
  EXPECT_EQ(fs.key, kMinKey);
  EXPECT_EQ(fs.factor, 0.6 + 0.4 * kMinKey);

  in.state = ProjectState::kLow;
  in.low_used = std::numeric_limits<GpuSeconds>::max();
  fs = ComputeFairShare(in);
  EXPECT_EQ(fs.key, kMinKey);
  EXPECT_GT(fs.factor, 0.0);
}

TEST(FairShare, MalformedInputsAreSanitised) {
  FairShareInputs in;
  in.state = ProjectState::kPreparatory;
  in.monthly_budget = GpuHours(1000);
  in.decayed_usage = std::nan("");
  EXPECT_EQ(ComputeFairShare(in).factor, 0.4);  // NaN usage counts as none
  in.decayed_usage = -5.0;
  EXPECT_EQ(ComputeFairShare(in).factor, 0.4);

  // A non-positive budget is the B -> 0+ limit: top of the band without
  // usage, bottom with any.
  in.monthly_budget = 0;
  in.decayed_usage = 0.0;
  EXPECT_EQ(ComputeFairShare(in).factor, 0.4);
  in.decayed_usage = 1.0;
  EXPECT_EQ(ComputeFairShare(in).key, kMinKey);

  // Negative usage this month counts as none: expected 0 is then on the line,
  // not behind it, so expected is never a divisor when it is not positive.
  in.state = ProjectState::kActive;
  in.expected = 0;
  in.used_this_month = -10;
  in.monthly_budget = GpuHours(1000);
  EXPECT_EQ(ComputeFairShare(in).band, FairShareBand::kAhead);
  EXPECT_EQ(ComputeFairShare(in).factor, 0.6);
}

TEST(FairShare, BandNamesAndBoundsAgree) {
  EXPECT_STREQ(ToString(FairShareBand::kNone), "none");
  EXPECT_STREQ(ToString(FairShareBand::kLow), "low");
  EXPECT_STREQ(ToString(FairShareBand::kPreparatory), "preparatory");
  EXPECT_STREQ(ToString(FairShareBand::kAhead), "ahead");
  EXPECT_STREQ(ToString(FairShareBand::kBehind), "behind");
  EXPECT_EQ(BoundsOf(FairShareBand::kBehind).lo, 0.6);
  EXPECT_EQ(BoundsOf(FairShareBand::kBehind).hi, 1.0);
  EXPECT_EQ(BoundsOf(FairShareBand::kLow).lo, 0.0);
}

// Every factor lies in its band's (lo, hi], and factor = lo + (hi - lo) * key.
TEST(FairShare, FactorLiesInsideItsBand) {
  InputGenerator gen(11);
  for (int i = 0; i < kCases; ++i) {
    const auto state = static_cast<ProjectState>(gen.Int(0, 4));
    const FairShareInputs in = gen.Any(state);
    const FairShare fs = ComputeFairShare(in);
    const FairShareBandBounds& b = BoundsOf(fs.band);
    ASSERT_GE(fs.factor, 0.0);
    ASSERT_LE(fs.factor, 1.0);
    if (fs.band == FairShareBand::kNone) {
      ASSERT_EQ(fs.factor, 0.0);
      continue;
    }
    ASSERT_GT(fs.factor, b.lo) << ToString(fs.band);
    ASSERT_LE(fs.factor, b.hi) << ToString(fs.band);
    ASSERT_GE(fs.key, kMinKey);
    ASSERT_LE(fs.key, 1.0);
    ASSERT_EQ(fs.factor, b.lo + (b.hi - b.lo) * fs.key);
  }
}

// --- policy.md §5, the orderings --------------------------------------------

// Ordering 1: active with credit > preparatory > low > 0 = blocked = ended.
TEST(FairShare, OrderingOneTiersAreStrict) {
  InputGenerator gen(1);
  double min_active = kInf;
  double max_active = -kInf;
  double min_prep = kInf;
  double max_prep = -kInf;
  double min_low = kInf;
  double max_low = -kInf;
  for (int i = 0; i < kCases; ++i) {
    const double a = Factor(gen.Any(ProjectState::kActive));
    const double p = Factor(gen.Any(ProjectState::kPreparatory));
    const double l = Factor(gen.Any(ProjectState::kLow));
    min_active = std::min(min_active, a);
    max_active = std::max(max_active, a);
    min_prep = std::min(min_prep, p);
    max_prep = std::max(max_prep, p);
    min_low = std::min(min_low, l);
    max_low = std::max(max_low, l);
    ASSERT_EQ(Factor(gen.Any(ProjectState::kBlocked)), 0.0);
    ASSERT_EQ(Factor(gen.Any(ProjectState::kEnded)), 0.0);
  }
  EXPECT_GT(min_active, max_prep);
  EXPECT_GT(min_prep, max_low);
  EXPECT_GT(min_low, 0.0);
  // The generator reaches both ends of every band, so the test is not vacuous.
  EXPECT_EQ(max_active, 1.0);
  EXPECT_LT(min_active, 0.4 + 1e-6);
  EXPECT_EQ(max_prep, 0.4);
  EXPECT_LT(min_prep, 0.2 + 1e-6);
  EXPECT_EQ(max_low, 0.2);
  EXPECT_LT(min_low, 1e-6);
}

// Ordering 2: more usage never raises the factor; a larger expected never lowers it.
TEST(FairShare, OrderingTwoMoreUsageNeverRaisesTheFactor) {
  InputGenerator gen(2);
  int lowered = 0;
  for (int i = 0; i < kCases; ++i) {
    const FairShareInputs base = gen.Any(ProjectState::kActive);
    FairShareInputs more = base;
    switch (gen.Int(0, 2)) {
      case 0:
        more.used_this_month += gen.Usage();
        break;
      case 1:
        more.decayed_usage += gen.Decayed();
        break;
      default:
        more.used_this_month += gen.Usage();
        more.decayed_usage += gen.Decayed();
        break;
    }
    ASSERT_LE(Factor(more), Factor(base))
        << "expected " << base.expected << " used " << base.used_this_month << " -> "
        << more.used_this_month << " decayed " << base.decayed_usage << " -> "
        << more.decayed_usage;
    if (Factor(more) < Factor(base)) {
      ++lowered;
    }
  }
  EXPECT_GT(lowered, kCases / 4);  // usage does move the factor
}

TEST(FairShare, OrderingTwoLargerExpectedNeverLowersTheFactor) {
  InputGenerator gen(3);
  int raised = 0;
  for (int i = 0; i < kCases; ++i) {
    const FairShareInputs base = gen.Any(ProjectState::kActive);
    FairShareInputs larger = base;
    larger.expected += gen.Usage();
    ASSERT_GE(Factor(larger), Factor(base))
        << "expected " << base.expected << " -> " << larger.expected << " used "
        << base.used_this_month << " decayed " << base.decayed_usage;
    if (Factor(larger) > Factor(base)) {
      ++raised;
    }
  }
  EXPECT_GT(raised, kCases / 4);
}

// The same monotonicity holds in the preparatory and low bands.
TEST(FairShare, MoreUsageNeverRaisesThePreparatoryOrLowFactor) {
  InputGenerator gen(4);
  for (int i = 0; i < kCases; ++i) {
    FairShareInputs prep = gen.Any(ProjectState::kPreparatory);
    const double before_prep = Factor(prep);
    prep.decayed_usage += gen.Decayed();
    ASSERT_LE(Factor(prep), before_prep);

    FairShareInputs low = gen.Any(ProjectState::kLow);
    const double before_low = Factor(low);
    low.low_used += gen.Usage();
    ASSERT_LE(Factor(low), before_low);
  }
}

// Ordering 3: any project ahead of its line ranks strictly below any project behind it.
TEST(FairShare, OrderingThreeAheadRanksBelowEveryBehind) {
  InputGenerator gen(5);
  double max_ahead = -kInf;
  double min_behind = kInf;
  for (int i = 0; i < kCases; ++i) {
    const FairShareInputs ahead = gen.Ahead();
    const FairShareInputs behind = gen.Behind();
    ASSERT_LE(ahead.expected - ahead.used_this_month, 0);
    ASSERT_GT(behind.expected - behind.used_this_month, 0);
    const double a = Factor(ahead);
    const double b = Factor(behind);
    ASSERT_LT(a, b);
    max_ahead = std::max(max_ahead, a);
    min_behind = std::min(min_behind, b);
  }
  EXPECT_LT(max_ahead, min_behind);
  EXPECT_EQ(max_ahead, 0.6);  // projects exactly on the line were drawn
}

// Ordering 4: the factor is a function of the project's inputs only, so every
// user of the project gets the same one. The API has no user argument; here
// each "user" builds its own copy of the project's inputs.
TEST(FairShare, OrderingFourEveryUserOfAProjectGetsTheSameFactor) {
  static_assert(std::is_same_v<decltype(&ComputeFairShare), FairShare (*)(const FairShareInputs&)>,
                "the fair-share factor must take the project's inputs and nothing else");
  InputGenerator gen(6);
  for (int i = 0; i < kCases; ++i) {
    const auto state = static_cast<ProjectState>(gen.Int(0, 4));
    const FairShareInputs project = gen.Any(state);
    const FairShare first = ComputeFairShare(project);
    for (int user = 0; user < 3; ++user) {
      const FairShareInputs copy = project;
      const FairShare again = ComputeFairShare(copy);
      ASSERT_EQ(Bits(again.factor), Bits(first.factor));
      ASSERT_EQ(again.band, first.band);
      ASSERT_EQ(Bits(again.key), Bits(first.key));
      ASSERT_EQ(Bits(again.usage_ratio), Bits(first.usage_ratio));
    }
  }
}

}  // namespace
}  // namespace budget
