#!/usr/bin/env python3
"""e2e_runs.py RUN.json...: the ratios budget / multifactor of several bench/e2e.sh runs, side
by side, with their geometric mean and how many runs are at or under 1.0.

One run of bench/e2e.sh cannot tell a few per cent from the machine's drift between its two
phases; the same line over several runs can. Reads each run's e2e.json ("table": metric,
multifactor, budget, ratio) and prints a Markdown table, one row a metric, one column a run.
Standard library only.
"""
import json
import math
import os
import sys


def run_label(path):
    name = os.path.basename(path)
    if name == "e2e.json":
        name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return name.replace("e2e-", "").replace(".json", "")


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[0])
    runs, metrics = [], []
    for path in paths:
        with open(path) as f:
            table = {row["metric"]: row["ratio"] for row in json.load(f)["table"]}
        for metric in table:
            if metric not in metrics:
                metrics.append(metric)
        runs.append((run_label(path), table))

    header = ["metric"] + [label for label, _ in runs] + ["geometric mean", "runs ≤ 1.0"]
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for metric in metrics:
        ratios = [table.get(metric) for _, table in runs]
        seen = [r for r in ratios if r]
        geo = math.exp(sum(math.log(r) for r in seen) / len(seen)) if seen else None
        cells = ["n/a" if r is None else "%.2f" % r for r in ratios]
        cells.append("n/a" if geo is None else "%.2f" % geo)
        cells.append("%d of %d" % (sum(r <= 1.0 for r in seen), len(seen)))
        lines.append("| %s | %s |" % (metric, " | ".join(cells)))
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
