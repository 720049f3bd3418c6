#!/usr/bin/env python3
"""pset_percentiles.py: how priority_g_set's calls spread in each phase's timed submissions.

The e2e report gives the mean and the median of the timed calls; a few slow calls decide the
mean. This prints, per round and plugin, the 10th, 50th, 90th and 99th percentiles, the slowest
calls, and the mean without the slowest 1 %, from the uprobes trace of a bench/e2e.sh run: its
OUT_DIR (e2e-trace.txt, and each round's windows in e2e-phases.env, in OUT_DIR or in
OUT_DIR/round-K), or a work directory copied while a round runs (trace.txt and phases.env). The
calls are those bench/e2e_report.py times.

  bench/pset_percentiles.py DIR
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_report  # noqa: E402


def rounds_of(directory):
    """(title, phases.env path, trace path) for each round the directory holds."""
    if os.path.exists(os.path.join(directory, "phases.env")):
        return [("", os.path.join(directory, "phases.env"),
                 os.path.join(directory, "trace.txt"))]
    trace = os.path.join(directory, "e2e-trace.txt")
    rounds = []
    for env in glob.glob(os.path.join(directory, "round-*", "e2e-phases.env")):
        number = int(re.search(r"round-(\d+)", env).group(1))
        rounds.append((number, "round %d" % number, env))
    if rounds:
        return [(title, env, trace) for _, title, env in sorted(rounds)]
    return [("", os.path.join(directory, "e2e-phases.env"), trace)]


def print_phase(plugin, phases, events):
    start = e2e_report.number(phases.get(plugin + "_submit_start"))
    end = e2e_report.number(phases.get(plugin + "_submit_end"))
    if start is None or end is None:
        return
    calls = e2e_report.submissions(e2e_report.in_window(events, start, end))
    us = sorted(call[1] * 1e6 for call in calls)
    if not us:
        return
    n = len(us)
    kept = us[:max(1, int(n * 0.99))]

    def at(q):
        return e2e_report.percentile(us, q)

    print("%s %d calls: p10 %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f µs; mean %.2f, "
          "without the slowest 1 %% %.2f" % (plugin, n, at(0.1), at(0.5), at(0.9), at(0.99),
                                              us[-1], sum(us) / n, sum(kept) / len(kept)))
    print("  slowest 5:", " ".join("%.0f" % x for x in us[-5:]))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: pset_percentiles.py DIR (an e2e.sh OUT_DIR or a copied work directory)")
    traces = {}
    for title, env, trace in rounds_of(sys.argv[1]):
        if not os.path.exists(env) or not os.path.exists(trace):
            sys.exit("pset_percentiles.py: %s or %s is missing" % (env, trace))
        if trace not in traces:
            traces[trace] = e2e_report.read_trace(trace)
        if title:
            print("## " + title)
        phases = e2e_report.read_env(env)
        for plugin in ("multifactor", "budget"):
            print_phase(plugin, phases, traces[trace])


if __name__ == "__main__":
    main()
