#!/usr/bin/env python3
"""ab_pairs.py PHASES.txt FIELD...: the phases of an A/B script (bench/sbatch_ab.sh) paired, the
first multifactor phase with the first budget phase and so on, as the rounds of bench/e2e.sh.

Each line of PHASES.txt is "LABEL key=value ...", with plugin=multifactor or plugin=budget; a
value that is not a positive number (n/a) is left out. Prints two Markdown tables: the FIELDs
pooled over the pairs (bench/e2e_runs.py --summary: each plugin's median and range, the geometric
mean of the ratios budget / multifactor with its 95 % interval, their range, how many pairs are
at or under 1.0), then each pair's ratios side by side. A FIELD "A/B" is each phase's A over its
B: a time over the same phase's yardstick reads the time with the machine's speed taken out.
Standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_runs  # noqa: E402


def read_phases(path):
    """(label, {key: value}) a phase, in the file's order."""
    phases = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if words:
                phases.append((words[0], dict(w.split("=", 1) for w in words[1:] if "=" in w)))
    return phases


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def phase_value(values, field):
    """The phase's FIELD, or for "A/B" its A over its B; None if one is not a positive number."""
    if "/" in field:
        numerator, denominator = (phase_value(values, part) for part in field.split("/", 1))
        return numerator / denominator if numerator and denominator else None
    return number(values.get(field))


def pairs_as_runs(phases, fields):
    """The pairs in bench/e2e_runs.py's shape: (label, {field: row}) a pair. Phases left over
    without a partner of the other plugin are not paired."""
    by_plugin = {plugin: [p for p in phases if p[1].get("plugin") == plugin]
                 for plugin in ("multifactor", "budget")}
    runs = []
    for (mf_label, mf), (bu_label, bu) in zip(by_plugin["multifactor"], by_plugin["budget"]):
        rows = {}
        for field in fields:
            a, b = phase_value(mf, field), phase_value(bu, field)
            rows[field] = {"metric": field, "multifactor": a, "budget": b,
                           "ratio": b / a if a and b else None}
        runs.append(("%s/%s" % (bu_label, mf_label), rows))
    return runs


def main(args):
    if len(args) < 2:
        sys.exit(__doc__.strip().splitlines()[0])
    runs = pairs_as_runs(read_phases(args[0]), args[1:])
    if not runs:
        sys.exit("ab_pairs.py: %s has no multifactor and budget phases to pair" % args[0])
    print("\n".join(e2e_runs.pooled(runs, args[1:])))
    print()
    print("\n".join(e2e_runs.side_by_side(runs, args[1:])))


if __name__ == "__main__":
    main(sys.argv[1:])
