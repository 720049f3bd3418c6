#!/usr/bin/env python3
"""Tests of bench/callgrind_window.py: a window's calls into named functions, their inclusive
instructions and, from a dump with callgrind's cache simulation, every event's count."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                      "callgrind_window.py")

# One RPC thread with the cache simulation's nine events. priority_g_set is called twice from
# job_allocate (one cost line) and once more, its cost line without its trailing zeros; its call
# to itself is not counted again.
CACHE_SIM = """\
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 1000 400 200 30 20 10 5 4 2

ob=(1) /usr/sbin/slurmctld
fl=(1) ???
fn=(1) slurmctld_req
0 100 40 20
cfn=(2) job_allocate
calls=2 0
0 800 300 150 25 15 8 4 3 1
fn=(2)
0 300 100
cfn=(3) priority_g_set
cob=(2) /usr/lib/x86_64-linux-gnu/slurm/priority_budget.so
calls=2 0
0 60 20 10 6 4 2 1
cfn=(3)
calls=1 0
0 10 5
fn=(3)
0 70 25 10
cfn=(3)
calls=1 0
0 5 1
"""

# A thread of the main scheduler, instructions only.
INSTRUCTIONS_ONLY = """\
version: 1
positions: line
events: Ir
summary: 500

fn=(1) build_job_queue
0 400
cfn=(2) priority_g_set
calls=4 0
0 100
"""


class CallgrindWindowTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def window(self, *texts):
        paths = []
        for k, text in enumerate(texts):
            path = os.path.join(self.dir.name, f"callgrind.out.1-{k + 1:02d}")
            with open(path, "w") as f:
                f.write(text)
            paths.append(path)
        out = subprocess.run([sys.executable, SCRIPT, "--function", "priority_g_set",
                              "--function", "job_allocate", *paths],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def test_counts_calls_and_their_instructions_by_thread(self):
        result = self.window(CACHE_SIM, INSTRUCTIONS_ONLY)
        self.assertEqual(result["total"], 1500)
        self.assertEqual(result["threads"]["rpc"], 1000)
        self.assertEqual(result["threads"]["main"], 500)
        g_set = result["functions"]["priority_g_set"]
        self.assertEqual(g_set["calls"], 7)
        self.assertEqual(g_set["inclusive"], 170)

    def test_sums_every_event_of_a_cache_simulation(self):
        result = self.window(CACHE_SIM)
        g_set = result["functions"]["priority_g_set"]
        self.assertEqual(g_set["calls"], 3)
        self.assertEqual(g_set["events"], {"Ir": 70, "Dr": 25, "Dw": 10, "I1mr": 6, "D1mr": 4,
                                           "D1mw": 2, "ILmr": 1, "DLmr": 0, "DLmw": 0})
        allocate = result["functions"]["job_allocate"]
        self.assertEqual(allocate["events"]["D1mr"], 15)
        self.assertEqual(allocate["events"]["DLmw"], 1)

    def test_gives_no_events_for_a_count_of_instructions_alone(self):
        result = self.window(INSTRUCTIONS_ONLY)
        self.assertNotIn("events", result["functions"]["priority_g_set"])
        self.assertEqual(result["functions"]["priority_g_set"]["inclusive"], 100)


if __name__ == "__main__":
    unittest.main()
