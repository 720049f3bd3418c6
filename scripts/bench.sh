#!/usr/bin/env bash
# Runs the benchmarks of docs/performance.md and writes their results table and scaling plot.
#
# Usage: scripts/bench.sh [--smoke] [--micro-only | --e2e-only] [--out DIR]
#   (default) installs what it needs (scripts/install-deps.sh), builds the Release benchmarks
#             and plugin in build/perf, runs the core's microbenchmarks (budget_bench,
#             budget_bench_memory), then priority/budget against priority/multifactor in the
#             local cluster (bench/e2e.sh, under /tmp/budget-cluster.lock), and writes to DIR
#             (default build/perf/results): micro.json, memory.json, micro.md, scaling.svg,
#             e2e.json, e2e.md, and results.md (machine, commands, every table).
#             About 25 minutes on 2 cores, most of it the e2e run (queueing 20,000 jobs, then
#             a 4-minute quiet window for each plugin).
#   --smoke   every benchmark at small sizes and a short e2e (20 accounts, 200 jobs): checks that
#             they run, in about 2 minutes once built; the numbers mean nothing. What CI may run.
#   BUDGET_BENCH_BUILD=DIR builds in DIR instead of build/perf (an existing Release build saves
#   the build time).
# Benchmarks are not timed tests: nothing here fails because a number is slow; it fails only
# when a benchmark cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0 micro=1 e2e=1 out=""
while (($#)); do
  case "$1" in
    --smoke) smoke=1 ;;
    --micro-only) e2e=0 ;;
    --e2e-only) micro=0 ;;
    --out)
      out=$2
      shift
      ;;
    *)
      sed -n '2,18p' "$0" >&2
      exit 2
      ;;
  esac
  shift
done

build=${BUDGET_BENCH_BUILD:-build/perf}
out=${out:-$build/results}

BUDGET_WITH_CLUSTER=$e2e ./scripts/install-deps.sh
command -v python3 >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3
}

config=(-DCMAKE_BUILD_TYPE=Release -DBUDGET_BUILD_BENCHMARKS=ON)
((e2e)) && config+=(-DBUDGET_BUILD_PLUGIN=ON)
cmake -S . -B "$build" "${config[@]}" >/dev/null
targets=(budget_bench budget_bench_memory)
((e2e)) && targets+=(priority_budget sbudget)
cmake --build "$build" -j2 --target "${targets[@]}"
mkdir -p "$out"

if ((micro)); then
  bench_args=()
  memory_args=()
  if ((smoke)); then
    # The smallest size of each benchmark, briefly.
    bench_args=(--benchmark_min_time=0.01
      '--benchmark_filter=ComputeJob|ComputeFair|/1000$|/100$|projects:10/|CorePass|EncodeLedger/500$')
    memory_args=('--benchmark_filter=projects:1000/')
  fi
  echo "== microbenchmarks (budget_bench)" >&2
  "$build/bench/budget_bench" --benchmark_out="$out/micro.json" --benchmark_out_format=json \
    "${bench_args[@]}"
  echo "== memory per project (budget_bench_memory)" >&2
  "$build/bench/budget_bench_memory" --benchmark_out="$out/memory.json" \
    --benchmark_out_format=json "${memory_args[@]}"
  # The plot also draws, dashed, the run of docs/performance/ from before the core's
  # optimisations, for comparison.
  python3 bench/micro_report.py --micro "$out/micro.json" --memory "$out/memory.json" \
    --md "$out/micro.md" --svg "$out/scaling.svg" \
    --baseline docs/performance/micro-before.json \
    --baseline-label "dashed: before the optimisations (docs/performance.md)"
fi

if ((e2e)); then
  echo "== end to end: priority/budget against priority/multifactor (waits for the cluster lock)" >&2
  e2e_args=("$build" "$out")
  ((smoke)) && e2e_args+=(--smoke)
  flock /tmp/budget-cluster.lock bench/e2e.sh "${e2e_args[@]}"
fi

mode="" smoke_note=""
((smoke)) && mode+=" --smoke" && smoke_note=", SMOKE RUN"
((micro)) || mode+=" --e2e-only"
((e2e)) || mode+=" --micro-only"
{
  echo "# slurm-budget benchmark results"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$smoke_note"
  echo "- machine: $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | head -n 1)), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- software: $(uname -sr), $(c++ --version | head -n 1), Slurm $(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || echo 'not installed'), Google Benchmark $(dpkg-query -W -f='${Version}' libbenchmark-dev 2>/dev/null || echo '?')"
  echo "- command: scripts/bench.sh$mode"
  if [[ -f "$out/micro.md" ]] && ((micro)); then
    echo
    echo "## Core microbenchmarks"
    echo
    cat "$out/micro.md"
    echo
    echo "![scaling](scaling.svg)"
  fi
  if [[ -f "$out/e2e.md" ]] && ((e2e)); then
    echo
    echo "## End to end, priority/budget against priority/multifactor"
    echo
    cat "$out/e2e.md"
  fi
} >"$out/results.md"
echo "results: $out/results.md" >&2
