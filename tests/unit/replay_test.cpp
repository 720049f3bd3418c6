// Tests of the replay (replay.hpp): EASY backfill on a hand-computed trace, the lifecycle, the
// baseline, preemption.
#include "budget/replay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "budget/config.hpp"
#include "budget/engine.hpp"

namespace budget {
namespace {

constexpr std::int64_t kHour = 3600;
constexpr GpuSeconds kGpuHour = 3600;

UnixTime At(int year, int month, int day, std::int64_t hour = 0, std::int64_t minute = 0) {
  return TimeZone::Utc().MidnightOf(CivilDate{year, month, day}) + hour * kHour + minute * 60;
}

BudgetConfig Parse(std::string_view text) {
  auto config = ParseBudgetConfig(text, "budget.conf");
  EXPECT_TRUE(config.ok()) << config.error();
  return config.ok() ? config.value() : BudgetConfig{};
}

TraceJob Job(std::uint64_t id, std::string account, UnixTime submit, std::uint32_t nodes,
             std::int64_t run, std::int64_t limit, std::string partition = "") {
  TraceJob job;
  job.id = id;
  job.submit = submit;
  job.run_seconds = run;
  job.limit_seconds = limit;
  job.nodes = nodes;
  job.user = "u" + std::to_string(id);
  job.account = std::move(account);
  job.partition = std::move(partition);
  return job;
}

ReplayOptions Options(std::uint32_t nodes, ReplayPolicy policy = ReplayPolicy::kBudget) {
  ReplayOptions options;
  options.policy = policy;
  options.nodes = nodes;
  options.zone = TimeZone::Utc();
  return options;
}

ReplayResult RunReplay(const BudgetConfig& config, std::vector<TraceJob> jobs,
                       const ReplayOptions& options) {
  auto result = Replay(config, std::move(jobs), options);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.ok() ? std::move(result).value() : ReplayResult{};
}

const ReplayedJob& Find(const ReplayResult& result, std::uint64_t id) {
  const auto found = std::find_if(result.jobs.begin(), result.jobs.end(),
                                  [id](const ReplayedJob& job) { return job.id == id; });
  static const ReplayedJob missing;
  if (found == result.jobs.end()) {
    ADD_FAILURE() << "job " << id << " missing";
    return missing;
  }
  return *found;
}

const ReplayProjectMonth& Month(const ReplayResult& result, std::string_view account, int month) {
  const auto found = std::find_if(
      result.months.begin(), result.months.end(),
      [&](const ReplayProjectMonth& m) { return m.account == account && m.month.month == month; });
  static const ReplayProjectMonth missing;
  if (found == result.months.end()) {
    ADD_FAILURE() << account << " month " << month << " missing";
    return missing;
  }
  return *found;
}

// Two small projects of 600 GPUh (100 GPUh a month, grace 50%), active in April 2026.
constexpr std::string_view kTwoProjects =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=alpha Kind=small Credit=600 Created=2026-03-15 PIs=ana.muster@unibe.ch\n"
    "Project=beta Kind=small Credit=600 Created=2026-03-15 PIs=ben.muster@unibe.ch\n";

// The golden trace: 2 nodes, every weight 0 (all priorities 1: first come,
// first served, then by id), starting two hours before midnight of 1 May.
//
//   id account submit nodes run  limit  start   end     why
//   1  alpha   +0     1     1h   1h     +0      +1h     fits
//   2  beta    +0     2     1h   2h     +1h     +2h     head; reservation at +1h (job 1's limit)
//   3  alpha   +0     1     30m  1h     +0      +30m    backfilled: +0 + 1h <= +1h
//   4  beta    +0     1     10m  10m    +30m    +40m    backfilled at job 3's end
//   5  alpha   +0     1     1h   2h     +2h     +3h     +40m + 2h > +1h, no spare node: waits
//   6  beta    +50m   1     20m  30m    +2h     +2h20m  +50m + 30m > +1h: waits
std::vector<TraceJob> GoldenTrace(UnixTime t0) {
  return {
      Job(1, "alpha", t0, 1, kHour, kHour),     Job(2, "beta", t0, 2, kHour, 2 * kHour),
      Job(3, "alpha", t0, 1, kHour / 2, kHour), Job(4, "beta", t0, 1, 600, 600),
      Job(5, "alpha", t0, 1, kHour, 2 * kHour), Job(6, "beta", t0 + 3000, 1, 1200, 1800),
  };
}

TEST(Replay, GoldenTraceBackfillsAndReserves) {
  const BudgetConfig config = Parse(kTwoProjects);
  const UnixTime t0 = At(2026, 4, 30, 22);
  const ReplayResult result = RunReplay(config, GoldenTrace(t0), Options(2));

  EXPECT_EQ(result.start_order, (std::vector<std::uint64_t>{1, 3, 4, 2, 5, 6}));
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {
      {0, kHour},   {kHour, 2 * kHour},     {0, 1800},
      {1800, 2400}, {2 * kHour, 3 * kHour}, {2 * kHour, 2 * kHour + 1200}};
  ASSERT_EQ(result.jobs.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(result.jobs[i].id, i + 1);
    EXPECT_EQ(result.jobs[i].start - t0, expected[i].first) << "job " << i + 1;
    EXPECT_EQ(result.jobs[i].end - t0, expected[i].second) << "job " << i + 1;
    EXPECT_EQ(result.jobs[i].outcome, "");
    EXPECT_EQ(result.jobs[i].partition, "normal");
  }
  EXPECT_EQ(result.first_submit, t0);
  EXPECT_EQ(result.makespan_end, t0 + 3 * kHour);

  // April: alpha ran 1h + 30m on one node, beta 2 nodes x 1h + 10m; 4 GPUs a node.
  const ReplayProjectMonth& alpha_april = Month(result, "alpha", 4);
  const ReplayProjectMonth& beta_april = Month(result, "beta", 4);
  EXPECT_EQ(alpha_april.delivered, 5400 * 4);
  EXPECT_EQ(beta_april.delivered, 7800 * 4);
  EXPECT_EQ(alpha_april.delivered_low, 0);
  // Month 1 of 6 of 600 GPUh: expected 100 GPUh, minimal 50 GPUh (grace 50%).
  EXPECT_EQ(alpha_april.owed, 100 * kGpuHour);
  EXPECT_EQ(alpha_april.lost, 50 * kGpuHour - std::int64_t{5400} * 4);
  EXPECT_EQ(beta_april.lost, 50 * kGpuHour - std::int64_t{7800} * 4);
  // Both had a job pending from +0 to midnight.
  EXPECT_EQ(alpha_april.waiting_seconds, 2 * kHour);
  EXPECT_EQ(beta_april.waiting_seconds, 2 * kHour);
  EXPECT_EQ(alpha_april.seconds_in_state[static_cast<std::size_t>(ProjectState::kActive)],
            2 * kHour);
  // Everything either ran in April ran while it had a job queued; 2 hours of
  // April's 720 are owed 100 GPUh x 2/720 = 1,000 GPU-seconds.
  EXPECT_EQ(alpha_april.delivered_while_waiting, alpha_april.delivered);
  EXPECT_EQ(beta_april.delivered_while_waiting, beta_april.delivered);
  EXPECT_EQ(alpha_april.owed_while_waiting, 1000);

  // May: month 2 expects ideal 200 - accounted 50 (the minimal, used < minimal).
  const ReplayProjectMonth& alpha_may = Month(result, "alpha", 5);
  EXPECT_EQ(alpha_may.owed, 150 * kGpuHour);
  EXPECT_EQ(alpha_may.delivered, kHour * 4);
  EXPECT_EQ(Month(result, "beta", 5).delivered, 1200 * 4);
  EXPECT_EQ(alpha_may.lost, 0);  // month 2 is still open
  EXPECT_EQ(alpha_may.waiting_seconds, 0);
  // Job 5 ran in May with nothing of alpha queued: owed and given nothing there.
  EXPECT_EQ(alpha_may.delivered_while_waiting, 0);
  EXPECT_EQ(alpha_may.owed_while_waiting, 0);
  // beta's job 6 waited 1h10m in April and ran 20 min in May, alone.
  EXPECT_EQ(Month(result, "beta", 5).delivered_while_waiting, 0);
  EXPECT_EQ(result.months.size(), 4U);

  // Waits 0, 0, 30m, 1h, 70m, 2h.
  const WaitPercentiles& all = result.waits.back();
  EXPECT_EQ(all.group, "all");
  EXPECT_EQ(all.jobs, 6U);
  EXPECT_EQ(all.p50, 1800);
  EXPECT_EQ(all.p90, 2 * kHour);
  EXPECT_EQ(all.max, 2 * kHour);
  EXPECT_EQ(result.waits[0].group, "small");
  EXPECT_EQ(result.waits[0].jobs, 6U);
  EXPECT_EQ(result.waits[2].jobs, 0U);

  // Hourly occupancy: 6000, 7200 and 4800 node-seconds of 7200.
  ASSERT_EQ(result.occupancy.size(), 3U);
  EXPECT_DOUBLE_EQ(result.occupancy[0].busy_fraction, 6000.0 / 7200.0);
  EXPECT_DOUBLE_EQ(result.occupancy[1].busy_fraction, 1.0);
  EXPECT_DOUBLE_EQ(result.occupancy[2].busy_fraction, 4800.0 / 7200.0);
  EXPECT_DOUBLE_EQ(result.mean_occupancy, 18000.0 / 21600.0);
  EXPECT_GT(result.priority_passes, 0U);
  EXPECT_GT(result.scheduler_passes, 0U);
}

TEST(Replay, BackfillDepthZeroDisablesBackfill) {
  const BudgetConfig config = Parse(kTwoProjects);
  const UnixTime t0 = At(2026, 4, 30, 22);
  ReplayOptions options = Options(2);
  options.backfill_depth = 0;
  const ReplayResult result = RunReplay(config, GoldenTrace(t0), options);
  // Without backfill, job 3 waits behind job 2 although it would fit.
  EXPECT_EQ(result.start_order, (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Find(result, 3).start - t0, 2 * kHour);
}

TEST(Replay, BackfillWaitsForItsInterval) {
  const BudgetConfig config = Parse(kTwoProjects);
  const UnixTime t0 = At(2026, 4, 10);
  // Job 2 (both nodes) waits for job 1; job 3, submitted at +5 s, fits beside
  // job 1 and ends long before job 2's reservation at +100 s.
  const std::vector<TraceJob> trace = {Job(1, "alpha", t0, 1, 100, 100),
                                       Job(2, "beta", t0, 2, 60, 60),
                                       Job(3, "alpha", t0 + 5, 1, 10, 10)};
  ReplayOptions options = Options(2);
  const ReplayResult slurm_like = RunReplay(config, trace, options);
  EXPECT_EQ(Find(slurm_like, 3).start, t0 + 30);  // the next bf_interval after t0
  EXPECT_EQ(Find(slurm_like, 2).start, t0 + 100);

  options.backfill_interval_seconds = 0;
  const ReplayResult every_event = RunReplay(config, trace, options);
  EXPECT_EQ(Find(every_event, 3).start, t0 + 5);
  EXPECT_EQ(Find(every_event, 2).start, t0 + 100);
}

TEST(Replay, SameInputGivesSameResult) {
  const BudgetConfig config = Parse(kTwoProjects);
  const UnixTime t0 = At(2026, 4, 30, 22);
  const ReplayResult a = RunReplay(config, GoldenTrace(t0), Options(2));
  std::vector<TraceJob> shuffled = GoldenTrace(t0);
  std::reverse(shuffled.begin(), shuffled.end());
  const ReplayResult b = RunReplay(config, shuffled, Options(2));
  EXPECT_EQ(a.start_order, b.start_order);
  ASSERT_EQ(a.months.size(), b.months.size());
  for (std::size_t i = 0; i < a.months.size(); ++i) {
    EXPECT_EQ(a.months[i].delivered, b.months[i].delivered);
    EXPECT_EQ(a.months[i].lost, b.months[i].lost);
  }
  EXPECT_EQ(a.priority_passes, b.priority_passes);
  EXPECT_EQ(a.scheduler_passes, b.scheduler_passes);
}

TEST(Replay, TooLargeJobNeverStarts) {
  const BudgetConfig config = Parse(kTwoProjects);
  const UnixTime t0 = At(2026, 4, 10);
  const ReplayResult result = RunReplay(
      config, {Job(1, "alpha", t0, 3, kHour, kHour), Job(2, "alpha", t0, 2, kHour, kHour)},
      Options(2));
  EXPECT_EQ(Find(result, 1).outcome, "too-large");
  EXPECT_EQ(Find(result, 1).start, -1);
  EXPECT_EQ(Find(result, 2).start, t0);
  EXPECT_EQ(result.start_order, (std::vector<std::uint64_t>{2}));
}

TEST(Replay, RejectsInvalidInput) {
  const BudgetConfig config = Parse(kTwoProjects);
  const UnixTime t0 = At(2026, 4, 10);
  EXPECT_FALSE(Replay(config, {Job(1, "alpha", t0, 0, 10, 10)}, Options(2)).ok());
  EXPECT_FALSE(Replay(config, {Job(1, "alpha", t0, 1, 20, 10)}, Options(2)).ok());
  EXPECT_FALSE(Replay(config, {Job(1, "alpha", t0, 1, 10, 10)}, Options(0)).ok());
  const auto empty = Replay(config, {}, Options(2));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().months.empty());
  EXPECT_EQ(empty.value().waits.size(), 4U);
}

// A reproducible random trace over a month boundary: 400 jobs of 1 to 16
// nodes on 16 nodes, for both projects of kTwoProjects and a guest account.
std::vector<TraceJob> RandomTrace() {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::uint32_t> nodes(1, 16);
  std::uniform_int_distribution<std::int64_t> run(0, 4 * kHour);
  std::uniform_int_distribution<std::int64_t> gap(0, 900);
  std::uniform_int_distribution<int> account(0, 2);
  const std::vector<std::string> accounts = {"alpha", "beta", "guest"};
  std::vector<TraceJob> jobs;
  UnixTime t = At(2026, 4, 29);
  for (std::uint64_t id = 1; id <= 400; ++id) {
    t += gap(rng);
    const std::int64_t r = run(rng);
    jobs.push_back(
        Job(id, accounts[static_cast<std::size_t>(account(rng))], t, nodes(rng), r, r + run(rng)));
  }
  return jobs;
}

TEST(ReplayProperty, NeverOversubscribesAndDeliversWhatJobsRan) {
  const BudgetConfig config = Parse(kTwoProjects);
  for (const ReplayPolicy policy : {ReplayPolicy::kBudget, ReplayPolicy::kBaseline}) {
    ReplayOptions options = Options(16, policy);
    options.weights.age = 1000;
    options.weights.max_age_seconds = 86400;
    options.weights.fairshare = 100'000;
    options.weights.jobsize = 500;
    options.backfill_depth = 50;
    const ReplayResult result = RunReplay(config, RandomTrace(), options);
    // Node count over time from the start and end instants (ends first).
    std::vector<std::pair<UnixTime, std::int64_t>> steps;
    std::map<std::string, GpuSeconds> ran;
    std::size_t started = 0;
    for (const ReplayedJob& job : result.jobs) {
      // The projects' 600 GPUh run out under budget: then jobs are refused or held.
      if (job.start < 0) {
        ASSERT_NE(job.outcome, "") << "job " << job.id;
        ASSERT_NE(policy, ReplayPolicy::kBaseline) << "job " << job.id;
        continue;
      }
      ++started;
      ASSERT_GE(job.start, job.submit) << "job " << job.id;
      ASSERT_EQ(job.outcome, "") << "job " << job.id;
      steps.emplace_back(job.start, job.nodes);
      steps.emplace_back(job.end, -static_cast<std::int64_t>(job.nodes));
      ran[job.account] += (job.end - job.start) * job.nodes * 4;
    }
    std::sort(steps.begin(), steps.end());
    std::int64_t busy = 0;
    for (const auto& [at, delta] : steps) {
      busy += delta;
      ASSERT_LE(busy, 16) << "at " << at;
    }
    std::map<std::string, GpuSeconds> delivered;
    for (const ReplayProjectMonth& m : result.months) {
      delivered[m.account] += m.delivered;
      EXPECT_LE(m.delivered_while_waiting, m.delivered) << m.account;
      EXPECT_GE(m.delivered_while_waiting, 0) << m.account;
    }
    EXPECT_EQ(delivered["alpha"], ran["alpha"]) << ToString(policy);
    EXPECT_EQ(delivered["beta"], ran["beta"]) << ToString(policy);
    EXPECT_EQ(result.start_order.size(), started);
    EXPECT_EQ(result.waits[2].group, "unbudgeted");
    EXPECT_EQ(result.waits[0].jobs + result.waits[2].jobs, started);
    EXPECT_EQ(result.waits[3].jobs, started);
    if (policy == ReplayPolicy::kBaseline) {
      EXPECT_EQ(started, 400U);
    } else {
      EXPECT_LT(started, 400U);  // the lifecycle bites
    }
  }
}

// tiny: 8 GPUh over 6 months, low allowance 8/6 GPUh = 4,800 GPU-seconds.
// gone: ended on 30 September 2025.
constexpr std::string_view kLifecycle =
    "UnbudgetedAccounts=reject NodeHourPrice=2025:2.69,2026:2.69\n"
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=tiny Kind=small Credit=8 Created=2026-03-15 PIs=ana.muster@unibe.ch\n"
    "Project=gone Kind=small Credit=600 Created=2025-03-15 PIs=ben.muster@unibe.ch\n";

TEST(ReplayAdmission, HoldsRedirectsAndRejectsAsThePluginDoes) {
  const BudgetConfig config = Parse(kLifecycle);
  const UnixTime t0 = At(2026, 4, 10);
  const UnixTime used_up = t0 + 3 * kHour;  // job 1 has used 12 of 8 GPUh
  const ReplayResult result =
      RunReplay(config,
                {
                    Job(1, "tiny", t0, 1, 3 * kHour, 3 * kHour),
                    Job(2, "tiny", t0 + 60, 1, 600, 600),  // pending when the credit runs out
                    Job(3, "tiny", used_up + 100, 1, kHour, kHour),            // moved to low
                    Job(4, "tiny", used_up + 100 + kHour + 100, 1, 600, 600),  // allowance used
                    Job(5, "gone", t0 + 60, 1, 600, 600),
                    Job(6, "nobody", t0 + 60, 1, 600, 600),
                },
                Options(1));

  EXPECT_EQ(Find(result, 1).start, t0);
  // Held at the pass that sees the credit used up, never released; its
  // outcome is the hold reason of the last pass (the project is blocked by then).
  EXPECT_EQ(Find(result, 2).start, -1);
  EXPECT_EQ(Find(result, 2).outcome, "low-allowance-used");
  EXPECT_EQ(Find(result, 3).partition, "low");
  EXPECT_EQ(Find(result, 3).start, used_up + 100);
  EXPECT_EQ(Find(result, 3).outcome, "");
  EXPECT_EQ(Find(result, 4).outcome, "low-allowance-used");
  EXPECT_EQ(Find(result, 4).start, -1);
  EXPECT_EQ(Find(result, 5).outcome, "ended");
  EXPECT_EQ(Find(result, 6).outcome, "unbudgeted-account");
  EXPECT_EQ(result.start_order, (std::vector<std::uint64_t>{1, 3}));

  const ReplayProjectMonth& april = Month(result, "tiny", 4);
  EXPECT_EQ(april.delivered, 4 * kHour * 4);
  EXPECT_EQ(april.delivered_low, kHour * 4);
  // Active until the pass that charges the 8th GPU hour (2 hours of job 1),
  // then low until job 3 has used the allowance, then blocked.
  EXPECT_EQ(april.seconds_in_state[static_cast<std::size_t>(ProjectState::kActive)], 2 * kHour);
  EXPECT_GT(april.seconds_in_state[static_cast<std::size_t>(ProjectState::kLow)], 0);
  EXPECT_GT(april.seconds_in_state[static_cast<std::size_t>(ProjectState::kBlocked)], 0);
}

TEST(ReplayAdmission, MonthsCoverARefusalAfterTheLastEnd) {
  const BudgetConfig config = Parse(kLifecycle);
  const UnixTime t0 = At(2026, 4, 10);
  const UnixTime refused = At(2026, 5, 5);
  const ReplayResult result =
      RunReplay(config, {Job(1, "tiny", t0, 1, kHour, kHour), Job(2, "gone", refused, 1, 600, 600)},
                Options(1));
  EXPECT_EQ(Find(result, 2).outcome, "ended");
  EXPECT_EQ(result.makespan_end, t0 + kHour);
  // Every second from the first submission to the last event is in one state.
  for (const std::string_view account : {"tiny", "gone"}) {
    std::int64_t total = 0;
    for (const ReplayProjectMonth& m : result.months) {
      if (m.account == account) {
        for (const std::int64_t seconds : m.seconds_in_state) {
          EXPECT_GE(seconds, 0);
          total += seconds;
        }
      }
    }
    EXPECT_EQ(total, refused - t0) << account;
  }
  EXPECT_EQ(
      Month(result, "gone", 5).seconds_in_state[static_cast<std::size_t>(ProjectState::kEnded)],
      refused - At(2026, 5, 1));
  // tiny used 4 of its 8 GPUh in April, above the minimal: nothing lost.
  EXPECT_EQ(Month(result, "tiny", 4).lost, 0);
  EXPECT_EQ(Month(result, "tiny", 5).owed, GpuHours(8) * 2 / 6 - GpuHours(4));
}

TEST(ReplayAdmission, BaselineAdmitsEveryJobAsSubmitted) {
  const BudgetConfig config = Parse(kLifecycle);
  const UnixTime t0 = At(2026, 4, 10);
  const ReplayResult result = RunReplay(config,
                                        {
                                            Job(1, "tiny", t0, 1, 3 * kHour, 3 * kHour),
                                            Job(2, "tiny", t0 + 60, 1, 600, 600),
                                            Job(5, "gone", t0 + 60, 1, 600, 600),
                                        },
                                        Options(1, ReplayPolicy::kBaseline));
  EXPECT_EQ(Find(result, 2).start, t0 + 3 * kHour);
  EXPECT_EQ(Find(result, 2).partition, "normal");
  EXPECT_EQ(Find(result, 5).outcome, "");
  EXPECT_EQ(Find(result, 5).start, t0 + 3 * kHour + 600);
}

// behind: 24 GPUh over 6 months from March (4 GPUh a month); used 6 GPUh in
// March, so April expects 8 - 6 = 2 GPUh: behind its line until it runs.
// ahead: 48 GPUh from April (8 GPUh a month); uses its 8 GPUh on 1 April:
// at its line, so ahead. By share of all usage over share of credit, the
// baseline sees behind as the heavier user (6/14 of the usage for 1/3 of the
// credit) and ranks ahead first.
constexpr std::string_view kBehindAndAhead =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=behind Kind=small Credit=24 Created=2026-02-10 PIs=ana.muster@unibe.ch\n"
    "Project=ahead Kind=small Credit=48 Created=2026-03-10 PIs=ben.muster@unibe.ch\n";

std::vector<TraceJob> BehindAndAheadTrace() {
  return {
      Job(1, "behind", At(2026, 3, 2), 1, 5400, 5400),
      Job(2, "ahead", At(2026, 4, 1, 1), 1, 2 * kHour, 2 * kHour),
      Job(3, "someone", At(2026, 4, 1, 3), 1, kHour, kHour),  // keeps the node busy
      Job(4, "ahead", At(2026, 4, 1, 3, 10), 1, 600, 600),
      Job(5, "behind", At(2026, 4, 1, 3, 20), 1, 600, 600),  // later, yet first under budget
  };
}

TEST(ReplayBaseline, ProjectBehindItsLineGoesFirstUnderBudgetNotUnderBaseline) {
  const BudgetConfig config = Parse(kBehindAndAhead);
  ReplayOptions options = Options(1);
  options.half_life_seconds = 0;
  options.weights.fairshare = 1'000'000;

  const ReplayResult budget = RunReplay(config, BehindAndAheadTrace(), options);
  EXPECT_EQ(budget.start_order, (std::vector<std::uint64_t>{1, 2, 3, 5, 4}));
  EXPECT_EQ(Find(budget, 5).start, At(2026, 4, 1, 4));

  options.policy = ReplayPolicy::kBaseline;
  const ReplayResult baseline = RunReplay(config, BehindAndAheadTrace(), options);
  EXPECT_EQ(baseline.policy, ReplayPolicy::kBaseline);
  EXPECT_EQ(baseline.start_order, (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(Find(baseline, 4).start, At(2026, 4, 1, 4));

  // The same accounting under both: behind used 6 GPUh in March, lost nothing.
  for (const ReplayResult* r : {&budget, &baseline}) {
    EXPECT_EQ(Month(*r, "behind", 3).delivered, 6 * kGpuHour);
    EXPECT_EQ(Month(*r, "behind", 3).lost, 0);
    EXPECT_EQ(Month(*r, "behind", 4).owed, 2 * kGpuHour);
    EXPECT_EQ(Month(*r, "ahead", 4).owed, 8 * kGpuHour);
  }
}

TEST(Replay, StartsFromTheInitialLedger) {
  const BudgetConfig config = Parse(kTwoProjects);
  ReplayOptions options = Options(1);
  options.weights.fairshare = 1'000'000;
  // Without history the tie goes to the first submitted: alpha's job 1.
  const std::vector<TraceJob> trace = {Job(1, "alpha", At(2026, 4, 10), 1, 600, 600),
                                       Job(2, "beta", At(2026, 4, 10), 1, 600, 600)};
  EXPECT_EQ(RunReplay(config, trace, options).start_order, (std::vector<std::uint64_t>{1, 2}));

  // alpha already ran 80 of its 100 GPUh this month: beta, further behind, goes first.
  const UnixTime before = At(2026, 4, 2);
  options.initial_ledger.Accrue(TermsOf(config.projects[0]), TimeZone::Utc(), "ana",
                                config.partitions[0], 1, before, before + 20 * kHour);
  const ReplayResult replayed = RunReplay(config, trace, options);
  EXPECT_EQ(replayed.start_order, (std::vector<std::uint64_t>{2, 1}));
  EXPECT_EQ(Month(replayed, "alpha", 4).delivered, 600 * 4);  // the trace's share only
}

TEST(ReplayPreemption, BudgetedJobRequeuesLowJobs) {
  const BudgetConfig config = Parse(kTwoProjects);
  const UnixTime t0 = At(2026, 4, 10);
  const std::vector<TraceJob> trace = {
      Job(1, "alpha", t0, 2, 10'000, 10'000, "low"),
      Job(2, "beta", t0 + 100, 1, 600, 600),
  };
  ReplayOptions options = Options(2);
  options.preempt_low = true;
  const ReplayResult preempting = RunReplay(config, trace, options);
  EXPECT_EQ(Find(preempting, 2).start, t0 + 100);
  EXPECT_EQ(Find(preempting, 1).requeues, 1);
  // Back in the queue, it needs both nodes: it restarts when job 2 ends.
  EXPECT_EQ(Find(preempting, 1).start, t0 + 700);
  EXPECT_EQ(Find(preempting, 1).end, t0 + 700 + 10'000);
  EXPECT_EQ(preempting.start_order, (std::vector<std::uint64_t>{1, 2, 1}));
  // The 100 s of the first run stay delivered.
  EXPECT_EQ(Month(preempting, "alpha", 4).delivered_low, 2 * (100 + 10'000) * 4);

  options.preempt_low = false;
  const ReplayResult waiting = RunReplay(config, trace, options);
  EXPECT_EQ(Find(waiting, 2).start, t0 + 10'000);
  EXPECT_EQ(Find(waiting, 1).requeues, 0);
}

}  // namespace
}  // namespace budget
