#!/usr/bin/env python3
"""callgrind_window.py FILE...: the instructions slurmctld executed in one window, by thread and
by function, from the per-thread files of one callgrind dump (bench/instructions_ab.sh).

Each file is one thread's part of a dump (valgrind --tool=callgrind --separate-threads=yes, then
`callgrind_control --dump`). A thread is classed by the functions it ran in the window; Debian's
slurmctld is stripped, so only its exported functions have names, and the classes rest on them:
  rpc       ran slurmctld_req: one thread per connection (sbatch, sprio, sshare, sdiag...)
  backfill  ran backfill_agent (the sched/backfill plugin's thread)
  priority  ran the priority plugin's pass: fair_tree_decay (multifactor's decay thread calls it
            once a pass) or _calc_pass (priority/budget's thread)
  main      ran build_job_queue and none of the above: the main scheduler's _sched_agent
  other     the rest (agents, pings, state saves, idle threads)
Prints one JSON object: {"total": Ir, "threads": {class: Ir}, "functions": {name: {"calls": n,
"inclusive": Ir}}} for the functions named with --function (calls into them and the instructions
spent in those calls, callees included, summed over every caller but the function itself). When
the dump counted more than instructions (callgrind's --cache-sim=yes: Dr, D1mr, ILmr...), each
function also gets "events": {event: inclusive count} for every event, Ir included.
"""
import argparse
import json
import re
import sys

CLASS_MARKERS = (
    ("rpc", {"slurmctld_req"}),
    ("backfill", {"backfill_agent"}),
    ("priority", {"fair_tree_decay", "_calc_pass"}),
    ("main", {"build_job_queue"}),
)

NAME_LINE = re.compile(r"^(c?fn)=\((\d+)\)(?: (.*))?$")


def read_thread(path, wanted):
    """One thread's file: its total Ir, the names of the functions it ran, the events it counted,
    and for each wanted function the calls into it and their inclusive count of each event (a
    cost line leaves out its trailing zeros)."""
    names = {}  # compressed id -> name (fn and cfn share one table)
    total = 0
    seen = set()
    events = ["Ir"]
    calls = {name: [0, []] for name in wanted}  # name -> [calls, inclusive count of each event]
    current_fn = None
    pending_call = None  # (callee, count) until its cost line
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            if not line:
                continue
            match = NAME_LINE.match(line)
            if match:
                kind, ident, name = match.groups()
                if name is not None:
                    names[ident] = name
                name = names.get(ident, "?")
                if kind == "fn":
                    current_fn = name
                    seen.add(name)
                else:
                    callee = name
                    seen.add(callee)
                    pending_call = (callee, None)
                continue
            if line.startswith("calls="):
                count = int(line[len("calls="):].split()[0])
                pending_call = (pending_call[0] if pending_call else "?", count)
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if line.startswith("totals:") or line.startswith("summary:"):
                total = int(line.split()[1])
                continue
            if line[0] in "0123456789+-*":
                if pending_call and pending_call[1] is not None:
                    callee, count = pending_call
                    if callee in calls and callee != current_fn:
                        costs = [int(field) for field in line.split()[1:]]
                        summed = calls[callee][1]
                        summed.extend([0] * (len(costs) - len(summed)))
                        for k, cost in enumerate(costs):
                            summed[k] += cost
                        calls[callee][0] += count
                    pending_call = None
                continue
            # Any other line (fl=, fi=, ob=, cfi=, cob=...) names a file or an object; a call's
            # cfi= or cob= may sit between its cfn= and calls=, and leaves the call pending.
    return total, seen, events, calls


def thread_class(seen):
    for name, markers in CLASS_MARKERS:
        if seen & markers:
            return name
    return "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--function", action="append", default=[],
                        help="report calls into this function and their inclusive Ir")
    args = parser.parse_args()
    result = {"total": 0, "threads": {name: 0 for name, _ in CLASS_MARKERS},
              "functions": {name: {"calls": 0, "inclusive": 0} for name in args.function}}
    result["threads"]["other"] = 0
    for path in args.files:
        total, seen, events, calls = read_thread(path, args.function)
        result["total"] += total
        result["threads"][thread_class(seen)] += total
        for name, (count, costs) in calls.items():
            function = result["functions"][name]
            function["calls"] += count
            function["inclusive"] += costs[0] if costs else 0
            if len(events) > 1:
                by_event = function.setdefault("events", {event: 0 for event in events})
                for event, cost in zip(events, costs):
                    by_event[event] = by_event.get(event, 0) + cost
    json.dump(result, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
