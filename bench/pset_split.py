#!/usr/bin/env python3
"""pset_split.py SPLIT.txt...: the median time of each step of a new job's priority in
slurmctld, one column a file, from the files a plugin built with bench/pset_split.patch writes.

The uprobes of bench/e2e.sh time priority_g_set whole, and each probe inside the plugin's call
costs more than the steps it would split. The patch reads the clock between the steps instead
(priority_p_set's, then the core's Engine::Priority's) and writes one line a call to
/tmp/pset-split-PID.txt:

    git worktree add --detach /tmp/split HEAD && cd /tmp/split
    git apply bench/pset_split.patch
    cmake -S . -B build/split -DCMAKE_BUILD_TYPE=Release -DBUDGET_BUILD_PLUGIN=ON
    cmake --build build/split -j2 --target priority_budget sbudget
    flock /tmp/budget-cluster.lock bench/e2e.sh build/split /tmp/split-e2e --smoke
    python3 bench/pset_split.py /tmp/pset-split-*.txt

Times in µs; "view_computed" is the share of calls that computed their project's view (the
rest found its factors cached). Standard library only.
"""
import os
import statistics
import sys


def read(path):
    with open(path) as f:
        steps = f.readline().split()
        calls = [[int(x) for x in line.split()] for line in f if line.strip()]
    return steps, calls


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[0])
    columns, steps = [], None
    for path in paths:
        steps, calls = read(path)
        if not calls:
            sys.exit(f"{path}: no calls")
        medians = [statistics.median(call[i] for call in calls) / 1000
                   for i in range(len(steps) - 1)]
        whole = statistics.median(sum(call[:7]) for call in calls) / 1000
        computed = sum(call[-1] > 0 for call in calls) / len(calls)
        label = os.path.basename(path).removeprefix("pset-split-").removesuffix(".txt")
        columns.append((label, len(calls), medians, whole, computed))
    print("| step (median, µs) | " + " | ".join(c[0] for c in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for i, step in enumerate(steps[:-1]):
        print(f"| {step} | " + " | ".join(f"{c[2][i]:.2f}" for c in columns) + " |")
    print("| priority_p_set, whole | " + " | ".join(f"{c[3]:.2f}" for c in columns) + " |")
    print("| view computed (share of calls) | " + " | ".join(f"{c[4]:.2f}" for c in columns) + " |")
    print("| calls | " + " | ".join(str(c[1]) for c in columns) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
