#!/usr/bin/env python3
"""e2e_runs.py [--summary] RUN.json...: the ratios budget / multifactor of several bench/e2e.sh
runs, side by side, with their geometric mean and how many runs are at or under 1.0.

One run of bench/e2e.sh cannot tell a few per cent from the machine's drift between its two
phases; the same line over several runs can. Reads each run's e2e.json ("table": metric,
multifactor, budget, ratio) and prints a Markdown table, one row a metric, one column a run.
With --summary, one row a metric pools the runs instead: each plugin's median and range of
values, the geometric mean of the ratios with its 95 % interval, their range and how many are at
or under 1.0. Standard library only.
"""
import json
import math
import os
import statistics
import sys

import e2e_report


def run_label(path):
    name = os.path.basename(path)
    if name == "e2e.json":
        name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return name.replace("e2e-", "").replace(".json", "")


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


# Student's t, two-sided 95 %, by degrees of freedom; a count between two rows takes the lower
# row's (wider) value.
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
         9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
         17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021,
         60: 2.000, 120: 1.980}


def t_975(degrees_of_freedom):
    return T_975[max(k for k in T_975 if k <= degrees_of_freedom)]


def geometric_interval(ratios):
    """The 95 % interval of the geometric mean of the ratios (low, high): the t interval of the
    mean of their logarithms, each round one sample. None with fewer than two ratios. An
    interval that holds 1.0 is a line these rounds cannot tell from multifactor's."""
    if len(ratios) < 2:
        return None
    logs = [math.log(r) for r in ratios]
    half = t_975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    mean = statistics.fmean(logs)
    return math.exp(mean - half), math.exp(mean + half)


def interval_cell(ratios):
    interval = geometric_interval(ratios)
    return "n/a" if interval is None else "%.2f–%.2f" % interval


def value_cell(values):
    """The median of one plugin's values and their range, to three significant digits."""
    if not values:
        return "n/a"
    return "%.3g (%.3g–%.3g)" % (statistics.median(values), min(values), max(values))


def table_start(header):
    """A Markdown table's header and its rule, the first column left-aligned, the rest right."""
    return ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]


def at_or_under_one(ratios):
    return "%d of %d" % (sum(r <= 1.0 for r in ratios), len(ratios))


def allocator_of(run):
    """slurmctld's allocator in a run's phases: GLIBC_TUNABLES=... or glibc's defaults (e2e.sh
    set none before its phases recorded them); two phases that differ read as both."""
    phases = run.get("plugins", {}).values()
    seen = sorted({phase.get("glibc_tunables") or "" for phase in phases} or {""})
    return " / ".join(e2e_report.allocator_name(t) for t in seen)


def warn_of_mixed_allocators(script, allocators):
    """Says on stderr when the runs' slurmctld had more than one allocator (`allocators`: the
    run labels of each): their RSS and heap lines then compare allocators as well as plugins."""
    if len(allocators) > 1:
        print("%s: these runs' slurmctld had different allocators: " % script + "; ".join(
            "%s in %s" % (allocator, ", ".join(labels))
            for allocator, labels in allocators.items()), file=sys.stderr)


def read_runs(paths):
    """Each run's rows by metric, the metrics in order of first appearance, and the runs of
    each slurmctld allocator."""
    runs, metrics, allocators = [], [], {}
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        rows = {row["metric"]: row for row in run["table"]}
        allocators.setdefault(allocator_of(run), []).append(run_label(path))
        for metric in rows:
            if metric not in metrics:
                metrics.append(metric)
        runs.append((run_label(path), rows))
    return runs, metrics, allocators


def side_by_side(runs, metrics):
    lines = table_start(["metric"] + [label for label, _ in runs] +
                        ["geometric mean", "runs ≤ 1.0"])
    for metric in metrics:
        ratios = [rows[metric]["ratio"] if metric in rows else None for _, rows in runs]
        seen = [r for r in ratios if r]
        cells = ["n/a" if r is None else "%.2f" % r for r in ratios]
        cells.append("%.2f" % geometric_mean(seen) if seen else "n/a")
        cells.append(at_or_under_one(seen))
        lines.append("| %s | %s |" % (metric, " | ".join(cells)))
    return lines


def pooled(runs, metrics, sides=("multifactor", "budget")):
    """The runs pooled, a row a metric. `sides`: the keys of each row's two values, the ratio
    being the second over the first (bench/micro_ab.py reads two builds, "before" and "now")."""
    base, other = sides
    lines = table_start(["metric", "%s, median (range)" % base, "%s, median (range)" % other,
                         "%s / %s, geometric mean" % (other, base), "95 % interval",
                         "lowest–highest", "runs ≤ 1.0"])
    for metric in metrics:
        rows = [rows[metric] for _, rows in runs if metric in rows]
        ratios = [row["ratio"] for row in rows if row.get("ratio")]
        cells = [value_cell([row[base] for row in rows if row.get(base)]),
                 value_cell([row[other] for row in rows if row.get(other)])]
        if ratios:
            cells += ["%.2f" % geometric_mean(ratios), interval_cell(ratios),
                      "%.2f–%.2f" % (min(ratios), max(ratios)),
                      at_or_under_one(ratios)]
        else:
            cells += ["n/a", "n/a", "n/a", at_or_under_one(ratios)]
        lines.append("| %s | %s |" % (metric, " | ".join(cells)))
    return lines


def main(args):
    summary = bool(args) and args[0] == "--summary"
    paths = args[1:] if summary else args
    if not paths:
        sys.exit(__doc__.strip().splitlines()[0])
    runs, metrics, allocators = read_runs(paths)
    print("\n".join((pooled if summary else side_by_side)(runs, metrics)))
    warn_of_mixed_allocators("e2e_runs.py", allocators)


if __name__ == "__main__":
    main(sys.argv[1:])
