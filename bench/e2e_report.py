#!/usr/bin/env python3
"""e2e_report.py: the table of bench/e2e.sh, budget against multifactor, from what it collected.

Reads WORK/phases.env (each phase's window on the monotonic clock), WORK/{multifactor,budget}.env
(client timings, sdiag, RSS), WORK/trace.txt (uprobes: fair_tree_decay entry and return and
multifactor's pow@plt on the "decay" thread, lock_slurmctld return and unlock_slurmctld entry on
the "decay" and "budget" threads; lock_slurmctld, job_allocate, priority_g_set and select_nodes on
the RPC threads during the timed submissions) and WORK/budget_passes.txt (priority/budget's own
pass log: jobs, pass usec, lock usec, save usec). Writes OUT/e2e.json and OUT/e2e.md. Standard
library only.

The lines of Slurm's own code are also read over the machine's speed: each window's time divided
by the mean of the yardsticks taken either side of it (yardstick_POINT_ms in the phase's env).
"""
import argparse
import json
import math
import os
import re
import statistics

PLUGINS = ("multifactor", "budget")
THREAD = {"multifactor": "decay", "budget": "budget"}
EVENT = re.compile(r"^\s*(?P<comm>.+?)-(?P<tid>\d+)\s+\[\d+\].*?\s(?P<ts>\d+\.\d+):\s+(?P<ev>\w+):")
PASS_GAP_S = 5.0  # lock holds further apart than this belong to different passes


def read_env(path):
    values = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, sep, value = line.strip().partition("=")
                if sep:
                    values[key] = value
    return values


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


# Each window of a phase and the yardsticks bench/e2e.sh takes before and after it.
YARDSTICK_WINDOWS = {"submit": ("submit", "quiet"), "quiet": ("quiet", "clients"),
                     "clients": ("clients", "end")}


def yardstick_points(env):
    """Each reading of the yardstick in a phase (CPU ms), by the point bench/e2e.sh took it at."""
    return {p: number(env.get("yardstick_%s_ms" % p))
            for p in ("submit", "quiet", "clients", "end")}


def window_yardsticks(env):
    """The machine's speed over each window (CPU ms of the yardstick): the mean of the readings
    before and after it, None when either is missing. "phase": the median of every reading."""
    point = yardstick_points(env)
    speeds = {window: ((point[a] + point[b]) / 2
                       if point[a] is not None and point[b] is not None else None)
              for window, (a, b) in YARDSTICK_WINDOWS.items()}
    readings = [v for v in point.values() if v is not None]
    speeds["phase"] = statistics.median(readings) if readings else None
    return speeds


def over(value, yardstick):
    """A time over the machine's speed in its window."""
    return value / yardstick if value is not None and yardstick else None


def read_trace(path):
    events = []
    if not os.path.exists(path):
        return events
    with open(path, errors="replace") as f:
        for line in f:
            m = EVENT.match(line)
            if m:
                events.append((float(m["ts"]), m["comm"].strip(), int(m["tid"]), m["ev"]))
    events.sort()
    return events


def in_window(events, start, end):
    return [e for e in events if start <= e[0] <= end]


def entry_to_return(events, entry, ret):
    """Durations (s) from each `entry` event to the next `ret` event on the same thread."""
    open_at, durations = {}, []
    for ts, _comm, tid, ev in events:
        if ev == entry:
            open_at[tid] = ts
        elif ev == ret and tid in open_at:
            durations.append(ts - open_at.pop(tid))
    return durations


def fair_tree_passes(events):
    """Durations (s) of fair_tree_decay: entry to return on the same thread."""
    return entry_to_return(events, "ftd_in", "ftd_out")


def multifactor_passes(events, start, end):
    """Durations (s) of multifactor's passes whose fair_tree_decay starts in [start, end].

    A pass starts with the usage decay (_apply_decay), before fair_tree_decay: at the decay
    thread's first call of multifactor's pow@plt since its previous pass (the decay factor,
    computed just before _apply_decay), when the trace has it (the kernel records it for the
    "decay" thread only) and it is less than PASS_GAP_S before; else at fair_tree_decay's
    entry. It ends when fair_tree_decay returns: the last job write lock release, as
    priority/budget's pass does.
    """
    decay_start, open_at, durations = {}, {}, []
    for ts, _comm, tid, ev in events:
        if ev == "pow_in":
            if tid not in open_at:
                decay_start.setdefault(tid, ts)
        elif ev == "ftd_in":
            begin = decay_start.pop(tid, ts)
            open_at[tid] = (begin if ts - begin <= PASS_GAP_S else ts, ts)
        elif ev == "ftd_out" and tid in open_at:
            begin, ftd_in = open_at.pop(tid)
            if start <= ftd_in <= end:
                durations.append(ts - begin)
    return durations


def lock_passes(events, thread):
    """Per pass: (total, longest) job write lock hold (s) of the priority thread.

    The kernel's event filter records only the "decay" and "budget" threads, and each phase
    runs one plugin, so every lock event of a phase is its priority thread's. The name is
    checked only when the trace shows it: for a thread it has not cached, it prints "<...>".
    """
    acquired, holds = {}, []
    for ts, comm, tid, ev in events:
        if comm not in (thread, "<...>"):
            continue
        if ev == "lock_out":
            acquired[tid] = ts
        elif ev == "unlock_in" and tid in acquired:
            start = acquired.pop(tid)
            holds.append((start, ts))
    passes, last_end = [], None
    for start, end in holds:
        if last_end is None or start - last_end > PASS_GAP_S:
            passes.append([])
        passes[-1].append(end - start)
        last_end = end
    return [(sum(p), max(p)) for p in passes]


def submissions(events):
    """Per job_allocate call on an RPC thread (the trace holds those of the timed sbatch only):
    (its duration, the time in priority_g_set within it, the time in select_nodes within it or
    None when it did not test nodes), in seconds."""
    open_at, calls = {}, []
    for ts, _comm, tid, ev in events:
        if ev == "alloc_in":
            open_at[tid] = {"start": ts, "pset": 0.0, "sel": None}
            continue
        call = open_at.get(tid)
        if call is None:
            continue
        if ev in ("pset_in", "sel_in"):
            call[ev] = ts
        elif ev == "pset_out" and "pset_in" in call:
            call["pset"] += ts - call.pop("pset_in")
        elif ev == "sel_out" and "sel_in" in call:
            call["sel"] = (call["sel"] or 0.0) + ts - call.pop("sel_in")
        elif ev == "alloc_out":
            del open_at[tid]
            calls.append((ts - call["start"], call["pset"], call["sel"]))
    return calls


def lock_waits(events):
    """Each wait (s) of an RPC thread in lock_slurmctld, entry to return."""
    return entry_to_return(events, "wait_in", "wait_out")


def mean(values):
    values = [v for v in values if v is not None]
    return statistics.mean(values) if values else None


PRIORITY_TIER = {"normal": 10, "debug": 10, "low": 1}  # tests/integration/lib/cluster.sh


def read_queue(path):
    """The pending jobs of `squeue -o "%i %Q %P %V"` as sort_job_queue2's keys (tier, then
    priority, highest first; then submit time and job id), in job id order: the order
    build_job_queue() hands them to the sort after a restart."""
    jobs = []
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0].isdigit() and parts[1].isdigit():
                job_id, prio = int(parts[0]), int(parts[1])
                jobs.append((job_id, (-PRIORITY_TIER.get(parts[2], 0), -prio, parts[3], job_id)))
    jobs.sort()
    return [key for _, key in jobs]


def merge_sort_comparisons(keys):
    """Comparisons glibc's qsort (a top-down merge sort for arrays this size) makes to sort
    `keys`: from n/2 log2 n for a queue already in order up to n log2 n."""
    count = 0

    def sort(items):
        nonlocal count
        if len(items) <= 1:
            return items
        left, right = sort(items[: len(items) // 2]), sort(items[len(items) // 2:])
        merged, i, j = [], 0, 0
        while i < len(left) and j < len(right):
            count += 1
            if left[i] <= right[j]:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
        return merged + left[i:] + right[j:]

    sort(keys)
    return count


def most_common_offset(histogram):
    """The offset most job records start at, from job_layout.py's "16:19012,48:990"."""
    counts = {}
    for item in (histogram or "").split(","):
        offset, sep, count = item.partition(":")
        if sep and count.isdigit():
            counts[offset] = int(count)
    return max(counts, key=counts.get) if counts else None


def diff(a, b):
    """a less b (a submission's time less its client's CPU, an RSS less its anonymous part);
    None when either is unread."""
    return a - b if a is not None and b is not None else None


def allocator_name(tunables):
    """slurmctld's allocator as its glibc tunables make it: "" is glibc's defaults, None not
    read."""
    if tunables is None:
        return "not read"
    return "GLIBC_TUNABLES=" + tunables if tunables else "glibc's defaults"


def allocator_note(multifactor, budget):
    """The report's line on glibc's tunables in slurmctld's environment (None: not read)."""
    if multifactor is None and budget is None:
        return "slurmctld's allocator: not read (a run from before the phases recorded it)."
    if multifactor == budget:
        return "slurmctld's allocator: %s in both phases." % allocator_name(multifactor)
    return ("slurmctld's allocator: %s under multifactor, %s under budget: the RSS and heap "
            "lines compare allocators as well as plugins." %
            (allocator_name(multifactor), allocator_name(budget)))


def ms(us):
    return us / 1e3 if us is not None else None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def percentile(values, q):
    """The value at rank int(q * n) of the n values sorted (the largest for q = 1)."""
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--accounts", type=int, required=True)
    ap.add_argument("--jobs", type=int, required=True)
    ap.add_argument("--quiet", type=int, required=True)
    ap.add_argument("--client-runs", type=int, required=True)
    ap.add_argument("--submit-timed", type=int, required=True)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()

    phases = read_env(os.path.join(args.work, "phases.env"))
    events = read_trace(os.path.join(args.work, "trace.txt"))
    budget_log = []
    path = os.path.join(args.work, "budget_passes.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 5:
                    budget_log.append(tuple(int(p) for p in parts))

    results = {}
    for plugin in PLUGINS:
        env = read_env(os.path.join(args.work, plugin + ".env"))
        start = number(phases.get(plugin + "_start"))
        end = number(phases.get(plugin + "_end"))
        window = in_window(events, start, end) if start is not None and end is not None else []
        locks = lock_passes(window, THREAD[plugin])
        r = {
            "pending_jobs": number(env.get("pending")),
            "lock_passes": len(locks),
            "lock_per_pass_ms": median([t * 1e3 for t, _ in locks]),
            "lock_longest_ms": median([m * 1e3 for _, m in locks]),
            "sprio_s": number(env.get("sprio_s")),
            "sprio_min_s": number(env.get("sprio_min_s")),
            "sprio_lines": number(env.get("sprio_lines")),
            "sprio_cpu_ms": number(env.get("sprio_cpu_ms")),
            "sshare_s": number(env.get("sshare_s")),
            "sshare_min_s": number(env.get("sshare_min_s")),
            "sshare_lines": number(env.get("sshare_lines")),
            "sbatch_per_s": number(env.get("sbatch_per_s")),
            "rpc_submit_ms": ms(number(env.get("rpc_submit_us"))),
            "sbatch_client_cpu_ms": number(env.get("sbatch_client_cpu_ms")),
            "rpc_sprio_ms": ms(number(env.get("rpc_sprio_us"))),
            "rpc_sshare_ms": ms(number(env.get("rpc_sshare_us"))),
            "sdiag_main_ms": None,
            "sdiag_backfill_ms": None,
            "rss_mib": None,
        }
        for key in ("main", "backfill"):
            us = number(env.get("sdiag_%s_us" % key))
            r["sdiag_%s_ms" % key] = us / 1e3 if us is not None else None
            us = number(env.get("sdiag_%s_max_us" % key))
            r["sdiag_%s_max_ms" % key] = us / 1e3 if us is not None else None
            r["sdiag_%s_cycles" % key] = number(env.get("sdiag_%s_cycles" % key))
            r["sdiag_%s_depth" % key] = number(env.get("sdiag_%s_depth" % key))
        sub_start = number(phases.get(plugin + "_submit_start"))
        sub_end = number(phases.get(plugin + "_submit_end"))
        sub_events = (in_window(events, sub_start, sub_end)
                      if sub_start is not None and sub_end is not None else [])
        calls = submissions(sub_events)
        waits = lock_waits(sub_events)
        # Every RPC in the window is one of the timed sbatch (the script sends nothing else).
        r["submit_lock_wait_ms"] = sum(waits) * 1e3 / len(calls) if calls and waits else None
        tested = [c for c in calls if c[2] is not None]
        r["allocs"] = len(calls)
        r["alloc_ms"] = mean([c[0] * 1e3 for c in calls])
        r["priority_set_us"] = mean([c[1] * 1e6 for c in calls])
        r["priority_set_median_us"] = median([c[1] * 1e6 for c in calls])
        r["allocs_tested"] = len(tested)
        r["alloc_select_ms"] = mean([c[2] * 1e3 for c in tested])
        r["alloc_rest_ms"] = mean([(c[0] - (c[2] or 0.0) - c[1]) * 1e3 for c in calls])
        sprio_start = number(phases.get(plugin + "_sprio_start"))
        sprio_end = number(phases.get(plugin + "_sprio_end"))
        sprio_events = (in_window(events, sprio_start, sprio_end)
                        if sprio_start is not None and sprio_end is not None else [])
        r["sprio_list_ms"] = median([d * 1e3 for d in
                                     entry_to_return(sprio_events, "list_in", "list_out")])
        r["job_start_mod_64"] = env.get("job_start_mod_64")
        r["job_walked_lines"] = number(env.get("job_walked_lines"))
        queue = read_queue(os.path.join(args.work, plugin + "-queue.txt"))
        r["queue_sort_comparisons"] = merge_sort_comparisons(queue) if queue else None
        for key in ("rss", "rss_anon", "rss_plugin"):
            kib = number(env.get(key + "_kib"))
            r[key + "_mib"] = kib / 1024 if kib is not None else None
        r["sbatch_per_job_ms"] = 1e3 / r["sbatch_per_s"] if r["sbatch_per_s"] else None
        r["heap_in_use_mib"] = number(env.get("heap_in_use_mib"))
        r["glibc_tunables"] = env.get("glibc_tunables")
        r["yardstick_ms"] = window_yardsticks(env)
        r["yardstick_points_ms"] = yardstick_points(env)
        if plugin == "multifactor":
            fair_tree = fair_tree_passes(window)
            passes = multifactor_passes(events, start, end) if window else []
            r["passes"] = len(passes)
            r["pass_ms"] = median([p * 1e3 for p in passes])
            r["pass_source"] = ("uprobes: the decay thread's pow() before _apply_decay to "
                                "fair_tree_decay's return")
            r["fair_tree_decay_ms"] = median([p * 1e3 for p in fair_tree])
        else:
            r["passes"] = len(budget_log)
            # The recalculation: from asking for the lock to releasing it. The ledger save
            # that follows (temp file, fsync, rename; no lock held) is reported apart:
            # multifactor's fair_tree_decay does not include its own state file write either.
            r["pass_ms"] = median([(p[1] - p[3]) / 1e3 for p in budget_log])
            r["pass_source"] = "log: _calc_pass without the ledger save"
            r["save_ms"] = median([p[3] / 1e3 for p in budget_log])
            r["log_lock_ms"] = median([p[2] / 1e3 for p in budget_log])
            r["log_jobs_ranked"] = median([p[0] for p in budget_log])
            r["log_jobs_by_name"] = median([p[4] for p in budget_log])
        results[plugin] = r

    mf, bu = results["multifactor"], results["budget"]

    def ratio(b, m):
        return b / m if b is not None and m not in (None, 0) else None

    rows = [
        ("priority recalculation pass, median (ms)", mf["pass_ms"], bu["pass_ms"], "%.1f"),
        ("job write lock held per pass, median (ms)", mf["lock_per_pass_ms"],
         bu["lock_per_pass_ms"], "%.1f"),
        ("longest single job write lock hold in a pass, median (ms)", mf["lock_longest_ms"],
         bu["lock_longest_ms"], "%.1f"),
        ("`sprio -l` wall time, median (s)", mf["sprio_s"], bu["sprio_s"], "%.3f"),
        ("`sprio -l` wall time, fastest run (s)", mf["sprio_min_s"], bu["sprio_min_s"], "%.3f"),
        ("`sprio -l` in slurmctld, mean (sdiag RPC, ms)", mf["rpc_sprio_ms"], bu["rpc_sprio_ms"],
         "%.2f"),
        ("`sprio -l`: the plugin's answer, built under the job read lock, median (uprobes, ms)",
         mf["sprio_list_ms"], bu["sprio_list_ms"], "%.2f"),
        ("`sprio -l`: the sprio process's own CPU, median (ms)", mf["sprio_cpu_ms"],
         bu["sprio_cpu_ms"], "%.1f"),
        ("`sshare -a -l` wall time, median (s)", mf["sshare_s"], bu["sshare_s"], "%.3f"),
        ("`sshare -a -l` wall time, fastest run (s)", mf["sshare_min_s"], bu["sshare_min_s"],
         "%.3f"),
        ("`sshare -a -l` in slurmctld, mean (sdiag RPC, ms)", mf["rpc_sshare_ms"],
         bu["rpc_sshare_ms"], "%.2f"),
        ("sbatch, time per job (ms)", mf["sbatch_per_job_ms"], bu["sbatch_per_job_ms"], "%.1f"),
        ("sbatch: the clients' own CPU per job, no plugin code (ms)",
         mf["sbatch_client_cpu_ms"], bu["sbatch_client_cpu_ms"], "%.1f"),
        ("sbatch: time per job less the clients' own CPU (ms)",
         diff(mf["sbatch_per_job_ms"], mf["sbatch_client_cpu_ms"]),
         diff(bu["sbatch_per_job_ms"], bu["sbatch_client_cpu_ms"]), "%.1f"),
        ("sbatch in slurmctld, mean (sdiag RPC, ms)", mf["rpc_submit_ms"], bu["rpc_submit_ms"],
         "%.2f"),
        ("sbatch: waiting for slurmctld's locks, mean (uprobes, ms)",
         mf["submit_lock_wait_ms"], bu["submit_lock_wait_ms"], "%.2f"),
        ("sbatch: job_allocate in slurmctld, mean (uprobes, ms)", mf["alloc_ms"],
         bu["alloc_ms"], "%.2f"),
        ("sbatch: the new job's priority (priority_g_set), mean (uprobes, µs)",
         mf["priority_set_us"], bu["priority_set_us"], "%.1f"),
        ("main scheduler cycle, mean (sdiag, ms)", mf["sdiag_main_ms"], bu["sdiag_main_ms"],
         "%.1f"),
        ("backfill cycle, mean (sdiag, ms)", mf["sdiag_backfill_ms"], bu["sdiag_backfill_ms"],
         "%.1f"),
        ("slurmctld RSS after the workload (MiB)", mf["rss_mib"], bu["rss_mib"], "%.0f"),
        ("slurmctld heap in use after the workload (malloc_stats, MiB)",
         mf.get("heap_in_use_mib"), bu.get("heap_in_use_mib"), "%.1f"),
        ("yardstick: `gzip -1` of 2.6 MB, median of the phase's readings (CPU ms)",
         mf["yardstick_ms"]["phase"], bu["yardstick_ms"]["phase"], "%.1f"),
    ]
    # The lines of Slurm's own code over the yardstick of their window.
    for name, key, window in (
            ("`sprio -l` wall time, median", "sprio_s", "clients"),
            ("`sprio -l` in slurmctld", "rpc_sprio_ms", "clients"),
            ("`sshare -a -l` wall time, median", "sshare_s", "clients"),
            ("sbatch, time per job", "sbatch_per_job_ms", "submit"),
            ("sbatch in slurmctld", "rpc_submit_ms", "submit"),
            ("main scheduler cycle", "sdiag_main_ms", "quiet"),
            ("backfill cycle", "sdiag_backfill_ms", "quiet")):
        values = [over(results[p][key], results[p]["yardstick_ms"][window]) for p in PLUGINS]
        rows.append(("%s, over the yardstick" % name, values[0], values[1], "%.4g"))

    def cell(value, fmt):
        return "n/a" if value is None else fmt % value

    lines = [
        "| metric | multifactor | budget | budget / multifactor |",
        "|---|---:|---:|---:|",
    ]
    table = []
    for name, m, b, fmt in rows:
        q = ratio(b, m)
        # The yardstick's ratio is the machine's, not a target's.
        verdict = ("" if q is None or name.startswith("yardstick") else
                   (" ✓" if q <= 1.0 else " ✗"))
        lines.append("| %s | %s | %s | %s%s |" % (name, cell(m, fmt), cell(b, fmt),
                                                 cell(q, "%.2f"), verdict))
        table.append({"metric": name, "multifactor": m, "budget": b, "ratio": q})
    notes = [
        "",
        "Workload: %d accounts (%s sshare rows), %s pending jobs (%s sprio rows), 4 busy nodes; "
        "sbatch throughput %s / %s jobs/s (multifactor / budget) over %d plain sbatch; "
        "clients: median and fastest of %d runs; sdiag over %d s after `sdiag -r`."
        % (args.accounts, cell(mf["sshare_lines"], "%.0f"), cell(mf["pending_jobs"], "%.0f"),
           cell(mf["sprio_lines"], "%.0f"), cell(mf["sbatch_per_s"], "%.1f"),
           cell(bu["sbatch_per_s"], "%.1f"), args.submit_timed, args.client_runs, args.quiet),
        "multifactor's pass starts with its usage decay, as priority/budget's does; "
        "fair_tree_decay alone takes %s ms (median)."
        % cell(mf.get("fair_tree_decay_ms"), "%.1f"),
        "Passes seen: multifactor %d (uprobes), budget %d (its log); lock holds "
        "from uprobes on lock_slurmctld/unlock_slurmctld of the priority thread: %d and %d passes. "
        "priority/budget's own log puts its lock hold at %s ms (median) for %s jobs ranked "
        "(%s of them looked up by name); "
        "after each pass it saves its ledger in %s ms (temp file, fsync, rename, no lock "
        "held), not counted in its pass above."
        % (mf["passes"], bu["passes"], mf["lock_passes"], bu["lock_passes"],
           cell(bu.get("log_lock_ms"), "%.1f"), cell(bu.get("log_jobs_ranked"), "%.0f"),
           cell(bu.get("log_jobs_by_name"), "%.0f"),
           cell(bu.get("save_ms"), "%.1f")),
        "Scheduler cycles in the window (sdiag): main %s and %s cycles (max %s and %s ms, mean "
        "depth %s and %s jobs); backfill %s and %s cycles (max %s and %s ms, mean depth %s and "
        "%s jobs), multifactor and budget."
        % tuple(cell(r.get(k), f) for k, f in (
            ("sdiag_main_cycles", "%.0f"), ("sdiag_main_max_ms", "%.1f"),
            ("sdiag_main_depth", "%.0f"), ("sdiag_backfill_cycles", "%.0f"),
            ("sdiag_backfill_max_ms", "%.1f"), ("sdiag_backfill_depth", "%.0f"))
            for r in (mf, bu)),
        "Submissions split (uprobes on the RPC threads): job_allocate ran %s and %s times and "
        "tested the nodes for %s and %s of the new jobs (select_nodes; for a batch job a test "
        "only, whose preemption check walks every job record), mean %s and %s ms; the "
        "priority plugin's priority_g_set took a median %s and %s µs; the rest of job_allocate "
        "(the job record, the checks, whether the job is the top priority) a mean %s and %s ms, "
        "multifactor and budget."
        % tuple(cell(r.get(k), f) for k, f in (
            ("allocs", "%d"), ("allocs_tested", "%d"), ("alloc_select_ms", "%.2f"),
            ("priority_set_median_us", "%.1f"), ("alloc_rest_ms", "%.2f")) for r in (mf, bu)),
        "slurmctld's RSS: anonymous memory (heap, thread arenas, stacks) %s and %s MiB, mapped "
        "files %s and %s MiB, of which the priority plugin and the C++ runtime it loads %s and "
        "%s MiB, multifactor and budget (e2e-PLUGIN-rss.txt: by mapping)."
        % tuple(cell(v, "%.1f") for v in (
            mf["rss_anon_mib"], bu["rss_anon_mib"], diff(mf["rss_mib"], mf["rss_anon_mib"]),
            diff(bu["rss_mib"], bu["rss_anon_mib"]), mf["rss_plugin_mib"],
            bu["rss_plugin_mib"])),
        "Sorting the pending queue (Slurm's sort_job_queue2 keys, glibc's merge sort, jobs in "
        "id order) takes %s comparisons under multifactor and %s under budget."
        % (cell(mf["queue_sort_comparisons"], "%.0f"), cell(bu["queue_sort_comparisons"], "%.0f")),
    ]
    layouts = [(r.get("job_start_mod_64"), r.get("job_walked_lines")) for r in (mf, bu)]
    same_layout = (None not in (layouts[0][1], layouts[1][1]) and
                   layouts[0][1] == layouts[1][1] and
                   most_common_offset(layouts[0][0]) == most_common_offset(layouts[1][0]))
    notes.append(
        "Job records (bench/job_layout.py): start offsets mod 64 %s and %s, %s and %s cache lines "
        "of each record read by the preemption walk, multifactor and budget%s."
        % (layouts[0][0] or "n/a", layouts[1][0] or "n/a", cell(layouts[0][1], "%.2f"),
           cell(layouts[1][1], "%.2f"),
           "" if same_layout else
           ": the two layouts differ, so the backfill line compares layouts as well as plugins"))
    notes.append(allocator_note(mf.get("glibc_tunables"), bu.get("glibc_tunables")))
    if args.smoke:
        notes.append("Smoke run: it checks that every measurement runs; its numbers mean little.")
    with open(os.path.join(args.out, "e2e.md"), "w") as f:
        f.write("\n".join(lines + notes) + "\n")
    with open(os.path.join(args.out, "e2e.json"), "w") as f:
        json.dump({"smoke": args.smoke, "accounts": args.accounts, "jobs": args.jobs,
                   "quiet_s": args.quiet, "client_runs": args.client_runs,
                   "submit_timed": args.submit_timed, "plugins": results, "table": table},
                  f, indent=2)
    print("\n".join(lines + notes))


if __name__ == "__main__":
    main()
