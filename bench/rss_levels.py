#!/usr/bin/env python3
"""rss_levels.py [--level-gap MIB] RUN.json...: slurmctld's RSS in bench/e2e.sh's rounds, split
into the level each phase ended on and the reading within a level.

slurmctld's RSS ends a phase on one of a few levels some 25 MiB apart (here about 125 and 150
MiB): the malloc arenas of its threads grow in whichever phase they happen to. A round whose two
phases ended on different levels reads that throw, not the plugins; its ratio is 0.8 or 1.2 from
that alone. This script reads the two parts apart:
- the rounds whose phases ended within --level-gap MiB of each other (one level): the geometric
  mean of budget / multifactor over them, with its 95 % interval, for the RSS and for its
  anonymous part;
- the other rounds: in how many multifactor's phase ended higher and in how many budget's, with
  the two-sided sign test's p (a plugin that made its slurmctld end higher would show there).
Reads each round's e2e.json ("plugins": rss_mib, rss_anon_mib, glibc_tunables) and, as
e2e_runs.py does, says on stderr when the rounds' slurmctld had different allocators.
Standard library only.
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_runs  # noqa: E402

# Levels sit some 25 MiB apart, and the phases of a round on one level within 3 MiB.
DEFAULT_LEVEL_GAP_MIB = 10.0


def read_rounds(paths):
    """Each round's (multifactor's phase, budget's phase), as e2e.json keeps them, and the
    rounds of each slurmctld allocator. A round without both RSS readings is left out."""
    rounds, allocators = [], {}
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        plugins = run.get("plugins", {})
        multifactor, budget = plugins.get("multifactor", {}), plugins.get("budget", {})
        if multifactor.get("rss_mib") and budget.get("rss_mib"):
            rounds.append((multifactor, budget))
            allocators.setdefault(e2e_runs.allocator_of(run), []).append(
                e2e_runs.run_label(path))
    return rounds, allocators


def sign_test_p(higher, lower):
    """Two-sided p of the sign test: the chance of a split at least this uneven when each
    round's higher phase is a fair coin's throw."""
    n = higher + lower
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(higher, lower) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def ratio_line(name, ratios):
    if not ratios:
        return "%s: no round" % name
    line = "%s: %.4f" % (name, e2e_runs.geometric_mean(ratios))
    interval = e2e_runs.geometric_interval(ratios)
    if interval:
        line += " (%.4f–%.4f)" % interval
    return line + ", %s at or under 1.0" % e2e_runs.at_or_under_one(ratios)


def report(rounds, level_gap):
    one_level, apart = [], []
    for m, b in rounds:
        (one_level if abs(m["rss_mib"] - b["rss_mib"]) < level_gap else apart).append((m, b))
    multifactor_higher = sum(m["rss_mib"] > b["rss_mib"] for m, b in apart)
    budget_higher = len(apart) - multifactor_higher
    anon = [b["rss_anon_mib"] / m["rss_anon_mib"] for m, b in one_level
            if m.get("rss_anon_mib") and b.get("rss_anon_mib")]
    return [
        "%d rounds; %d with both phases on one level (within %g MiB), %d on two"
        % (len(rounds), len(one_level), level_gap, len(apart)),
        "On one level, budget / multifactor:",
        "  " + ratio_line("RSS", [b["rss_mib"] / m["rss_mib"] for m, b in one_level]),
        "  " + ratio_line("its anonymous part", anon),
        "On two levels: multifactor's phase higher in %d, budget's in %d (sign test, two-sided p "
        "%.2f)" % (multifactor_higher, budget_higher,
                   sign_test_p(multifactor_higher, budget_higher)),
    ]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level-gap", type=float, default=DEFAULT_LEVEL_GAP_MIB,
                        help="phases closer than this (MiB) ended on one level")
    parser.add_argument("runs", nargs="+", help="e2e.json of each round")
    args = parser.parse_args(argv)
    rounds, allocators = read_rounds(args.runs)
    if not rounds:
        print("rss_levels.py: no round with both RSS readings in %s" % " ".join(args.runs),
              file=sys.stderr)
        return 1
    print("\n".join(report(rounds, args.level_gap)))
    # Another allocator puts the levels elsewhere (one arena: a single level).
    e2e_runs.warn_of_mixed_allocators("rss_levels.py", allocators)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
