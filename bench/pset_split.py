#!/usr/bin/env python3
"""pset_split.py SPLIT.txt...: the median time of each step of a new job's priority in
slurmctld, one column a file, from the files a plugin built with bench/pset_split.patch writes.

The uprobes of bench/e2e.sh time priority_g_set whole, and each probe costs more than the steps
it would split: a probe pair on a function that only reads a pointer reads 14 to 43 µs here
(docs/performance/e2e-probe-yardstick.txt). The patch reads the clock between the steps of
priority_p_set instead and writes one line a call to /tmp/pset-split-PID.txt: each step's ns,
then a last column, 1 when the job was ranked by name (0: on the last pass's factors).

    git worktree add --detach /tmp/split HEAD && cd /tmp/split
    git apply bench/pset_split.patch      # older trees: the patch of their time (git log)
    cmake -S . -B build/split -DCMAKE_BUILD_TYPE=Release -DBUDGET_BUILD_PLUGIN=ON
    cmake --build build/split -j2 --target priority_budget sbudget
    BENCH_SUBMIT_TIMED=250 flock /tmp/budget-cluster.lock \\
      bench/e2e.sh build/split /tmp/split-e2e --smoke
    python3 bench/pset_split.py /tmp/pset-split-*.txt

bench/pset_split_multifactor.patch writes the same lines from Slurm's own multifactor; built
from the configured Slurm source and copied next to priority_budget.so, it is the one
slurmctld loads for that run's multifactor phases (docs/performance.md, Method):

    R=$PWD S=$PWD/build/perf/slurm-source/slurm-22.05.8; mkdir /tmp/mf && cd /tmp/mf
    cp $S/src/plugins/priority/multifactor/*.[ch] . && patch -p5 < $R/bench/pset_split_multifactor.patch
    gcc $(dpkg-buildflags --get CFLAGS) -fPIC -shared -DHAVE_CONFIG_H -I$S -I$S/src/common \
      priority_multifactor.c fair_tree.c -o priority_multifactor.so -lm
    cp priority_multifactor.so /tmp/split/build/split/src/slurm/

Times in µs; the whole call is the sum of its steps, given as its median and its 10th and 90th
percentiles. Standard library only.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_report import percentile  # noqa: E402


def read(path):
    with open(path) as f:
        steps = f.readline().split()
        calls = [[int(x) for x in line.split()] for line in f if line.strip()]
    return steps, calls


def table(columns, steps):
    print("| step (median, µs) | " + " | ".join(c[0] for c in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for i, step in enumerate(steps[:-1]):
        print(f"| {step} | " + " | ".join(f"{c[2][i]:.2f}" for c in columns) + " |")
    for name, q in (("10th percentile", 0.1), ("median", 0.5), ("90th percentile", 0.9)):
        print(f"| priority_p_set, whole, {name} | " +
              " | ".join(f"{percentile(c[3], q):.2f}" for c in columns) + " |")
    print("| ranked by name (share of calls) | " +
          " | ".join(f"{c[4]:.2f}" for c in columns) + " |")
    print("| calls | " + " | ".join(str(c[1]) for c in columns) + " |")


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[0])
    # One table for each set of steps: priority/budget's files, multifactor's.
    tables = {}
    for path in paths:
        steps, calls = read(path)
        if not calls:
            sys.exit(f"{path}: no calls")
        n_steps = len(steps) - 1
        medians = [statistics.median(call[i] for call in calls) / 1000 for i in range(n_steps)]
        whole = [sum(call[:n_steps]) / 1000 for call in calls]
        by_name = sum(call[-1] for call in calls) / len(calls)
        label = os.path.basename(path).removeprefix("pset-split-").removesuffix(".txt")
        tables.setdefault(tuple(steps), []).append((label, len(calls), medians, whole, by_name))
    for n, (steps, columns) in enumerate(tables.items()):
        if n:
            print()
        table(columns, steps)


if __name__ == "__main__":
    main(sys.argv[1:])
