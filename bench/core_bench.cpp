// Microbenchmarks of the core: what a priority/budget pass costs slurmctld, per job and project.
//
// Every benchmark reports items/s; `per_item` is its inverse (seconds per job,
// project or sample), the number docs/performance.md tabulates. Sizes are the
// last arguments of each name (BM_PriorityPass/100000: 100,000 pending jobs).
// Sites are synthetic but deterministic (bench_world.hpp).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <vector>

#include "bench_world.hpp"
#include "budget/budget.h"
#include "budget/engine.hpp"
#include "budget/fairshare.hpp"
#include "budget/ledger.hpp"
#include "budget/priority.hpp"
#include "budget/state_file.hpp"

namespace budget::bench {
namespace {

// The site of the last benchmark that asked, rebuilt only when the shape
// changes: building 100,000 projects takes seconds, and arguments run in order.
Site& SiteOf(int projects, int users) {
  static std::unique_ptr<Site> site;
  if (!site || site->spec().projects != projects || site->spec().users != users) {
    site.reset();  // free the old one first: two large sites need not fit together
    site = std::make_unique<Site>(SiteSpec{projects, users});
  }
  return *site;
}

void PerItem(benchmark::State& state, std::int64_t items_per_iteration) {
  state.SetItemsProcessed(state.iterations() * items_per_iteration);
  state.counters["per_item"] = benchmark::Counter(
      static_cast<double>(items_per_iteration),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The e2e site: 500 projects of 4 users (scripts/bench-e2e.sh).
constexpr int kSiteProjects = 500;
constexpr int kSiteUsers = 4;
// Rows a budget_engine_associations call asks: priority_budget.c's PUBLISH_BATCH.
constexpr std::size_t kPublishBatch = 128;

// One job's priority from its inputs, no engine: the arithmetic alone.
void BM_ComputeJobPriority(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const std::vector<PendingJob> jobs = MakePendingJobs(site, 1024);
  const PriorityWeights weights = SiteWeights();
  std::array<double, kTresCount> tres{};
  std::size_t i = 0;
  for (auto _ : state) {
    const PendingJob& job = jobs[i++ & 1023];
    benchmark::DoNotOptimize(ComputeJobPriority(weights, job.inputs, job.tres_fraction, tres));
  }
  PerItem(state, 1);
}
BENCHMARK(BM_ComputeJobPriority);

// A periodic pass re-ranking N pending jobs with Engine::Priority (its
// allocation-free form): a new `now` each pass, so every project's factors are
// computed again, once, in the pass.
void BM_PriorityPass(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<PendingJob> jobs = MakePendingJobs(site, n);
  Engine& engine = site.engine();
  std::array<double, kTresCount> tres{};
  UnixTime now = BenchNow();
  for (auto _ : state) {
    ++now;
    for (const PendingJob& job : jobs) {
      JobPriorityInputs in = job.inputs;
      in.now = now;
      benchmark::DoNotOptimize(engine.Priority(site.account(job.project),
                                               kJobPartitions[job.partition], std::move(in),
                                               job.tres_fraction, tres));
    }
  }
  PerItem(state, state.range(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_PriorityPass)
    ->RangeMultiplier(10)
    ->Range(1'000, 1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

// A pending job as the plugin hands it to the C ABI.
budget_job CJobOf(const Site& site, const PendingJob& job, UnixTime now) {
  const JobPriorityInputs& in = job.inputs;
  return {
      .now = now,
      .accrue_time = in.accrue_time,
      .account = site.account(job.project).c_str(),
      .partition = kJobPartitions[job.partition],
      .assoc_norm = in.assoc_norm,
      .qos_norm = in.qos_norm,
      .partition_norm = in.partition_norm,
      .min_nodes = in.min_nodes,
      .cpus = in.cpus,
      .cluster_nodes = in.cluster_nodes,
      .cluster_cpus = in.cluster_cpus,
      .time_limit_minutes = in.time_limit_minutes,
      .tres_count = kTresCount,
      .tres_fraction = job.tres_fraction.data(),
      .site = in.site,
      .nice = in.nice,
  };
}

// The factor a job of `ranking`'s project gets in a partition of `role`, as
// priority_budget.c's _known_fair_share picks it.
double FairShareIn(const budget_project_ranking& ranking, budget_partition_role role) {
  switch (role) {
    case BUDGET_PARTITION_BUDGETED:
      return ranking.fair_share_budgeted;
    case BUDGET_PARTITION_LOW:
      return ranking.fair_share_low;
    case BUDGET_PARTITION_UNBUDGETED:
      break;
  }
  return 0.0;
}

// Each partition of kJobPartitions' role in the site's budget.conf, in order.
using PartitionRoles = std::array<budget_partition_role, std::size(kJobPartitions)>;
PartitionRoles RolesOf(budget_engine* engine) {
  PartitionRoles roles{};
  for (std::size_t p = 0; p < roles.size(); ++p) {
    roles[p] = budget_engine_partition_role(engine, kJobPartitions[p]);
  }
  return roles;
}

// One job's priority from its project's factor, resolved beforehand, as the
// pass's ranking walk asks it (budget_job_priority_weighted, on the plugin's
// copy of the weights).
void RankResolved(const budget_priority_weights* weights, const budget_job& c_job,
                  double fair_share, double* tres, budget_error* err) {
  budget_job_priority out = {};
  out.tres = tres;
  benchmark::DoNotOptimize(budget_job_priority_weighted(weights, &c_job, fair_share, &out, err));
  benchmark::DoNotOptimize(out.priority);
}

// The same pass through the C ABI, exactly as priority_budget.c calls it.
void BM_PriorityPassCApi(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<PendingJob> jobs = MakePendingJobs(site, n);
  budget_engine* engine = site.c_engine();
  double tres[kTresCount];
  budget_error err;
  UnixTime now = BenchNow();
  for (auto _ : state) {
    ++now;
    for (const PendingJob& job : jobs) {
      const budget_job c_job = CJobOf(site, job, now);
      budget_job_priority out = {};
      out.tres = tres;
      benchmark::DoNotOptimize(budget_engine_job_priority(engine, &c_job, &out, &err));
      benchmark::DoNotOptimize(out.priority);
    }
  }
  PerItem(state, state.range(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_PriorityPassCApi)
    ->RangeMultiplier(10)
    ->Range(1'000, 1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

// One new job's priority at submission, as priority_p_set asks for it: each
// submission from the next project (the e2e's timed sbatch go round the
// accounts), the clock a second further every kSubmitsPerSecond of them, so
// that nearly every call finds its project's factors from an earlier second.
constexpr int kSubmitsPerSecond = 120;

// Those submissions, one a call of Next; Next(false) keeps the clock still.
class Submissions {
 public:
  explicit Submissions(Site& site)
      : site_(site), jobs_(MakePendingJobs(site, kSiteProjects)), engine_(site.c_engine()) {}

  void Next(bool move_clock) {
    const PendingJob& job = NextJob(move_clock);  // before now_ is read
    RankByName(CJobOf(site_, job, now_));
  }

  // The same submission ranked as priority_p_set ranks a job of an
  // association its last pass resolved: the engine's steady generation read,
  // then, while it is the ranking's, the factor from that pass's table
  // (`rankings`, one a project) and the partition's role, nothing looked up
  // by name.
  void NextResolved(bool move_clock, const std::vector<budget_project_ranking>& rankings,
                    const PartitionRoles& roles) {
    const PendingJob& job = NextJob(move_clock);  // before now_ is read
    const budget_project_ranking& ranking = rankings[static_cast<std::size_t>(job.project)];
    const budget_job c_job = CJobOf(site_, job, now_);
    if (budget_engine_steady_generation(engine_, now_) != ranking.generation) {
      RankByName(c_job);
      return;
    }
    RankResolved(site_.c_weights(), c_job,
                 FairShareIn(ranking, roles[static_cast<std::size_t>(job.partition)]), tres_,
                 &err_);
  }

 private:
  // The job's priority asked of the engine by name, as priority_p_set asks it
  // when the last pass's factors are not the engine's.
  void RankByName(const budget_job& c_job) {
    budget_job_priority out = {};
    out.tres = tres_;
    benchmark::DoNotOptimize(budget_engine_job_priority(engine_, &c_job, &out, &err_));
    benchmark::DoNotOptimize(out.priority);
  }

  // The next submission's job, the clock moved first when `move_clock` says so.
  const PendingJob& NextJob(bool move_clock) {
    if (move_clock && next_ % kSubmitsPerSecond == 0) {
      ++now_;
    }
    return jobs_[next_++ % jobs_.size()];
  }

  Site& site_;
  std::vector<PendingJob> jobs_;
  budget_engine* engine_;
  double tres_[kTresCount] = {};
  budget_error err_ = {};
  UnixTime now_ = BenchNow();
  std::size_t next_ = 0;
};

void BM_SubmitPriority(benchmark::State& state) {
  Submissions submissions(SiteOf(kSiteProjects, kSiteUsers));
  for (auto _ : state) {
    submissions.Next(true);
  }
}
BENCHMARK(BM_SubmitPriority);

// The same call with caches as slurmctld leaves them between two submissions
// (evict: 1): before each call, outside the timing, 64 MiB are written, which
// pushes the engine's data and code out of the core's own caches (L1, L2, the
// TLB) and, as far as its size allows, out of the shared L3. With evict: 0
// the timing is the same, the pause included (about 0.3 µs). new_second: 1
// moves the clock as BM_SubmitPriority does, so that nearly every call
// computes its project's view; 0 keeps one instant, every factor cached.
// resolved: 1 ranks from the last pass's resolution while the engine's
// generation is its (NextResolved), as priority_p_set does; 0 asks the
// engine by name, as priority_p_set does otherwise.
void BM_SubmitPriorityCold(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  Submissions submissions(site);
  const bool evict = state.range(0) != 0;
  const bool new_second = state.range(1) != 0;
  const bool resolved = state.range(2) != 0;
  budget_engine* engine = site.c_engine();
  budget_error err;
  std::vector<budget_project_ranking> rankings(static_cast<std::size_t>(kSiteProjects));
  for (int p = 0; p < kSiteProjects; ++p) {
    budget_engine_project_ranking(engine, site.account(p).c_str(), BenchNow(),
                                  &rankings[static_cast<std::size_t>(p)], &err);
  }
  const PartitionRoles roles = RolesOf(engine);
  std::vector<unsigned char> other_work(std::size_t{64} << 20);
  for (auto _ : state) {
    state.PauseTiming();
    if (evict) {
      for (std::size_t byte = 0; byte < other_work.size(); byte += 64) {
        ++other_work[byte];
      }
    }
    state.ResumeTiming();
    if (resolved) {
      submissions.NextResolved(new_second, rankings, roles);
    } else {
      submissions.Next(new_second);
    }
  }
  benchmark::DoNotOptimize(other_work.data());
}
BENCHMARK(BM_SubmitPriorityCold)
    ->ArgNames({"evict", "new_second", "resolved"})
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}})
    ->Iterations(1'000)
    ->Unit(benchmark::kMicrosecond);

// The same pass as priority_budget.c makes it since each association's project
// is resolved once a pass (assoc_rankings.c): one budget_engine_project_ranking
// per project, then every job ranked from its partition's factor with
// budget_job_priority_weighted, nothing looked up by name.
void BM_PriorityPassCApiResolved(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<PendingJob> jobs = MakePendingJobs(site, n);
  budget_engine* engine = site.c_engine();
  const PartitionRoles roles = RolesOf(engine);
  std::vector<budget_project_ranking> rankings(static_cast<std::size_t>(kSiteProjects));
  double tres[kTresCount];
  budget_error err;
  UnixTime now = BenchNow();
  for (auto _ : state) {
    ++now;
    for (int p = 0; p < kSiteProjects; ++p) {
      benchmark::DoNotOptimize(budget_engine_project_ranking(
          engine, site.account(p).c_str(), now, &rankings[static_cast<std::size_t>(p)], &err));
    }
    for (const PendingJob& job : jobs) {
      RankResolved(site.c_weights(), CJobOf(site, job, now),
                   FairShareIn(rankings[static_cast<std::size_t>(job.project)],
                               roles[static_cast<std::size_t>(job.partition)]),
                   tres, &err);
    }
  }
  PerItem(state, state.range(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_PriorityPassCApiResolved)
    ->RangeMultiplier(10)
    ->Range(1'000, 1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

// The lifecycle check a pass makes for every pending job before ranking it
// (priority_budget.c's _apply_lifecycle), through the C ABI.
void BM_AdmitPass(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<PendingJob> jobs = MakePendingJobs(site, n);
  budget_engine* engine = site.c_engine();
  budget_error err;
  UnixTime now = BenchNow();
  for (auto _ : state) {
    ++now;
    std::uint32_t id = 0;
    for (const PendingJob& job : jobs) {
      const budget_admission_request request = {
          .now = now,
          .account = site.account(job.project).c_str(),
          .partitions = kJobPartitions[job.partition],
          .job_id = ++id,
      };
      budget_admission verdict;
      benchmark::DoNotOptimize(budget_engine_admit(engine, &request, &verdict, &err));
      benchmark::DoNotOptimize(verdict.action);
    }
  }
  PerItem(state, state.range(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_AdmitPass)
    ->RangeMultiplier(10)
    ->Range(1'000, 100'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

// One project's factor from its inputs, no engine.
void BM_ComputeFairShare(benchmark::State& state) {
  const FairShareInputs in = {
      .state = ProjectState::kActive,
      .expected = GpuHours(10'000),
      .used_this_month = GpuHours(4'000),
      .monthly_budget = GpuHours(10'000),
      .decayed_usage = 3.1e7,
  };
  for (auto _ : state) {
    benchmark::DoNotOptimize(ComputeFairShare(in));
  }
  PerItem(state, 1);
}
BENCHMARK(BM_ComputeFairShare);

// Fair-share of M projects with U users each, as the plugin publishes it to
// sshare every pass: at a new `now`, each project's row (its view: status,
// schedule, factor) and then each of its users' rows (the user's decayed
// usage), asked as the publish step asks them: Engine::Associations over
// batches of kPublishBatch rows. Items are projects. With
// `charge_every_project`, each project is charged a node-second before each
// pass (untimed): no project's usage summary from the pass before holds, and
// every view replays its months, the most a pass costs. Without, no project
// is: the pass after one in which nothing ran.
void FairShareRows(benchmark::State& state, Site& site, Engine& engine, bool charge_every_project) {
  const auto m = static_cast<int>(state.range(0));
  const auto u = static_cast<int>(state.range(1));
  // Each row names its account with a string of its own, as each of
  // assoc_mgr's rows does: equal names, never one pointer.
  std::vector<std::string> row_accounts;
  const auto rows = static_cast<std::size_t>(m) * static_cast<std::size_t>(u + 1);
  row_accounts.reserve(rows);  // no move: views stay valid
  std::vector<AssociationKey> keys;
  for (int p = 0; p < m; ++p) {
    for (int i = -1; i < u; ++i) {
      keys.push_back({row_accounts.emplace_back(site.account(p)),
                      i < 0 ? std::string_view() : site.user(p, i)});
    }
  }
  // Reads a row's project and user, as budget_engine_associations' sink does.
  double usage = 0.0;
  const AssociationSink sink = [&usage](std::size_t, const AssociationRow& row) {
    usage += row.user_usage + (row.project != nullptr ? row.project->fair_share.factor : 0.0);
  };
  UnixTime now = BenchNow();
  for (auto _ : state) {
    ++now;
    if (charge_every_project) {
      state.PauseTiming();
      for (int p = 0; p < m; ++p) {
        engine.Accrue(site.account(p), site.user(p, 0), "normal", 1, now - 1, now);
      }
      state.ResumeTiming();
    }
    for (std::size_t first = 0; first < keys.size(); first += kPublishBatch) {
      const std::size_t n = std::min(kPublishBatch, keys.size() - first);
      engine.Associations(std::span(keys).subspan(first, n), now, sink);
    }
    benchmark::DoNotOptimize(usage);
  }
  PerItem(state, m);
  state.SetComplexityN(m);
}

void BM_FairShare(benchmark::State& state) {
  Site& site = SiteOf(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  FairShareRows(state, site, site.engine(), false);
}
BENCHMARK(BM_FairShare)
    ->ArgNames({"projects", "users"})
    ->ArgsProduct({{10, 100, 1'000, 10'000, 100'000}, {1, 10}})
    ->Unit(benchmark::kMillisecond);

// The same with every project charged before each pass, on an engine of its
// own (the shared site's usage stays as it was).
void BM_FairShareAllCharged(benchmark::State& state) {
  Site& site = SiteOf(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const std::unique_ptr<Engine> engine = site.OpenEngine();
  FairShareRows(state, site, *engine, true);
}
BENCHMARK(BM_FairShareAllCharged)
    ->ArgNames({"projects", "users"})
    ->ArgsProduct({{1'000, 10'000}, {1, 10}})
    ->Unit(benchmark::kMillisecond);

// The same rows asked one Engine::Association a row (one lock, one project
// lookup and a copy of the view each), as the plugin asked them before
// budget_engine_associations.
void BM_FairShareByRow(benchmark::State& state) {
  const auto m = static_cast<int>(state.range(0));
  const auto u = static_cast<int>(state.range(1));
  Site& site = SiteOf(m, u);
  Engine& engine = site.engine();
  UnixTime now = BenchNow();
  for (auto _ : state) {
    ++now;
    for (int p = 0; p < m; ++p) {
      benchmark::DoNotOptimize(engine.Association(site.account(p), {}, now));
      for (int i = 0; i < u; ++i) {
        benchmark::DoNotOptimize(engine.Association(site.account(p), site.user(p, i), now));
      }
    }
  }
  PerItem(state, m);
  state.SetComplexityN(m);
}
BENCHMARK(BM_FairShareByRow)
    ->ArgNames({"projects", "users"})
    ->ArgsProduct({{1'000, 10'000}, {1, 10}})
    ->Unit(benchmark::kMillisecond);

// The engine's share of a pass's publish step on the e2e site: for each
// project its account's row, then each user's row, in assoc_mgr's order. The
// rows through budget_engine_association (one call a row: Arg 1), or as the
// plugin asked before (Arg 0): the view, the ranking and, for a user's row,
// the usage, each by name. Items are rows.
void BM_PublishRows(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const bool one_call = state.range(0) != 0;
  budget_engine* engine = site.c_engine();
  budget_error err;
  UnixTime now = BenchNow();
  auto row = [&](const char* account, const char* user) {
    if (one_call) {
      budget_association out;
      benchmark::DoNotOptimize(budget_engine_association(engine, account, user, now, &out, &err));
      return;
    }
    budget_project_view view;
    budget_project_ranking ranking;
    double usage = 0.0;
    benchmark::DoNotOptimize(budget_engine_project(engine, account, now, &view, &err));
    benchmark::DoNotOptimize(budget_engine_project_ranking(engine, account, now, &ranking, &err));
    if (user != nullptr) {
      benchmark::DoNotOptimize(budget_engine_user_usage(engine, account, user, &usage, &err));
    }
  };
  for (auto _ : state) {
    ++now;
    budget_engine_advance(engine, now, &err);  // as the pass: the views are of a new instant
    for (int p = 0; p < kSiteProjects; ++p) {
      row(site.account(p).c_str(), nullptr);
      for (int u = 0; u < kSiteUsers; ++u) {
        row(site.account(p).c_str(), site.user(p, u).c_str());
      }
    }
  }
  PerItem(state, static_cast<std::int64_t>(kSiteProjects) * (1 + kSiteUsers));
}
BENCHMARK(BM_PublishRows)->ArgName("one_call")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// BM_PublishRows' rows as the plugin asks them since budget_engine_associations:
// kPublishBatch rows a call, the keys filled from the association records as
// priority_budget.c's _publish_batch does. Items are rows.
void BM_PublishBatches(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  budget_engine* engine = site.c_engine();
  budget_error err;
  std::vector<budget_association_key> rows;
  for (int p = 0; p < kSiteProjects; ++p) {
    rows.push_back({site.account(p).c_str(), nullptr});
    for (int u = 0; u < kSiteUsers; ++u) {
      rows.push_back({site.account(p).c_str(), site.user(p, u).c_str()});
    }
  }
  std::array<budget_association_key, kPublishBatch> keys{};
  std::array<budget_association, kPublishBatch> out{};
  UnixTime now = BenchNow();
  for (auto _ : state) {
    ++now;
    budget_engine_advance(engine, now, &err);  // as the pass: the views are of a new instant
    for (std::size_t first = 0; first < rows.size(); first += kPublishBatch) {
      const std::size_t n = std::min(kPublishBatch, rows.size() - first);
      std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(first), n, keys.begin());
      benchmark::DoNotOptimize(
          budget_engine_associations(engine, keys.data(), n, now, out.data(), &err));
    }
  }
  PerItem(state, static_cast<std::int64_t>(rows.size()));
}
BENCHMARK(BM_PublishBatches)->Unit(benchmark::kMillisecond);

// One accrual pass: J running jobs, each charged one minute (Engine::Accrue).
void BM_AccruePass(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const auto j = static_cast<int>(state.range(0));
  Engine& engine = site.engine();
  const UnixTime start = BenchNow();
  std::int64_t tick = 0;
  for (auto _ : state) {
    // Stay inside May: an unbounded clock would run past the projects' end.
    const UnixTime to = start + 60 * (1 + tick++ % 10'000);
    for (int i = 0; i < j; ++i) {
      const int p = i % kSiteProjects;
      engine.Accrue(site.account(p), site.user(p, i % kSiteUsers), "normal", 1 + i % 4, to - 60,
                    to);
    }
  }
  PerItem(state, j);
  state.SetComplexityN(j);
}
BENCHMARK(BM_AccruePass)
    ->RangeMultiplier(10)
    ->Range(100, 100'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

// The month close for all M projects (Ledger::CloseMonths): month 5 of every
// started project closes at midnight of 1 June. Items are projects.
void BM_CloseMonths(benchmark::State& state) {
  const auto m = static_cast<int>(state.range(0));
  Site& site = SiteOf(m, 1);
  const Ledger ledger = site.engine().ledger();
  const TimeZone zone = TimeZone::Local();
  const UnixTime june = zone.MidnightOf(CivilDate{2026, 6, 1}) + 1;
  std::size_t closed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Ledger copy = ledger;
    state.ResumeTiming();
    closed = copy.CloseMonths(site.terms(), zone, june).size();
    benchmark::DoNotOptimize(closed);
    state.PauseTiming();
    copy = Ledger();  // freed outside the timing
    state.ResumeTiming();
  }
  state.counters["closed"] = static_cast<double>(closed);
  PerItem(state, m);
  state.SetComplexityN(m);
}
BENCHMARK(BM_CloseMonths)
    ->RangeMultiplier(10)
    ->Range(10, 100'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

// Encoding the ledger for a save (EncodeLedger), which the engine does under
// its mutex: a pass or a submission that asks the engine meanwhile waits for
// it. Items are projects, each with its users' usage and decayed doubles.
void BM_EncodeLedger(benchmark::State& state) {
  const auto m = static_cast<int>(state.range(0));
  Site& site = SiteOf(m, kSiteUsers);
  const Ledger& ledger = site.engine().ledger();
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string encoded = EncodeLedger(ledger, BenchNow());
    bytes = encoded.size();
    benchmark::DoNotOptimize(encoded.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  PerItem(state, m);
}
BENCHMARK(BM_EncodeLedger)->Arg(500)->Arg(10'000)->Unit(benchmark::kMillisecond);

// Engine::Advance in a pass where no month ends: decay every usage, check
// every project for a month to close and a state change. Items are projects.
void BM_AdvancePass(benchmark::State& state) {
  const auto m = static_cast<int>(state.range(0));
  Site& site = SiteOf(m, 1);
  Engine& engine = site.engine();
  UnixTime now = BenchNow();
  for (auto _ : state) {
    now += 60;
    benchmark::DoNotOptimize(engine.Advance(now));
  }
  PerItem(state, m);
  state.SetComplexityN(m);
}
BENCHMARK(BM_AdvancePass)
    ->RangeMultiplier(10)
    ->Range(10, 100'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

// What the core adds to one periodic pass of the e2e workload (500 projects,
// 4 users each, P pending jobs), through the C ABI as the plugin calls it:
// advance, publish every project and user, then for every pending job its
// project's state (the full verdict only where that state may refuse) and the
// priority.
void BM_CorePass(benchmark::State& state) {
  Site& site = SiteOf(kSiteProjects, kSiteUsers);
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<PendingJob> jobs = MakePendingJobs(site, n);
  budget_engine* engine = site.c_engine();
  double tres[kTresCount];
  budget_error err;
  UnixTime now = BenchNow();
  for (auto _ : state) {
    now += 60;
    budget_engine_advance(engine, now, &err);
    for (int p = 0; p < kSiteProjects; ++p) {
      budget_project_view view;
      budget_engine_project(engine, site.account(p).c_str(), now, &view, &err);
      for (int u = 0; u < kSiteUsers; ++u) {
        double usage = 0;
        budget_engine_user_usage(engine, site.account(p).c_str(), site.user(p, u).c_str(), &usage,
                                 &err);
        benchmark::DoNotOptimize(usage);
      }
    }
    std::uint32_t id = 0;
    for (const PendingJob& job : jobs) {
      ++id;
      // As the plugin: the full verdict only where the project's state may refuse.
      budget_project_lifecycle lifecycle;
      budget_engine_project_state(engine, site.account(job.project).c_str(), now, &lifecycle, &err);
      if (lifecycle.allows_all == 0) {
        const budget_admission_request request = {
            .now = now,
            .account = site.account(job.project).c_str(),
            .partitions = kJobPartitions[job.partition],
            .job_id = id,
        };
        budget_admission verdict;
        budget_engine_admit(engine, &request, &verdict, &err);
        benchmark::DoNotOptimize(verdict.action);
      }
      const budget_job c_job = CJobOf(site, job, now);
      budget_job_priority out = {};
      out.tres = tres;
      budget_engine_job_priority(engine, &c_job, &out, &err);
      benchmark::DoNotOptimize(out.priority);
    }
  }
  PerItem(state, state.range(0));
}
BENCHMARK(BM_CorePass)->Arg(20'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace budget::bench

BENCHMARK_MAIN();
