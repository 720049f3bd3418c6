#!/usr/bin/env bash
# Two builds of the core's microbenchmarks, A/B in pairs of short runs, then their table.
#
# Usage: bench/micro_ab.sh BEFORE_BUILD NOW_BUILD FILTER PAIRS OUT
#   BEFORE_BUILD, NOW_BUILD  CMake build folders, each with bench/budget_bench (Release,
#                            -DBUDGET_BUILD_BENCHMARKS=ON); a worktree at the commit before
#                            gives the first
#   FILTER                   --benchmark_filter of the benchmarks to compare
#   PAIRS                    pairs of runs: each is one run of each build, one repetition of
#                            every benchmark, the order turned each pair
#   OUT                      a file: one line a benchmark a run ("build pair name cpu_time
#                            unit"), then the table of bench/micro_ab.py on stdout
# Why pairs of short runs: the machine's speed drifts by up to 1.5 times within minutes, in
# every process at once, so one long run of each build compares two speeds of the machine;
# runs seconds apart, paired, read the builds at one speed (docs/performance-log.md, "Fair-share:
# account and user names compared inline"). Nothing here fails because a number is slow.
set -euo pipefail

[[ $# -eq 5 ]] || {
  sed -n '2,16p' "$0" >&2
  exit 2
}
before=$1/bench/budget_bench now=$2/bench/budget_bench filter=$3 pairs=$4 out=$5
for bin in "$before" "$now"; do
  [[ -x $bin ]] || {
    echo "micro_ab.sh: no benchmark binary $bin" >&2
    exit 2
  }
done

: >"$out"
for ((pair = 1; pair <= pairs; pair++)); do
  order=(before now)
  ((pair % 2)) || order=(now before)
  for build in "${order[@]}"; do
    bin=$before
    [[ $build == now ]] && bin=$now
    "$bin" --benchmark_filter="$filter" --benchmark_repetitions=1 --benchmark_format=json |
      python3 -c '
import json, sys
for b in json.load(sys.stdin)["benchmarks"]:
    if b.get("run_type") == "iteration":
        print(sys.argv[1], sys.argv[2], b["name"], b["cpu_time"], b["time_unit"])
' "$build" "$pair" >>"$out"
  done
done
python3 "$(dirname "$0")/micro_ab.py" "$out"
