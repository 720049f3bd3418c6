#!/usr/bin/env python3
"""micro_ab.py RUNS.txt: the table of an A/B of two builds of the core's microbenchmarks.

RUNS.txt is what bench/micro_ab.sh writes, one line a benchmark a run: "build pair name
cpu_time unit", build "before" or "now". A benchmark's pairs are its runs of one pair number
under both builds. Prints bench/e2e_runs.py's pooled table, one row a benchmark in the order of
the file: each build's median and range over the pairs, the geometric mean of the ratios now /
before with its 95 % interval and their range, and how many pairs read now at or under before.
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
    """e2e_runs.py's pooled table of the pairs, the ratio now / before, a row a benchmark."""
    metrics, pairs_as_runs = [], {}
    for (name, unit), pairs in runs.items():
        metric = "%s (%s)" % (name, unit)
        for pair, times in sorted(pairs.items()):
            if "before" in times and "now" in times:
                if metric not in metrics:
                    metrics.append(metric)
                pairs_as_runs.setdefault(pair, {})[metric] = {
                    "metric": metric, "before": times["before"], "now": times["now"],
                    "ratio": times["now"] / times["before"]}
    return e2e_runs.pooled(sorted(pairs_as_runs.items()), metrics, sides=("before", "now"))


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
