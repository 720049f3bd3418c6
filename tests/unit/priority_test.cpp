// Tests of the job priority sum: policy.md §5 examples, factors, agreement with multifactor/sprio.
#include "budget/priority.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "budget/fairshare.hpp"

namespace budget {
namespace {

constexpr std::int64_t kDay = std::int64_t{24} * 3600;
constexpr std::int64_t kNiceOffset = 0x80000000LL;  // slurm.h NICE_OFFSET
constexpr UnixTime kNow = 1767225600;               // 2026-01-01T00:00:00Z

// policy.md §5: QoS 100,000,000, fairshare 10,000,000, age 2,000,000 over 30 days.
PriorityWeights PolicyWeights() {
  PriorityWeights w;
  w.qos = 100000000;
  w.fairshare = 10000000;
  w.age = 2000000;
  w.max_age_seconds = 30 * kDay;
  return w;
}

// sprio's "%.0f" rendering of a weighted column.
std::string Column(double weighted) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f", weighted);
  return text;
}

// --- sprio and multifactor, transliterated ----------------------------------

// src/sprio/print.c get_priority_from_factors + _print_job_priority_weighted:
// the PRIORITY column, recomputed by the client from the weighted fields the
// plugin returns (site and nice travel NICE_OFFSET-biased in uint32 fields).
// sprio casts to long long, which is int64_t's width here.
std::int64_t SprioPriorityColumn(const JobPriority& p) {
  const auto priority_site = static_cast<std::uint32_t>(p.site + kNiceOffset);
  const auto nice = static_cast<std::uint32_t>(p.nice + kNiceOffset);
  double priority = p.age + p.assoc + p.fairshare + p.jobsize + p.partition + p.qos +
                    static_cast<double>(static_cast<std::int64_t>(priority_site) - kNiceOffset) -
                    static_cast<double>(static_cast<std::int64_t>(nice) - kNiceOffset);
  for (double t : p.tres) {
    if (t == 0.0) {
      continue;
    }
    priority += t;
  }
  if (priority < 1) {
    priority = 1;
  }
  return static_cast<std::int64_t>(priority);
}

// priority_multifactor.c _get_priority_internal, from weighted fields.
std::uint32_t MultifactorConversion(const std::vector<double>& weighted,
                                    const std::vector<double>& tres, std::int64_t site,
                                    std::int64_t nice) {
  double tmp_tres = 0.0;
  for (double t : tres) {
    tmp_tres += t;
  }
  double priority = weighted[0] + weighted[1] + weighted[2] + weighted[3] + weighted[4] +
                    weighted[5] + tmp_tres + static_cast<double>(site) - static_cast<double>(nice);
  if (priority < 1) {
    priority = 1;
  }
  auto tmp_64 = static_cast<std::uint64_t>(priority);
  if (tmp_64 > 0xffffffff) {
    tmp_64 = 0xffffffff;
    priority = static_cast<double>(tmp_64);
  }
  return static_cast<std::uint32_t>(priority);
}

std::uint32_t MultifactorConversion(const JobPriority& p) {
  return MultifactorConversion({p.age, p.assoc, p.fairshare, p.jobsize, p.partition, p.qos}, p.tres,
                               p.site, p.nice);
}

// set_priority_factors, unquantised: the weighted factors multifactor itself
// would store, in the order age, assoc, fs, js, part, qos.
std::vector<double> MultifactorWeighted(const PriorityWeights& w, const JobPriorityInputs& in) {
  double age = 0.0;
  if (w.age != 0 && in.accrue_time != 0) {
    std::uint32_t diff = 0;
    if (in.now > in.accrue_time) {
      diff = static_cast<std::uint32_t>(in.now - in.accrue_time);
    }
    const auto max_age = static_cast<std::uint32_t>(w.max_age_seconds);
    age = diff < max_age ? static_cast<double>(diff) / static_cast<double>(max_age) : 1.0;
  }
  double js = 0.0;
  const std::uint32_t nodes = in.cluster_nodes;
  const std::uint32_t cpus = in.cluster_cpus;
  if (w.small_relative_to_time) {
    js = static_cast<double>(in.min_nodes) * static_cast<double>(cpus) / static_cast<double>(nodes);
    if (static_cast<double>(in.cpus) > js) {
      js = static_cast<double>(in.cpus);
    }
    js /= static_cast<double>(in.time_limit_minutes);
    js /= static_cast<double>(cpus);
    if (w.favor_small) {
      js = 1.0 - js;
    }
  } else if (w.favor_small) {
    js = static_cast<double>(nodes - in.min_nodes) / static_cast<double>(nodes);
    if (in.cpus != 0) {
      js += static_cast<double>(cpus - in.cpus) / static_cast<double>(cpus);
      js /= 2;
    }
  } else {
    js = static_cast<double>(in.min_nodes) / static_cast<double>(nodes);
    if (in.cpus != 0) {
      js += static_cast<double>(in.cpus) / static_cast<double>(cpus);
      js /= 2;
    }
  }
  if (js < .0) {
    js = 0.0;
  } else if (js > 1.0) {
    js = 1.0;
  }
  return {age * w.age,    in.assoc_norm * w.assoc,         in.fair_share * w.fairshare,
          js * w.jobsize, in.partition_norm * w.partition, in.qos_norm * w.qos};
}

// --- Random jobs -------------------------------------------------------------

// A weights-and-job case shaped like a real cluster's. Half the cases are
// "decimal": every factor a tenth or hundredth, small weights, no age or job
// size. Their exact sums are often whole numbers that no double holds, which
// is where the order of floating-point additions changes the truncated result.
class JobGenerator {
 public:
  explicit JobGenerator(std::uint32_t seed) : rng_(seed) {}

  // Draws the kind of the next case; call before Weights() and Job().
  void NextCase() { decimal_ = Int(0, 1) == 0; }

  PriorityWeights Weights() {
    PriorityWeights w;
    w.age = decimal_ ? 0 : Weight();
    w.assoc = Weight();
    w.fairshare = Weight();
    w.jobsize = decimal_ ? 0 : Weight();
    w.partition = Weight();
    w.qos = Weight();
    const std::int64_t ntres = Int(0, 8);
    for (std::int64_t i = 0; i < ntres; ++i) {
      w.tres.push_back(Int(0, 2) == 0 ? 0.0 : static_cast<double>(Int(0, 10000)) / 10.0);
    }
    w.max_age_seconds = Int(0, 3) == 0 ? Int(1, 100000) : Int(1, 60) * kDay;
    w.favor_small = Int(0, 1) == 1;
    w.small_relative_to_time = Int(0, 3) == 0;
    return w;
  }

  JobPriorityInputs Job() {
    JobPriorityInputs in;
    in.now = kNow;
    in.accrue_time = Int(0, 5) == 0 ? 0 : kNow - Int(-kDay, 90 * kDay);
    in.fair_share = Int(0, 1) == 0 ? Ratio() : Ratio() * 0.4 + 0.6;
    in.assoc_norm = Ratio();
    in.qos_norm = Ratio();
    in.partition_norm = Ratio();
    in.cluster_nodes = U32(1, 2000);
    in.cluster_cpus = in.cluster_nodes * U32(1, 288);
    in.min_nodes = U32(1, in.cluster_nodes);
    in.cpus = Int(0, 4) == 0 ? 0 : U32(1, in.cluster_cpus);
    in.time_limit_minutes = U32(1, 14 * 24 * 60);
    const std::int64_t ntres = Int(0, 8);
    for (std::int64_t i = 0; i < ntres; ++i) {
      in.tres_fraction.push_back(Ratio());
    }
    in.site = SiteOrNice();
    in.nice = SiteOrNice();
    return in;
  }

 private:
  std::int64_t Int(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  std::uint32_t U32(std::uint32_t lo, std::uint32_t hi) {
    return static_cast<std::uint32_t>(Int(lo, hi));
  }

  double Ratio() {
    switch (decimal_ ? 4 : Int(0, 5)) {
      case 0:
        return 0.0;
      case 1:
        return 1.0;
      case 2:
        return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
      case 3: {
        const std::int64_t den = Int(1, 100);
        return static_cast<double>(Int(0, den)) / static_cast<double>(den);
      }
      default:
        return Int(0, 1) == 0 ? static_cast<double>(Int(0, 10)) / 10.0
                              : static_cast<double>(Int(0, 100)) / 100.0;
    }
  }

  std::uint32_t Weight() {
    switch (Int(0, decimal_ ? 2 : 5)) {
      case 0:
        return 0;
      case 1:
        return U32(1, 10);
      case 2:
        return U32(1, 1000);
      case 3:
        return static_cast<std::uint32_t>(Int(1, 100)) * 1000000U;
      default:
        return U32(1, 100000000);
    }
  }

  std::int64_t SiteOrNice() {
    switch (Int(0, 3)) {
      case 0:
        return Int(-1000, 1000);
      case 1:
        return Int(-1000000, 1000000);
      default:
        return 0;
    }
  }

  std::mt19937_64 rng_;
  bool decimal_ = false;
};

// --- policy.md §5 ------------------------------------------------------------

TEST(JobPriority, PolicyAgeExampleFiveAndEightDays) {
  PriorityWeights w;
  w.age = 2000000;
  w.max_age_seconds = 30 * kDay;  // PriorityMaxAge=30-0
  JobPriorityInputs in;
  in.now = kNow;

  in.accrue_time = kNow - 5 * kDay;
  JobPriority p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.priority, 333333U);
  EXPECT_EQ(Column(p.age), "333333");
  EXPECT_NEAR(p.age, 2000000.0 / 6.0, kPriorityQuantum);

  in.accrue_time = kNow - 8 * kDay;
  p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.priority, 533333U);
  EXPECT_EQ(Column(p.age), "533333");

  in.accrue_time = kNow - 30 * kDay;
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 2000000U);
  in.accrue_time = kNow - 45 * kDay;  // capped at PriorityMaxAge
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 2000000U);
}

TEST(JobPriority, PolicyWeightsCombineQosFairShareAndAge) {
  const PriorityWeights w = PolicyWeights();
  // A project behind its line: expected 1,000 GPUh, decayed usage 500 GPUh.
  FairShareInputs project;
  project.state = ProjectState::kActive;
  project.expected = GpuHours(1000);
  project.monthly_budget = GpuHours(1000);
  project.decayed_usage = static_cast<double>(GpuHours(500));
  const double fs = ComputeFairShare(project).factor;  // 0.6 + 0.4 * 2^-0.5

  JobPriorityInputs in;
  in.now = kNow;
  in.accrue_time = kNow - 5 * kDay;
  in.fair_share = fs;
  in.qos_norm = 0.5;  // QoS priority 50 out of a highest 100
  const JobPriority p = ComputeJobPriority(w, in);
  EXPECT_EQ(Column(p.qos), "50000000");
  EXPECT_EQ(Column(p.fairshare), "8828427");  // 8,828,427.12
  EXPECT_EQ(Column(p.age), "333333");         //   333,333.33
  // 50,000,000 + 8,828,427.12 + 333,333.33 = 59,161,760.45
  EXPECT_EQ(p.priority, 59161760U);
  EXPECT_EQ(SprioPriorityColumn(p), 59161760);
}

TEST(JobPriority, PolicyWeightsRankByQosThenFairShareThenAge) {
  const PriorityWeights w = PolicyWeights();
  JobPriorityInputs in;
  in.now = kNow;
  in.accrue_time = kNow;
  in.qos_norm = 0.5;

  // A full fair-share band (0.2 wide) is worth 2,000,000: the age weight. A
  // job of a project ahead of its line (top of its band, 0.6) that waited 30
  // days ties with a fresh job of a project just behind its line.
  JobPriorityInputs ahead_old = in;
  ahead_old.fair_share = 0.6;
  ahead_old.accrue_time = kNow - 30 * kDay;
  JobPriorityInputs behind_new = in;
  behind_new.fair_share = 0.8;
  EXPECT_EQ(ComputeJobPriority(w, ahead_old).priority, ComputeJobPriority(w, behind_new).priority);

  // A higher QoS tier beats any fair share and any age.
  JobPriorityInputs low_tier = in;
  low_tier.qos_norm = 0.25;
  low_tier.fair_share = 1.0;
  low_tier.accrue_time = kNow - 60 * kDay;
  JobPriorityInputs high_tier = in;
  high_tier.fair_share = 0.0;
  EXPECT_LT(ComputeJobPriority(w, low_tier).priority, ComputeJobPriority(w, high_tier).priority);

  // The policy's weights fit in 32 bits, so the cap is never reached.
  const std::uint64_t total = std::uint64_t{w.qos} + w.fairshare + w.age;
  EXPECT_LT(total, std::uint64_t{kMaxPriority});
}

// --- Factors ----------------------------------------------------------------

TEST(JobPriority, AgeNeedsWeightAndAccrueTime) {
  PriorityWeights w;
  w.age = 1000;
  w.max_age_seconds = 10 * kDay;
  JobPriorityInputs in;
  in.now = kNow;
  in.accrue_time = 0;  // not accruing
  EXPECT_EQ(ComputeJobPriority(w, in).age, 0.0);
  in.accrue_time = kNow + kDay;  // accrues from the future: no age yet
  EXPECT_EQ(ComputeJobPriority(w, in).age, 0.0);
  in.accrue_time = kNow - kDay;
  EXPECT_EQ(ComputeJobPriority(w, in).age, 100.0);
  w.max_age_seconds = 0;  // PriorityMaxAge=0: every accruing job is at the cap
  EXPECT_EQ(ComputeJobPriority(w, in).age, 1000.0);
  w.age = 0;
  EXPECT_EQ(ComputeJobPriority(w, in).age, 0.0);
}

TEST(JobPriority, JobSizeFavorsLargeByDefault) {
  PriorityWeights w;
  w.jobsize = 1000;
  JobPriorityInputs in;
  in.cluster_nodes = 100;
  in.cluster_cpus = 400;
  in.min_nodes = 10;
  in.cpus = 80;
  EXPECT_EQ(ComputeJobPriority(w, in).jobsize, 150.0);  // (10/100 + 80/400) / 2
  in.cpus = 0;                                          // no CPU count yet: nodes alone, not halved
  EXPECT_EQ(ComputeJobPriority(w, in).jobsize, 100.0);
}

TEST(JobPriority, JobSizeFavorSmallInvertsIt) {
  PriorityWeights w;
  w.jobsize = 1000;
  w.favor_small = true;
  JobPriorityInputs in;
  in.cluster_nodes = 100;
  in.cluster_cpus = 400;
  in.min_nodes = 10;
  in.cpus = 80;
  EXPECT_EQ(ComputeJobPriority(w, in).jobsize, 850.0);  // (90/100 + 320/400) / 2
  in.cpus = 0;
  EXPECT_EQ(ComputeJobPriority(w, in).jobsize, 900.0);
  // multifactor subtracts in uint32: asking more nodes than the cluster has
  // wraps around to a huge value, clamped to 1.
  in.min_nodes = 101;
  EXPECT_EQ(ComputeJobPriority(w, in).jobsize, 1000.0);
}

TEST(JobPriority, JobSizeRelativeToTime) {
  PriorityWeights w;
  w.jobsize = 1000000;
  w.small_relative_to_time = true;
  JobPriorityInputs in;
  in.cluster_nodes = 100;
  in.cluster_cpus = 400;
  in.min_nodes = 10;  // 10 * 400 / 100 = 40 CPUs' worth
  in.cpus = 20;       // fewer than the nodes' worth: the nodes count
  in.time_limit_minutes = 4;
  // 40 / 4 / 400 = 0.025
  EXPECT_NEAR(ComputeJobPriority(w, in).jobsize, 25000.0, kPriorityQuantum);
  in.cpus = 80;  // 80 / 4 / 400 = 0.05
  EXPECT_NEAR(ComputeJobPriority(w, in).jobsize, 50000.0, kPriorityQuantum);
  w.favor_small = true;
  EXPECT_NEAR(ComputeJobPriority(w, in).jobsize, 950000.0, kPriorityQuantum);
  in.time_limit_minutes = 0;  // counts as 1: 80 / 1 / 400 = 0.2
  EXPECT_NEAR(ComputeJobPriority(w, in).jobsize, 800000.0, kPriorityQuantum);
}

TEST(JobPriority, JobSizeOfAnEmptyClusterIsZero) {
  PriorityWeights w;
  w.jobsize = 1000;
  JobPriorityInputs in;
  in.min_nodes = 1;
  in.cpus = 1;
  EXPECT_EQ(ComputeJobPriority(w, in).jobsize, 0.0);
  in.cluster_nodes = 1;
  EXPECT_EQ(ComputeJobPriority(w, in).jobsize, 0.0);
}

TEST(JobPriority, FactorsAreClampedToUnitInterval) {
  PriorityWeights w;
  w.assoc = 100;
  w.fairshare = 100;
  w.partition = 100;
  w.qos = 100;
  w.tres = {100.0, 100.0};
  JobPriorityInputs in;
  in.fair_share = 1.5;
  in.assoc_norm = -0.5;
  in.qos_norm = std::nan("");
  in.partition_norm = 2.0;
  in.tres_fraction = {3.0, -1.0};
  const JobPriority p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.fairshare, 100.0);
  EXPECT_EQ(p.assoc, 0.0);
  EXPECT_EQ(p.qos, 0.0);
  EXPECT_EQ(p.partition, 100.0);
  ASSERT_EQ(p.tres.size(), 2U);
  EXPECT_EQ(p.tres[0], 100.0);
  EXPECT_EQ(p.tres[1], 0.0);
  EXPECT_EQ(p.priority, 300U);
}

TEST(JobPriority, TresWeightsFollowTheirIndex) {
  PriorityWeights w;
  w.tres = {1.0, 2000.0, -5.0, std::numeric_limits<double>::infinity()};
  JobPriorityInputs in;
  in.tres_fraction = {0.5, 0.25};  // shorter: the rest count as 0
  JobPriority p = ComputeJobPriority(w, in);
  ASSERT_EQ(p.tres.size(), 4U);
  EXPECT_EQ(p.tres[0], 0.5);
  EXPECT_EQ(p.tres[1], 500.0);
  EXPECT_EQ(p.tres[2], 0.0);
  EXPECT_EQ(p.tres[3], 0.0);
  EXPECT_EQ(p.priority, 500U);  // 500.5 truncated

  in.tres_fraction = {1.0, 1.0, 1.0, 1.0, 1.0};  // longer: no weight, ignored
  p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.priority, 2001U);  // negative and infinite weights count as 0

  w.tres.clear();  // PriorityWeightTRES unset
  EXPECT_TRUE(ComputeJobPriority(w, in).tres.empty());
}

TEST(JobPriority, SiteAddsAndNiceSubtracts) {
  PriorityWeights w;
  w.qos = 1000000;
  JobPriorityInputs in;
  in.qos_norm = 1.0;
  in.site = 500;
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 1000500U);
  in.nice = 1000;
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 999500U);
  in.nice = -1000;  // an administrator's boost
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 1001500U);
  const JobPriority p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.site, 500);
  EXPECT_EQ(p.nice, -1000);
}

TEST(JobPriority, SumBelowOneBecomesOne) {
  PriorityWeights w;
  w.fairshare = 1000;
  JobPriorityInputs in;
  in.fair_share = 0.5;
  in.nice = 10000;
  JobPriority p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.sum, -9500.0);
  EXPECT_EQ(p.priority, 1U);  // 0 is reserved for held jobs
  EXPECT_EQ(SprioPriorityColumn(p), 1);

  in.nice = 0;
  in.fair_share = 0.0009;  // 0.9: still below 1
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 1U);
  in.fair_share = 0.0019;  // 1.9 truncates to 1
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 1U);
  in.fair_share = 0.0029;  // 2.9 truncates to 2
  EXPECT_EQ(ComputeJobPriority(w, in).priority, 2U);
}

TEST(JobPriority, SumAbove32BitsIsCapped) {
  PriorityWeights w;
  w.qos = kMaxPriority;
  w.fairshare = kMaxPriority;
  JobPriorityInputs in;
  in.qos_norm = 1.0;
  in.fair_share = 1.0;
  JobPriority p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.priority, kMaxPriority);
  EXPECT_GE(p.sum, 4294967296.0);
  // sprio does not cap: it shows the uncapped sum, as it does with multifactor.
  EXPECT_EQ(SprioPriorityColumn(p), std::int64_t{2} * kMaxPriority);

  // Between 0xffffffff and 2^32 the truncation alone gives 0xffffffff.
  w.fairshare = 0;
  in.site = 0;
  w.tres = {0.5};
  in.tres_fraction = {1.0};
  p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.sum, 4294967295.5);
  EXPECT_EQ(p.priority, kMaxPriority);
  EXPECT_EQ(SprioPriorityColumn(p), std::int64_t{4294967295});
}

TEST(JobPriority, SiteAndNiceAreClampedToWhatSlurmCanCarry) {
  PriorityWeights w;
  JobPriorityInputs in;
  in.site = std::int64_t{1} << 40;
  in.nice = -(std::int64_t{1} << 40);
  const JobPriority p = ComputeJobPriority(w, in);
  EXPECT_EQ(p.site, std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(p.nice, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(p.priority, kMaxPriority);  // 2^31 - 1 + 2^31 = 0xffffffff
}

// --- Agreement with multifactor and sprio ------------------------------------

// The number sprio prints in its PRIORITY column, recomputed from the weighted
// fields in its own order, is the priority set on the job; and that priority is
// multifactor's conversion of those same fields in multifactor's order.
TEST(JobPriority, SprioRecomputesTheSamePriority) {
  JobGenerator gen(7);
  int checked = 0;
  for (int i = 0; i < 100000; ++i) {
    gen.NextCase();
    const PriorityWeights w = gen.Weights();
    const JobPriorityInputs in = gen.Job();
    const JobPriority p = ComputeJobPriority(w, in);
    ASSERT_GE(p.priority, 1U);
    ASSERT_EQ(p.priority, MultifactorConversion(p));
    if (p.sum >= 4294967296.0) {
      continue;  // capped: sprio shows the uncapped sum (see SumAbove32BitsIsCapped)
    }
    ++checked;
    ASSERT_EQ(SprioPriorityColumn(p), std::int64_t{p.priority})
        << "case " << i << " age " << p.age << " assoc " << p.assoc << " fs " << p.fairshare
        << " js " << p.jobsize << " part " << p.partition << " qos " << p.qos << " site " << p.site
        << " nice " << p.nice;
  }
  EXPECT_GT(checked, 95000);
}

// Each weighted field is multifactor's own factor × weight, moved by at most
// half a quantum; the priority differs from multifactor's only when
// multifactor's own sum is within a few quanta of an integer.
TEST(JobPriority, FactorsMatchMultifactor) {
  JobGenerator gen(8);
  int differing = 0;
  const int cases = 100000;
  for (int i = 0; i < cases; ++i) {
    gen.NextCase();
    PriorityWeights w = gen.Weights();
    w.max_age_seconds = std::max<std::int64_t>(w.max_age_seconds, 1);
    const JobPriorityInputs in = gen.Job();
    const JobPriority p = ComputeJobPriority(w, in);
    const std::vector<double> ref = MultifactorWeighted(w, in);
    const std::vector<double> got = {p.age, p.assoc, p.fairshare, p.jobsize, p.partition, p.qos};
    for (std::size_t k = 0; k < ref.size(); ++k) {
      ASSERT_NEAR(got[k], ref[k], kPriorityQuantum / 2) << "case " << i << " factor " << k;
    }
    std::vector<double> ref_tres(w.tres.size());
    for (std::size_t k = 0; k < w.tres.size(); ++k) {
      const double fraction = k < in.tres_fraction.size() ? in.tres_fraction[k] : 0.0;
      ref_tres[k] = fraction * w.tres[k];
      ASSERT_NEAR(p.tres[k], ref_tres[k], kPriorityQuantum / 2) << "case " << i << " tres " << k;
    }
    const std::uint32_t multifactor = MultifactorConversion(ref, ref_tres, in.site, in.nice);
    if (multifactor != p.priority) {
      ++differing;
      const double frac = p.sum - std::floor(p.sum);
      ASSERT_TRUE(frac < 1e-3 || frac > 1 - 1e-3)
          << "case " << i << " sum " << p.sum << " multifactor " << multifactor;
    }
  }
  EXPECT_LT(differing, cases / 100);
}

// Each weighted term is std::round(factor x weight / quantum) x quantum
// exactly, halves away from zero included (the core rounds without libm).
TEST(JobPriority, WeightedTermsAreRoundedToTheNearestQuantum) {
  const auto expected = [](double factor, double weight) {
    const double clamped = std::isnan(factor) || factor < 0 ? 0.0 : std::min(factor, 1.0);
    return std::round(clamped * weight / kPriorityQuantum) * kPriorityQuantum;
  };
  PriorityWeights w;
  w.qos = 1;
  w.fairshare = 3;
  w.partition = 0xffffffffU;
  JobPriorityInputs in;
  // A half quantum and the doubles just around it, times weights 1 and 3.
  for (const double factor : {kPriorityQuantum / 2, std::nextafter(kPriorityQuantum / 2, 0.0),
                              std::nextafter(kPriorityQuantum / 2, 1.0), 2.5 * kPriorityQuantum,
                              1.5 * kPriorityQuantum, 0.0, 1.0, 0.123456789}) {
    in.qos_norm = factor;
    in.fair_share = factor;
    in.partition_norm = factor;
    const JobPriority p = ComputeJobPriority(w, in);
    EXPECT_EQ(p.qos, expected(factor, 1)) << factor;
    EXPECT_EQ(p.fairshare, expected(factor, 3)) << factor;
    EXPECT_EQ(p.partition, expected(factor, 0xffffffffU)) << factor;
  }
  JobGenerator gen(9);
  for (int i = 0; i < 20000; ++i) {
    gen.NextCase();
    const PriorityWeights rw = gen.Weights();
    const JobPriorityInputs rin = gen.Job();
    const JobPriority p = ComputeJobPriority(rw, rin);
    ASSERT_EQ(p.qos, expected(rin.qos_norm, rw.qos)) << "case " << i;
    ASSERT_EQ(p.assoc, expected(rin.assoc_norm, rw.assoc)) << "case " << i;
    for (std::size_t k = 0; k < rw.tres.size(); ++k) {
      const double fraction = k < rin.tres_fraction.size() ? rin.tres_fraction[k] : 0.0;
      ASSERT_EQ(p.tres[k], expected(fraction, rw.tres[k])) << "case " << i << " tres " << k;
    }
  }
}

// The allocation-free form gives the same fields, its tres_out holding what
// the vector form's `tres` holds (0 past the weights), whatever its size.
TEST(JobPriority, SpanFormMatchesTheVectorForm) {
  JobGenerator gen(10);
  for (int i = 0; i < 20000; ++i) {
    gen.NextCase();
    const PriorityWeights w = gen.Weights();
    JobPriorityInputs in = gen.Job();
    const JobPriority want = ComputeJobPriority(w, in);
    const std::vector<double> fractions = in.tres_fraction;
    in.tres_fraction = {0.5, 0.5, 0.5};  // must not be read by the span form
    std::vector<double> out(w.tres.size() + static_cast<std::size_t>(i % 3), -1.0);
    if (i % 4 == 0 && !out.empty()) {
      out.pop_back();  // shorter than the weights: the sum still counts them all
    }
    const JobPriority got = ComputeJobPriority(w, in, fractions, out);
    ASSERT_EQ(got.priority, want.priority) << "case " << i;
    ASSERT_EQ(got.sum, want.sum) << "case " << i;
    ASSERT_EQ(got.age, want.age);
    ASSERT_EQ(got.assoc, want.assoc);
    ASSERT_EQ(got.fairshare, want.fairshare);
    ASSERT_EQ(got.jobsize, want.jobsize);
    ASSERT_EQ(got.partition, want.partition);
    ASSERT_EQ(got.qos, want.qos);
    ASSERT_EQ(got.site, want.site);
    ASSERT_EQ(got.nice, want.nice);
    ASSERT_TRUE(got.tres.empty());
    for (std::size_t k = 0; k < out.size(); ++k) {
      ASSERT_EQ(out[k], k < want.tres.size() ? want.tres[k] : 0.0) << "case " << i << " " << k;
    }
  }
}

}  // namespace
}  // namespace budget
