#!/usr/bin/env python3
"""instructions_report.py OUT_DIR: the table of bench/instructions_ab.sh, instructions (Ir) a
unit of each line under each phase, and budget / multifactor on the mean of each plugin's
phases. Reads OUT_DIR/instructions_ab.txt and OUT_DIR/instructions_ab-LABEL-WINDOW.json.
Standard library only.
"""
import argparse
import json
import os
import statistics
import sys

PASS_FUNCTION = {"multifactor": "fair_tree_decay", "budget": "_calc_pass"}


def read_phases(out):
    phases = []
    with open(os.path.join(out, "instructions_ab.txt"), encoding="utf-8") as lines:
        for line in lines:
            words = line.split()
            if not words:
                continue
            phase = {"label": words[0]}
            for word in words[1:]:
                key, _, value = word.partition("=")
                phase[key] = value
            for window in ("idle", "submit", "sprio", "sshare"):
                path = os.path.join(out, f"instructions_ab-{phase['label']}-{window}.json")
                with open(path, encoding="utf-8") as f:
                    phase[window] = json.load(f)
            phases.append(phase)
    return phases


def per(total, count):
    count = float(count)
    return total / count if count > 0 else None


def per_call(window, function):
    entry = window["functions"][function]
    return per(entry["inclusive"], entry["calls"])


def rpc(window):
    return window["functions"]["slurmctld_req"]["inclusive"]


# Each line: its name and how to get it from one phase (None where the phase has no such unit).
LINES = (
    ("priority pass: the plugin's thread, a pass",
     lambda p: per(p["idle"]["threads"]["priority"],
                   p["idle"]["functions"][PASS_FUNCTION[p["plugin"]]]["calls"])),
    ("main scheduler cycle: its thread, a cycle (sdiag's count)",
     lambda p: per(p["idle"]["threads"]["main"], p["main_cycles"])),
    ("backfill cycle: its thread, a cycle (sdiag's count)",
     lambda p: per(p["idle"]["threads"]["backfill"], p["backfill_cycles"])),
    ("idle slurmctld, all threads, a second",
     lambda p: per(p["idle"]["total"], p["idle_s"])),
    ("sbatch in slurmctld: slurmctld_req, a job",
     lambda p: per(rpc(p["submit"]), p["submits"])),
    ("sbatch: job_allocate, a call",
     lambda p: per_call(p["submit"], "job_allocate")),
    ("sbatch: the new job's priority (priority_g_set), a call",
     lambda p: per_call(p["submit"], "priority_g_set")),
    ("`sprio -l` in slurmctld: slurmctld_req, a run",
     lambda p: per(rpc(p["sprio"]), p["runs"])),
    ("`sprio -l`: the plugin's answer (priority_g_get_priority_factors_list), a call",
     lambda p: per_call(p["sprio"], "priority_g_get_priority_factors_list")),
    ("`sprio -l`: the sprio process itself, a run",
     lambda p: float(p["sprio_client_ir"])),
    ("`sshare -a -l` in slurmctld: slurmctld_req, a run",
     lambda p: per(rpc(p["sshare"]), p["runs"])),
)


def fmt(value):
    if value is None:
        return "n/a"
    if value >= 1e6:
        return f"{value / 1e6:,.2f} M"
    if value >= 1e4:
        return f"{value / 1e3:,.1f} k"
    return f"{value:,.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    args = parser.parse_args()
    phases = read_phases(args.out)
    if not phases:
        sys.exit(f"instructions_report.py: no phase in {args.out}/instructions_ab.txt")
    header = ["line (Ir)"] + [f"{p['label']} ({p['plugin']})" for p in phases]
    header += ["budget / multifactor", "A/A spread"]
    print("| " + " | ".join(header) + " |")
    print("|---" + "|---:" * (len(header) - 1) + "|")
    for name, get in LINES:
        values = [get(p) for p in phases]
        by_plugin = {}
        for phase, value in zip(phases, values):
            if value is not None:
                by_plugin.setdefault(phase["plugin"], []).append(value)
        ratio = "n/a"
        if by_plugin.get("budget") and by_plugin.get("multifactor"):
            ratio = (f"{statistics.mean(by_plugin['budget']) / statistics.mean(by_plugin['multifactor']):.3f}")
        # The largest ratio between two phases of one plugin: what the count itself varies by.
        spreads = [max(v) / min(v) for v in by_plugin.values() if len(v) > 1 and min(v) > 0]
        spread = f"{max(spreads):.3f}" if spreads else "n/a"
        print("| " + " | ".join([name] + [fmt(v) for v in values] + [ratio, spread]) + " |")
    rows = ", ".join(f"{p['label']} {p['rows']}" for p in phases)
    calls = ", ".join(f"{p['label']} {p['submit']['functions']['slurmctld_req']['calls']}/"
                      f"{p['sprio']['functions']['slurmctld_req']['calls']}/"
                      f"{p['sshare']['functions']['slurmctld_req']['calls']}" for p in phases)
    print()
    print(f"RPCs handled in the submit/sprio/sshare windows (slurmctld_req's calls; "
          f"{phases[0]['submits']}/{phases[0]['runs']}/{phases[0]['runs']} are the clients'): {calls}.")
    print(f"Phases' sprio rows: {rows}. Instructions are callgrind's Ir (instructions executed): "
          "no cache misses, no lock waits; see bench/instructions_ab.sh.")


if __name__ == "__main__":
    main()
