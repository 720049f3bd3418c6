// The multifactor job priority sum (policy.md §5) from plain inputs, as multifactor and sprio do.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "budget/units.hpp"

namespace budget {

// The formula (Slurm 22.05 priority/multifactor: set_priority_factors and
// _get_priority_internal; sprio: get_priority_from_factors):
//
//   priority = w_age·age + w_assoc·assoc + w_fairshare·fairshare
//            + w_jobsize·jobsize + w_partition·partition + w_qos·qos
//            + Σ_i w_tres[i]·tres[i] + site − nice
//
//   age      = min((now − accrue_time) / max_age, 1); 0 when w_age = 0 or
//              accrue_time = 0; 1 when max_age <= 0; 0 when now <= accrue_time
//   jobsize  (N = cluster_nodes, C = cluster_cpus, n = min_nodes, c = cpus,
//             T = time_limit_minutes):
//     small_relative_to_time:  s = max(n·C/N, c) / T / C;  favor_small ? 1 − s : s
//     favor_small:             ((N − n)/N + (C − c)/C) / 2,  or (N − n)/N when c = 0
//     otherwise (favor large): (n/N + c/C) / 2,              or n/N       when c = 0
//     N − n and C − c are unsigned 32-bit differences, as in multifactor: with
//     favor_small, a job asking more than the cluster wraps around to jobsize 1.
//   every factor is clamped to [0, 1].
//
// Each weighted term (factor × weight) is rounded to the nearest multiple of
// kPriorityQuantum = 2^-16, a move of at most 2^-17. While the sum is below
// 2^32 every partial sum is then a multiple of 2^-16 below 2^37, exact in a
// double, so the sum is the same in multifactor's order (TRES summed first)
// and in sprio's (TRES added last): the PRIORITY column sprio recomputes from
// the weighted fields equals `priority`. Against multifactor's unrounded
// terms, `priority` can differ by 1 only when that sum lies within about 1e-4
// of a whole number, where multifactor's own result hangs on rounding errors.
//
// priority = the sum truncated toward zero, at least 1 (0 is reserved for
// held jobs) and at most 0xffffffff: multifactor's conversion. Above
// 0xffffffff multifactor logs an error and caps; sprio, which does not cap,
// then prints the uncapped sum, exactly as it does with multifactor itself.

inline constexpr double kPriorityQuantum = 1.0 / 65536.0;
inline constexpr std::uint32_t kMaxPriority = 0xffffffffU;

// The PriorityWeight* and PriorityMaxAge/PriorityFlags of slurm.conf.
struct PriorityWeights {
  std::uint32_t age = 0;
  std::uint32_t assoc = 0;
  std::uint32_t fairshare = 0;
  std::uint32_t jobsize = 0;
  std::uint32_t partition = 0;
  std::uint32_t qos = 0;
  // PriorityWeightTRES, one per TRES index (slurmctld's TRES order). Negative
  // or non-finite weights count as 0; weights above 0xffffffff count as
  // 0xffffffff. Empty when PriorityWeightTRES is unset.
  std::vector<double> tres;
  // PriorityMaxAge in seconds; <= 0 makes age 1 for every accruing job, as
  // multifactor does with PriorityMaxAge=0.
  std::int64_t max_age_seconds = 0;
  bool favor_small = false;             // PriorityFavorSmall=YES
  bool small_relative_to_time = false;  // PriorityFlags=SMALL_RELATIVE_TO_TIME
};

// Every fraction below is clamped to [0, 1] before weighting; NaN counts as 0.
struct JobPriorityInputs {
  UnixTime now = 0;
  UnixTime accrue_time = 0;  // 0 = not accruing: age 0
  double fair_share = 0.0;   // [0, 1], e.g. ComputeFairShare().factor
  // As slurmctld normalises them: assoc priority / max assoc priority, QOS
  // priority / max QOS priority, partition PriorityJobFactor / max over
  // partitions. 0 when the job has no QOS priority or partition job factor.
  double assoc_norm = 0.0;
  double qos_norm = 0.0;
  double partition_norm = 0.0;
  // Job size, as multifactor picks it: min_nodes = details->min_nodes; cpus =
  // total_cpus, else max_cpus (if set), else min_cpus, else 0.
  std::uint32_t min_nodes = 0;
  std::uint32_t cpus = 0;
  std::uint32_t cluster_nodes = 0;  // node_record_count; 0 gives jobsize 0
  std::uint32_t cluster_cpus = 0;   // 0 gives jobsize 0 (multifactor divides by 0)
  // The job's time limit, else the partition's MaxTime, else 1; 0 counts as 1.
  // Only read with small_relative_to_time.
  std::uint32_t time_limit_minutes = 1;
  // Per TRES index: allocated (else requested) count / the partition's total.
  // Missing entries count as 0; entries past weights.tres are ignored.
  std::vector<double> tres_fraction;
  // Unbiased (value − NICE_OFFSET); clamped to [−2^31, 2^31 − 1], the range
  // the biased uint32 fields of Slurm can carry back.
  std::int64_t site = 0;
  std::int64_t nice = 0;  // may be negative (an admin's boost)
};

// What the Slurm glue writes into priority_factors_object_t and the job.
struct JobPriority {
  // Weighted (factor × weight, rounded to kPriorityQuantum): what sprio prints.
  double age = 0.0;
  double assoc = 0.0;
  double fairshare = 0.0;
  double jobsize = 0.0;
  double partition = 0.0;
  double qos = 0.0;
  std::vector<double> tres;  // weighted, same length as weights.tres
  std::int64_t site = 0;     // unbiased, after clamping; add NICE_OFFSET for Slurm
  std::int64_t nice = 0;     // unbiased, after clamping; add NICE_OFFSET for Slurm
  // The sum before the conversion; >= 2^32 means priority was capped at
  // kMaxPriority (multifactor logs "exceeds 32 bits" then).
  double sum = 0.0;
  std::uint32_t priority = 1;  // in [1, kMaxPriority]
};

// Pure; no error case: malformed inputs are clamped as documented above.
JobPriority ComputeJobPriority(const PriorityWeights& weights, const JobPriorityInputs& in);

// The same on caller-owned arrays, for a pass that re-ranks every pending job
// and must not allocate for each: the TRES fractions come from
// `tres_fraction` (in.tres_fraction is not read) and the weighted TRES go to
// `tres_out` (the result's `tres` stays empty). tres_out[i] gets the i-th
// weighted TRES for i < weights.tres.size() and 0 beyond; every TRES weight
// counts in `sum` and `priority` whatever tres_out's size. Every other field
// is the one the two-argument form returns.
JobPriority ComputeJobPriority(const PriorityWeights& weights, const JobPriorityInputs& in,
                               std::span<const double> tres_fraction, std::span<double> tres_out);

}  // namespace budget
