#!/usr/bin/env python3
# Run 53: python3 docs/performance/e2e-probe53-sampler.py docs/performance/e2e-run53-sampler.txt 30 passive, beside the run;
# then python3 docs/performance/e2e-probe53-by-phase.py THAT_FILE OUT_DIR (the run's, with round-N/e2e-phases.env).
"""Sums the passive sampler's lines over each phase of an e2e run: CPU by process (s a minute)."""
import collections, glob, re, sys

sampler, run_dir = sys.argv[1], sys.argv[2]
lines = []
for line in open(sampler):
    kv = dict(re.findall(r"(\w+)=(\S*)", line.split(" top=")[0]))
    top = line.rstrip("\n").split(" top=")[1] if " top=" in line else ""
    procs = collections.Counter()
    for item in filter(None, top.split(",")):
        name, _, ticks = item.rpartition(":")
        procs[name] += int(ticks)
    lines.append((float(kv["t"]), kv, procs))
period = lines[1][0] - lines[0][0]
for env in sorted(glob.glob(f"{run_dir}/round*/e2e-phases.env")):
    ph = dict(l.strip().split("=") for l in open(env) if "=" in l)
    for plugin in ("multifactor", "budget"):
        if f"{plugin}_start" not in ph:
            continue
        a, b = float(ph[f"{plugin}_start"]), float(ph[f"{plugin}_end"])
        sel = [x for x in lines if a + period <= x[0] <= b]
        if not sel:
            continue
        mins = len(sel) * period / 60
        tot = collections.Counter()
        for _, _, p in sel:
            tot.update(p)
        busy = sum(int(k["user"]) + int(k["sys"]) for _, k, _ in sel) / 100 / mins
        top = ", ".join(f"{n} {v / 100 / mins:.2f}" for n, v in tot.most_common(7))
        print(f"{env.split('/')[-2]} {plugin:11s} {mins:4.1f} min busy {busy:5.2f} s/min: {top}")
