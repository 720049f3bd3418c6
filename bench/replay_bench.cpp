// Replay benchmarks: a synthetic workload (20,000 and 1,000,000 jobs) and, when given, the NASA
// iPSC trace, per policy.
//
// The NASA trace is read from the SWF file named by BUDGET_BENCH_SWF (gzip
// allowed: it is read through `gzip -dc`); without it that case is skipped.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "budget/config.hpp"
#include "budget/replay.hpp"

namespace budget {
namespace {

constexpr std::int64_t kDay = 86400;

BudgetConfig ParseOrDie(const std::string& text) {
  auto config = ParseBudgetConfig(text, "bench.conf");
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.error().c_str());
    std::abort();
  }
  return std::move(config).value();
}

// `large` large projects starting 2026-01-01 with `large_credit` GPUh each,
// and `small` small ones (32,000 GPUh, 1 January to 30 June): they run out of
// credit or end during a long replay, which exercises low, holds and refusals.
BudgetConfig Projects(int large, std::int64_t large_credit, int small) {
  std::ostringstream conf;
  conf << "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
       << "PartitionName=low Role=low GpuhPerNodeHour=4\n";
  for (int i = 0; i < large; ++i) {
    conf << "Project=l" << i << " Kind=large Credit=" << large_credit
         << " Start=2026-01-01 StorageTB=10 StorageInodes=1000000 PIs=pi@unibe.ch\n";
  }
  for (int i = 0; i < small; ++i) {
    conf << "Project=s" << i << " Kind=small Credit=32000 Created=2025-12-10 PIs=pi@unibe.ch\n";
  }
  return ParseOrDie(conf.str());
}

std::vector<std::string> Accounts(const BudgetConfig& config) {
  std::vector<std::string> accounts;
  for (const ProjectSpec& p : config.projects) {
    accounts.push_back(p.account);
  }
  accounts.emplace_back("guest");  // no Project= line: unbilled
  return accounts;
}

// A reproducible mix: 60% 1-node jobs, 25% 2-4, 10% 8-16, 5% 32-64 nodes
// (capped at the cluster), run times exponential with a mean of one hour,
// limits 1 to 3 times the run time, arrivals Poisson at ~90% offered load.
std::vector<TraceJob> Synthetic(std::size_t count, std::uint32_t nodes,
                                const std::vector<std::string>& accounts) {
  std::mt19937_64 rng(20261130);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::exponential_distribution<double> run(1.0 / 3600.0);
  constexpr double kMeanNodeSeconds = 4.95 * 3600.0;
  std::exponential_distribution<double> gap(0.9 * static_cast<double>(nodes) / kMeanNodeSeconds);
  std::uniform_int_distribution<std::size_t> account(0, accounts.size() - 1);
  std::vector<TraceJob> jobs;
  jobs.reserve(count);
  double t = 0.0;
  const UnixTime origin = TimeZone::Utc().MidnightOf(CivilDate{2026, 1, 5});
  for (std::size_t i = 0; i < count; ++i) {
    TraceJob job;
    job.id = i + 1;
    t += gap(rng);
    job.submit = origin + static_cast<UnixTime>(t);
    const double r = unit(rng);
    std::uint32_t n = 1;
    if (r > 0.95) {
      n = 32U << static_cast<unsigned>(unit(rng) * 2.0);
    } else if (r > 0.85) {
      n = 8U << static_cast<unsigned>(unit(rng) * 2.0);
    } else if (r > 0.60) {
      n = 2U + static_cast<std::uint32_t>(unit(rng) * 3.0);
    }
    job.nodes = std::min(n, nodes);
    job.run_seconds = 60 + static_cast<std::int64_t>(run(rng));
    job.limit_seconds = job.run_seconds * (1 + static_cast<std::int64_t>(unit(rng) * 3.0));
    const std::size_t a = account(rng);
    job.account = accounts[a];
    job.user = 'u';  // appended, not "u" + ...: GCC 12's -Wrestrict false positive
    job.user += std::to_string(a * 4 + (i % 4));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// SWF (Parallel Workloads Archive): fields 1 job, 2 submit, 4 run, 5
// allocated processors, 8 requested processors, 9 requested time, 12 user.
// iPSC/860: one processor per node. Users map onto the projects round robin;
// the trace starts on 1 January 2026.
std::vector<TraceJob> ReadSwf(const std::string& path, const std::vector<std::string>& accounts) {
  std::vector<TraceJob> jobs;
  const std::string command = "gzip -dcf '" + path + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) {
    return jobs;
  }
  const UnixTime origin = TimeZone::Utc().MidnightOf(CivilDate{2026, 1, 5});
  char line[1024];
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    if (line[0] == ';') {
      continue;
    }
    std::istringstream fields(line);
    std::vector<std::int64_t> f;
    std::int64_t v = 0;
    while (fields >> v) {
      f.push_back(v);
    }
    if (f.size() < 12 || f[3] < 0) {
      continue;
    }
    TraceJob job;
    job.id = static_cast<std::uint64_t>(f[0]);
    job.submit = origin + f[1];
    job.run_seconds = f[3];
    job.limit_seconds = f[8] >= f[3] ? f[8] : f[3];
    const std::int64_t procs = f[4] > 0 ? f[4] : f[7];
    job.nodes = static_cast<std::uint32_t>(procs > 0 ? procs : 1);
    job.user = std::to_string(f[11]);
    job.account = accounts[static_cast<std::size_t>(f[11] < 0 ? 0 : f[11]) % accounts.size()];
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void RunReplay(benchmark::State& state, const BudgetConfig& config,
               const std::vector<TraceJob>& trace, std::uint32_t nodes, ReplayPolicy policy) {
  ReplayOptions options;
  options.policy = policy;
  options.nodes = nodes;
  options.zone = TimeZone::Utc();
  options.weights.age = 2'000'000;
  options.weights.max_age_seconds = 30 * kDay;
  options.weights.fairshare = 10'000'000;
  options.weights.jobsize = 1000;
  ReplayResult last;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores): the benchmark loop idiom
    state.PauseTiming();
    std::vector<TraceJob> jobs = trace;
    state.ResumeTiming();
    auto result = Replay(config, std::move(jobs), options);
    if (!result.ok()) {
      state.SkipWithError(result.error().c_str());
      return;
    }
    last = std::move(result).value();
    benchmark::DoNotOptimize(last.start_order.data());
  }
  state.counters["jobs"] = static_cast<double>(trace.size());
  state.counters["started"] = static_cast<double>(last.start_order.size());
  state.counters["passes"] = static_cast<double>(last.priority_passes);
  state.counters["sched"] = static_cast<double>(last.scheduler_passes);
  state.counters["occupancy"] = last.mean_occupancy;
  state.counters["days"] =
      static_cast<double>(last.makespan_end - last.first_submit) / static_cast<double>(kDay);
  state.counters["jobs_per_s"] = benchmark::Counter(static_cast<double>(trace.size()),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

// args: jobs, nodes, policy (0 budget, 1 baseline).
void BM_ReplaySynthetic(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  const auto nodes = static_cast<std::uint32_t>(state.range(1));
  const ReplayPolicy policy = state.range(2) == 0 ? ReplayPolicy::kBudget : ReplayPolicy::kBaseline;
  // Credit in proportion to the cluster: 40 large projects share ~its year.
  const auto large_credit = static_cast<std::int64_t>(nodes) * 4 * 8760 / 40;
  static std::map<std::pair<std::size_t, std::uint32_t>,
                  std::pair<BudgetConfig, std::vector<TraceJob>>>
      cache;
  auto& entry = cache[{count, nodes}];
  if (entry.second.empty()) {
    entry.first = Projects(40, large_credit, 10);
    entry.second = Synthetic(count, nodes, Accounts(entry.first));
  }
  state.SetLabel(ToString(policy));
  RunReplay(state, entry.first, entry.second, nodes, policy);
}
BENCHMARK(BM_ReplaySynthetic)
    ->Args({20'000, 128, 0})
    ->Args({20'000, 128, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplaySynthetic)
    ->Args({1'000'000, 1000, 0})
    ->Args({1'000'000, 1000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// args: policy (0 budget, 1 baseline).
void BM_ReplayNasa(benchmark::State& state) {
  const char* path = std::getenv("BUDGET_BENCH_SWF");
  if (path == nullptr) {
    state.SkipWithError("set BUDGET_BENCH_SWF to the NASA iPSC SWF file");
    return;
  }
  static const BudgetConfig config = Projects(6, 200'000, 4);
  static const std::vector<TraceJob> trace = ReadSwf(path, Accounts(config));
  if (trace.empty()) {
    state.SkipWithError("no job read from BUDGET_BENCH_SWF");
    return;
  }
  const ReplayPolicy policy = state.range(0) == 0 ? ReplayPolicy::kBudget : ReplayPolicy::kBaseline;
  state.SetLabel(ToString(policy));
  RunReplay(state, config, trace, 128, policy);
}
BENCHMARK(BM_ReplayNasa)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace budget

BENCHMARK_MAIN();
