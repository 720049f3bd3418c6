// Replay: a workload trace through a simulated Slurm-like controller, under the budget policy or a
// baseline.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/ledger.hpp"
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
  std::string partition;  // budget.conf partition asked for; empty: the default budgeted one
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
  // slurm.conf's PriorityCalcPeriod, > 0: pending priorities are recomputed
  // at every multiple of it after the first submission (the first submission
  // included) while jobs run (see Replay for why idle passes are skipped).
  std::int64_t calc_period_seconds = 300;
  std::int64_t half_life_seconds = std::int64_t{7} * 86400;  // PriorityDecayHalfLife; 0: no decay
  PriorityWeights weights;  // age, fairshare, jobsize ... as slurm.conf
  // EASY backfill: only the first `backfill_depth` pending jobs after the
  // blocked head are tried (bf_max_job_test).
  std::uint32_t backfill_depth = 1000;
  // sched/backfill's bf_interval: backfill runs at every multiple of it after
  // the first submission (while a blocked job leaves nodes idle), the main
  // scheduler at every event. 0: backfill at every event too. Slurm's default
  // is 30 s; with jobs shorter than that, a blocked head usually starts before
  // any backfill, as on a real controller.
  std::int64_t backfill_interval_seconds = 30;
  // Preempt (requeue) jobs running in the low partition when a budgeted job
  // cannot otherwise start (PreemptType=preempt/partition_prio, PreemptMode=REQUEUE).
  bool preempt_low = false;
  TimeZone zone = TimeZone::Local();  // where months begin
  // The usage before the trace (e.g. `sbudget ledger import` of the months
  // already run): both policies start from it. Empty: every project is new.
  Ledger initial_ledger;
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
  // "" when it ran to its end. Else why it did not: refused at submit or held
  // until the end, ToString(AdmissionCause): "ended", "unbudgeted-account",
  // "credit-used-up", "low-allowance-used"; "too-large" (more nodes than the
  // cluster); "pending-at-end" (queued, not held, when the replay ended).
  std::string outcome;
};

// One project (a budget.conf Project= line) in one calendar month of the
// replay: every calendar month that [first_submit, end of the replay]
// touches. The first and last months count only their part inside the replay.
struct ReplayProjectMonth {
  std::string account;
  CivilDate month;  // the 1st of the calendar month
  // expected(m) of policy.md §3 for the project month m open in this calendar
  // month (ProjectStatus::open.expected, read when the month begins, or at the
  // first submission for the first month); <= 0 when the project is ahead of
  // its line; 0 outside the project's months 1..D.
  GpuSeconds owed = 0;
  // Node-seconds run in the month x gpus_per_node, budgeted, low and
  // unbilled partitions alike (usage split at midnight of the 1st).
  GpuSeconds delivered = 0;
  GpuSeconds delivered_low = 0;  // of which in the low partition
  // Credit forfeited (MonthRow::lost) when the project month that began on
  // this month's 1st closed during the replay; 0 while it is still open.
  // Months closed before the first submission are not reported.
  GpuSeconds lost = 0;
  // Seconds of the month with at least one job of the project pending
  // (queued, held or not, not running).
  std::int64_t waiting_seconds = 0;
  // What the project was owed and given while it asked for more: `owed`
  // prorated to the waiting seconds (max(owed, 0) x waiting_seconds / the
  // month's length in days x 86,400, rounded down), and the GPU-seconds its
  // running jobs used during those seconds. A project that never waits is
  // owed nothing here: it got all it asked for. delivered_while_waiting <
  // owed_while_waiting means the scheduler served it below its line while it
  // had work queued.
  GpuSeconds owed_while_waiting = 0;
  GpuSeconds delivered_while_waiting = 0;
  // Seconds of the month spent in each lifecycle state, indexed by
  // ProjectState, as the engine reports it at each pass and month boundary
  // (usage-driven changes are seen at the pass that charges the usage).
  std::array<std::int64_t, 5> seconds_in_state{};
};

// Wait-time percentiles (seconds) of the jobs that started, per group. A
// job's wait is its last start - submit (a requeued job counts the time
// before its last start). Nearest rank: pN is the smallest wait with at
// least N% of the group's waits <= it; every field 0 when jobs = 0.
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
  // Started jobs' ids in start order (ties: in the order the scheduler
  // started them); a requeued job appears once per start.
  std::vector<std::uint64_t> start_order;
  std::vector<ReplayProjectMonth> months;  // by account (budget.conf order), then month
  // Always four groups, in this order: "small", "large" (the project's kind),
  // "unbudgeted" (accounts without a Project= line), "all".
  std::vector<WaitPercentiles> waits;
  // Hourly buckets from first_submit to makespan_end (the last one may be
  // shorter): node-seconds busy (preempted runs included) / node-seconds.
  std::vector<OccupancySample> occupancy;
  UnixTime first_submit = 0;
  UnixTime makespan_end = 0;          // last job end; first_submit when none ran
  double mean_occupancy = 0;          // busy node-seconds / (nodes x (makespan_end - first_submit))
  std::uint64_t priority_passes = 0;  // priority passes run (see Replay)
  std::uint64_t scheduler_passes = 0;  // scheduler runs: one per event instant
};

// Runs the replay. `config` is budget.conf (projects, partitions, low
// partition); jobs need not be sorted. Errors: a job with nodes = 0, run < 0
// or limit < run; options.nodes = 0; calc_period_seconds <= 0. Jobs larger
// than the cluster are not an error: they never start (outcome "too-large").
// Deterministic: the same inputs (in any order) give the same result.
//
// The simulation (one homogeneous cluster of options.nodes whole nodes; low
// partition jobs share them):
//   Time starts at the first submission. Events, processed at each instant in
//   this order: job ends (real end = start + run_seconds; usage accrued to the
//   end), a month boundary (midnight of the 1st in options.zone: running jobs
//   accrued to it, Engine::Advance closes the month, the new month's owed is
//   read), a priority pass (every calc_period_seconds from the first
//   submission; skipped while no job runs, since then every pending job is
//   held and nothing can change a hold), submissions, then the scheduler.
//   A priority pass accrues every running job since its last accrual,
//   advances the engine (decay, month closes), re-evaluates holds (kBudget)
//   and re-ranks every pending job; the queue is sorted once per pass, jobs
//   arriving in between are ranked at arrival.
//   Submission: a job asking for no partition gets budget.conf's first
//   budgeted one. kBudget: Engine::Admit decides: kReject -> never queued
//   (outcome = ToString(AdmissionCause)); kRedirect -> queued in the low
//   partition. kBaseline: every job is queued as submitted.
//   Holds (kBudget): at each pass a pending job whose project is not
//   preparatory or active and whose verdict is not kAllow is held (priority
//   0, never started) and released when the verdict is kAllow again.
//   Scheduler: pending jobs in order (priority, then submit time, then id)
//   start while they fit; with preempt_low, a job of a budgeted partition that
//   does not fit requeues running low-partition jobs (most recently started
//   first) when that frees enough nodes. The first job that still does not
//   fit gets the EASY reservation: the earliest instant at which, running
//   jobs ending at start + limit_seconds, enough nodes are free. At a
//   backfill instant (every backfill_interval_seconds, see above), at most
//   backfill_depth later jobs are tried: one starts if it fits now and either
//   ends (by its limit) by the reservation or fits in the nodes the
//   reservation leaves spare.
//   Priority: kBudget: Engine::Priority (the plugin's factor); kBaseline:
//   ComputeJobPriority with fair_share = 2^(-U/S), U = the project's decayed
//   usage / all projects' decayed usage (0 when there is none), S = its credit
//   / all credit; accounts without a Project= line get 0. Both: accrue_time =
//   submit, min_nodes = nodes, cluster_nodes = options.nodes, cluster_cpus =
//   nodes x gpus_per_node, cpus 0, time limit in whole minutes (rounded up).
//   Accounting: both policies charge the same Engine (Accrue at every pass,
//   month boundary, job end and requeue), so months, owed and lost compare.
//   The replay ends when no job runs and none is left to submit; jobs still
//   pending then are held ones (outcome: the hold's cause at the last pass).
Result<ReplayResult> Replay(const BudgetConfig& config, std::vector<TraceJob> jobs,
                            const ReplayOptions& options);

}  // namespace budget
