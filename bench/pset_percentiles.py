#!/usr/bin/env python3
"""pset_percentiles.py: how priority_g_set's calls spread in each phase's timed submissions.

The e2e report gives the mean and the median of the 250 calls; a few slow calls decide the
mean. This prints, per plugin, the 10th, 50th, 90th and 99th percentiles, the slowest calls,
and the mean without the slowest 1 %, from the uprobes trace of bench/e2e.sh's work directory
(phases.env and trace.txt, copied while a round runs: the script removes the directory at its
end). The calls are those bench/e2e_report.py times.

  bench/pset_percentiles.py WORK_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_report  # noqa: E402


def main():
    work = sys.argv[1]
    phases = e2e_report.read_env(os.path.join(work, "phases.env"))
    events = e2e_report.read_trace(os.path.join(work, "trace.txt"))
    for plugin in ("multifactor", "budget"):
        start = e2e_report.number(phases.get(plugin + "_submit_start"))
        end = e2e_report.number(phases.get(plugin + "_submit_end"))
        if start is None or end is None:
            continue
        calls = e2e_report.submissions(e2e_report.in_window(events, start, end))
        us = sorted(call[1] * 1e6 for call in calls)
        if not us:
            continue
        n = len(us)
        kept = us[:max(1, int(n * 0.99))]

        def at(q):
            return us[min(n - 1, int(q * n))]

        print("%s %d calls: p10 %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f µs; mean %.2f, "
              "without the slowest 1 %% %.2f" % (plugin, n, at(0.1), at(0.5), at(0.9), at(0.99),
                                                  us[-1], sum(us) / n, sum(kept) / len(kept)))
        print("  slowest 5:", " ".join("%.0f" % x for x in us[-5:]))


if __name__ == "__main__":
    main()
