// Replay: a workload trace through a simulated Slurm-like controller, under the budget policy or a baseline.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/priority.hpp"
#include "budget/result.hpp"
#include "budget/units.hpp"

namespace budget {

// One job of a workload trace, with the project it is charged to.
struct TraceJob {
  std::uint64_t id = 0;            // the trace's job number (unique in a trace)
  UnixTime submit = 0;             // absolute, after ReplayTrace's time shift
  std::int64_t run_seconds = 0;    // how long it runs once started, >= 0
  std::int64_t limit_seconds = 0;  // its time limit, >= run_seconds (backfill plans with it)
  std::uint32_t nodes = 1;         // whole nodes, >= 1
  std::string user;                // trace user (SWF: the user id as text)
  std::string group;               // trace group; may be empty
  std::string account;             // the project (budget.conf account); set by the mapping
  std::string partition;           // budget.conf partition asked for; empty: the default budgeted one
};

// The policy a replay ranks pending jobs with.
enum class ReplayPolicy {
  kBudget,    // priority/budget: the Engine of the plugin, fed by the replay
  kBaseline,  // multifactor-style: static shares ∝ credit, decayed usage, no lifecycle
};
const char* ToString(ReplayPolicy policy);  // "budget", "baseline"

struct ReplayOptions {
  ReplayPolicy policy = ReplayPolicy::kBudget;
  std::uint32_t nodes = 0;          // cluster nodes, > 0
  std::uint32_t gpus_per_node = 4;  // GH200: 4
  // slurm.conf's PriorityCalcPeriod: pending priorities are recomputed at
  // every multiple of it after the first submission (and at start).
  std::int64_t calc_period_seconds = 300;
  std::int64_t half_life_seconds = 7 * 86400;  // PriorityDecayHalfLife; 0: no decay
  PriorityWeights weights;                     // age, fairshare, jobsize ... as slurm.conf
  // EASY backfill: only the first `backfill_depth` pending jobs after the
  // blocked head are tried (bf_max_job_test).
  std::uint32_t backfill_depth = 1000;
  // Preempt (requeue) jobs running in the low partition when a budgeted job
  // cannot otherwise start (PreemptType=preempt/partition_prio, PreemptMode=REQUEUE).
  bool preempt_low = false;
  TimeZone zone = TimeZone::Local();  // where months begin
};

// A job as the replay ran it.
struct ReplayedJob {
  std::uint64_t id = 0;
  std::string account;
  std::string partition;  // where it ran (the low partition after a redirect)
  UnixTime submit = 0;
  UnixTime start = -1;  // -1: never started (rejected, or left pending at the end)
  UnixTime end = -1;
  std::uint32_t nodes = 0;
  int requeues = 0;  // times preempted and requeued
  // Why it never started: "", "ended", "unbudgeted-account", "low-allowance-used",
  // "too-large" (more nodes than the cluster), "pending-at-end".
  std::string outcome;
};

// One project in one calendar month of the replay.
struct ReplayProjectMonth {
  std::string account;
  CivilDate month;                 // the 1st of the calendar month
  GpuSeconds owed = 0;             // expected consumption of the project month (policy.md §3)
  GpuSeconds delivered = 0;        // GPU-seconds run in the month (budgeted + low)
  GpuSeconds delivered_low = 0;    // of which in the low partition
  GpuSeconds lost = 0;             // credit forfeited at the month's close
  std::int64_t waiting_seconds = 0;  // seconds with at least one job pending
  // Seconds spent in each lifecycle state, indexed by ProjectState.
  std::array<std::int64_t, 5> seconds_in_state{};
};

// Wait-time percentiles (seconds) of the jobs that started, per group.
struct WaitPercentiles {
  std::string group;  // "small", "large" (project kind), "unbudgeted", "all"
  std::size_t jobs = 0;
  std::int64_t p50 = 0;
  std::int64_t p90 = 0;
  std::int64_t p99 = 0;
  std::int64_t max = 0;
};

struct OccupancySample {
  UnixTime at = 0;           // start of the bucket
  double busy_fraction = 0;  // node-seconds busy / node-seconds available in the bucket
};

struct ReplayResult {
  ReplayPolicy policy = ReplayPolicy::kBudget;
  std::vector<ReplayedJob> jobs;  // in trace order
  // Started jobs' ids in start order (ties: in the order the scheduler started them).
  std::vector<std::uint64_t> start_order;
  std::vector<ReplayProjectMonth> months;  // by account (budget.conf order), then month
  std::vector<WaitPercentiles> waits;
  std::vector<OccupancySample> occupancy;  // hourly buckets from the first submit
  UnixTime first_submit = 0;
  UnixTime makespan_end = 0;  // last job end
  double mean_occupancy = 0;  // over [first_submit, makespan_end)
  std::uint64_t priority_passes = 0;
  std::uint64_t scheduler_passes = 0;
};

// Runs the replay. `config` is budget.conf (projects, partitions, low
// partition); jobs need not be sorted. Errors: a job with nodes = 0 or
// limit < run; options.nodes = 0. Jobs larger than the cluster are not an
// error: they never start (outcome "too-large").
Result<ReplayResult> Replay(const BudgetConfig& config, std::vector<TraceJob> jobs,
                            const ReplayOptions& options);

}  // namespace budget
