#!/usr/bin/env python3
"""micro_ab.py RUNS.txt: the table of an A/B of two builds of the core's microbenchmarks.

RUNS.txt is what bench/micro_ab.sh writes, one line a benchmark a run: "build pair name
cpu_time unit", build "before" or "now". A benchmark's pairs are its runs of one pair number
under both builds. Prints a Markdown table, one row a benchmark in the order of the file: each
build's median and range over the pairs, the geometric mean of the ratios now / before with
its 95 % interval (bench/e2e_runs.py), and how many pairs read now at or under before.
Standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_runs  # noqa: E402


def read_runs(path):
    """{(name, unit): {pair: {build: cpu_time}}}, the benchmarks in the file's order."""
    runs = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split()
            if not words:
                continue
            if len(words) != 5 or words[0] not in ("before", "now"):
                raise ValueError("%s:%d: expected \"before|now PAIR NAME CPU_TIME UNIT\", got %r"
                                 % (path, number, line.rstrip("\n")))
            build, pair, name, time, unit = words
            runs.setdefault((name, unit), {}).setdefault(int(pair), {})[build] = float(time)
    return runs


def table(runs):
    lines = e2e_runs.table_start(
        ["benchmark", "before", "now", "now / before (95 % interval)", "now at or under before"])
    for (name, unit), pairs in runs.items():
        both = [p for _, p in sorted(pairs.items()) if "before" in p and "now" in p]
        if not both:
            continue
        ratios = [p["now"] / p["before"] for p in both]
        interval = e2e_runs.interval_cell(ratios)
        lines.append("| %s (%s) | %s | %s | %.2f (%s) | %s |" % (
            name, unit,
            e2e_runs.value_cell([p["before"] for p in both]),
            e2e_runs.value_cell([p["now"] for p in both]),
            e2e_runs.geometric_mean(ratios), interval,
            e2e_runs.at_or_under_one(ratios)))
    return lines


def main(args):
    if len(args) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    try:
        runs = read_runs(args[0])
    except (OSError, ValueError) as e:
        print("micro_ab.py: %s" % e, file=sys.stderr)
        return 2
    print("\n".join(table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
