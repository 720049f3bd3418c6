#!/usr/bin/env python3
"""Where a running slurmctld's job records sit in memory, relative to cache lines.

Usage: job_layout.py PID

Follows job_list (the executable's exported global, found with nm -D) through the
process's memory (/proc/PID/mem; root) and prints, on one line: the number of job
records, how many start at each offset modulo 64, and how many distinct 64-byte cache
lines the fields read for every job by Slurm's preemption walk span: het_job_id,
het_job_list and job_id (_add_preemptable_job), job_state (job_overlap_and_running,
cons_tres) and part_ptr (preempt_p_preemptable). The offsets are those of Slurm
22.05.8's job_record_t on x86-64 (bench/e2e.sh's target).

Why it matters: backfill walks all of job_list once for every job it tests, and the
walk is slower with the records at one offset than at another, under either priority
plugin (docs/performance-log.md, "A/B runs 5 to 7"); bench/e2e.sh records the layout of
each phase with this script.
"""
import collections
import os
import struct
import subprocess
import sys

# (offset, size) in job_record_t of the fields each walk reads, Slurm 22.05.8, x86-64.
WALKED_FIELDS = {
    "het_job_id": (328, 4),
    "het_job_list": (352, 8),
    "job_id": (360, 4),
    "job_state": (408, 4),
    "part_ptr": (608, 8),
}
LINE = 64


def symbol_offset(exe, name):
    out = subprocess.run(["nm", "-D", "--defined-only", exe], check=True,
                         capture_output=True, text=True).stdout
    for row in out.splitlines():
        fields = row.split()
        if len(fields) == 3 and fields[2] == name:
            return int(fields[0], 16)
    sys.exit(f"job_layout.py: no symbol {name} in {exe}")


def load_base(pid, exe):
    with open(f"/proc/{pid}/maps") as maps:
        for row in maps:
            fields = row.split()
            if (len(fields) >= 6 and int(fields[2], 16) == 0
                    and os.path.realpath(fields[5]) == exe):
                return int(fields[0].split("-")[0], 16)
    sys.exit(f"job_layout.py: {exe} not mapped in process {pid}")


def job_records(pid):
    exe = os.path.realpath(f"/proc/{pid}/exe")
    job_list_var = load_base(pid, exe) + symbol_offset(exe, "job_list")
    with open(f"/proc/{pid}/mem", "rb", 0) as mem:
        def pointer(addr):
            mem.seek(addr)
            return struct.unpack("<Q", mem.read(8))[0]

        # struct xlist { unsigned magic; struct listNode *head; ... }
        # struct listNode { void *data; struct listNode *next; }
        node = pointer(pointer(job_list_var) + 8)
        records = []
        while node:
            records.append(pointer(node))
            node = pointer(node + 8)
    return records


def lines_of(record):
    lines = set()
    for offset, size in WALKED_FIELDS.values():
        lines.add((record + offset) // LINE)
        lines.add((record + offset + size - 1) // LINE)
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: job_layout.py PID")
    records = job_records(int(sys.argv[1]))
    if not records:
        print("records=0")
        return
    by_offset = collections.Counter(r % LINE for r in records)
    lines = [len(lines_of(r)) for r in records]
    offsets = ",".join(f"{k}:{v}" for k, v in sorted(by_offset.items()))
    print(f"records={len(records)} start_mod_64={offsets} "
          f"walked_lines_per_record={sum(lines) / len(records):.2f} "
          f"walked_mb={sum(lines) * LINE / 1e6:.2f}")


if __name__ == "__main__":
    main()
