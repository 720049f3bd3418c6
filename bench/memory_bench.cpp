// Memory per project: heap bytes an engine holds, counted by a replaced operator new.
//
// A binary of its own: the counting operator new (alloc_counter.cpp) would
// slow every allocation of the timing benchmarks in core_bench.cpp.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "alloc_counter.hpp"
#include "bench_world.hpp"
#include "budget/engine.hpp"

namespace budget::bench {
namespace {

// Heap bytes an engine of M projects with U users holds after a pass: the
// parsed budget.conf, the ledger with five months of usage, the per-pass
// caches. Counted by the replaced operator new (alloc_counter.hpp), so it is
// exact and independent of the allocator's free lists. One iteration.
void BM_MemoryPerProject(benchmark::State& state) {
  const auto m = static_cast<int>(state.range(0));
  const auto u = static_cast<int>(state.range(1));
  const Site site(SiteSpec{m, u});
  std::int64_t bytes = 0;
  for (auto _ : state) {
    const std::int64_t before = LiveHeapBytes();
    std::unique_ptr<Engine> engine = site.OpenEngine();
    engine->SetWeights(SiteWeights());
    for (int p = 0; p < m; ++p) {
      benchmark::DoNotOptimize(engine->Project(site.account(p), BenchNow()));
    }
    bytes = LiveHeapBytes() - before;
  }
  state.counters["bytes_per_project"] = static_cast<double>(bytes) / m;
}
BENCHMARK(BM_MemoryPerProject)
    ->ArgNames({"projects", "users"})
    ->ArgsProduct({{1'000, 10'000, 100'000}, {1, 4}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace budget::bench

BENCHMARK_MAIN();
