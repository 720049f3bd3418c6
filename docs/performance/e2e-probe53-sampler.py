#!/usr/bin/env python3
"""Probe for run 52's yardstick question. Usage: sampler.py OUT [PERIOD_S] [passive]

"passive" leaves the gzip yardstick out: the line is only read from /proc and /sys.

Every PERIOD seconds, one line: CLOCK_MONOTONIC, the machine's ticks by kind since the line
before, DAMON's pageout since then, major faults and pages read in, the processes that used CPU,
and the gzip yardstick (gzip -1 of `seq 1 400000`, five runs) with user time, system time and
major faults apart (wait4's rusage of each run).
"""
import os, subprocess, sys, time

out_path, period = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
with_gzip = len(sys.argv) <= 3 or sys.argv[3] != "passive"
yin = "/tmp/probe53-yardstick.in"
with open(yin, "w") as f:
    f.write("".join(f"{i}\n" for i in range(1, 400001)))
damon = "/sys/kernel/mm/damon/admin/kdamonds/0"


def stat_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return {"user": v[0] + v[1], "sys": v[2] + v[5] + v[6], "idle": v[3], "iowait": v[4],
            "steal": v[7]}


def vmstat():
    want = {"pgmajfault", "pgpgin", "pgsteal_kswapd", "pgsteal_direct"}
    r = {}
    with open("/proc/vmstat") as f:
        for line in f:
            k, v = line.split()
            if k in want:
                r[k] = int(v)
    return r


def damon_applied():
    try:
        with open(damon + "/state", "w") as f:
            f.write("update_schemes_stats")
        with open(damon + "/contexts/0/schemes/0/stats/sz_applied") as f:
            return int(f.read())
    except OSError:
        return 0


def procs():
    r = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                s = f.read()
        except OSError:
            continue
        i, j = s.index("("), s.rindex(")")
        a = s[j + 2:].split()
        r[int(pid)] = (s[i + 1:j].replace(" ", "_"), int(a[11]) + int(a[12]))
    return r


def yardstick():
    runs = []
    for _ in range(5):
        p = subprocess.Popen(["gzip", "-1", "-c", yin], stdout=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        runs.append((ru.ru_utime * 1000, ru.ru_stime * 1000, ru.ru_majflt, ru.ru_minflt))
    tot = sorted(u + s for u, s, _, _ in runs)
    us = sorted(r[0] for r in runs)
    sy = sorted(r[1] for r in runs)
    return (f"ys={tot[2]:.1f} ys_min={tot[0]:.1f} ys_user={us[2]:.1f} ys_sys={sy[2]:.1f} "
            f"ys_majflt={sum(r[2] for r in runs)} ys_minflt={runs[-1][3]}")


pt, pv, pd, pp = stat_ticks(), vmstat(), damon_applied(), procs()
with open(out_path, "a", buffering=1) as out:
    while True:
        time.sleep(period)
        t = time.monotonic()
        ticks, vm, dm, pr = stat_ticks(), vmstat(), damon_applied(), procs()
        ys = yardstick() if with_gzip else ""
        top = sorted(((c - pp[p][1], f"{n}:{c - pp[p][1]}") for p, (n, c) in pr.items()
                      if p in pp and c > pp[p][1]), reverse=True)[:8]
        out.write(f"t={t:.3f} " + " ".join(f"{k}={ticks[k] - pt[k]}" for k in ticks)
                  + f" damon_kb={(dm - pd) // 1024} "
                  + " ".join(f"{k}={vm.get(k, 0) - pv.get(k, 0)}" for k in sorted(vm))
                  + f" {ys} top={','.join(x for _, x in top)}\n")
        pt, pv, pd, pp = ticks, vm, dm, pr
