#!/usr/bin/env python3
"""Tests of bench/e2e_report.py's yardsticks: each window's time read over the machine's speed."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import e2e_report  # noqa: E402


class WindowYardsticksTest(unittest.TestCase):
    def test_each_window_is_the_mean_of_the_readings_either_side(self):
        env = {"yardstick_submit_ms": "30", "yardstick_quiet_ms": "40",
               "yardstick_clients_ms": "50", "yardstick_end_ms": "70"}
        speeds = e2e_report.window_yardsticks(env)
        self.assertEqual(speeds["submit"], 35.0)
        self.assertEqual(speeds["quiet"], 45.0)
        self.assertEqual(speeds["clients"], 60.0)
        self.assertEqual(speeds["phase"], 45.0)  # the median of 30, 40, 50, 70

    def test_a_missing_reading_leaves_only_its_windows_unread(self):
        env = {"yardstick_submit_ms": "30", "yardstick_quiet_ms": "40",
               "yardstick_clients_ms": "nan"}
        speeds = e2e_report.window_yardsticks(env)
        self.assertEqual(speeds["submit"], 35.0)
        self.assertIsNone(speeds["quiet"])
        self.assertIsNone(speeds["clients"])
        self.assertEqual(speeds["phase"], 35.0)

    def test_the_points_are_kept_as_read(self):
        env = {"yardstick_submit_ms": "30", "yardstick_end_ms": "70", "pending": "5"}
        self.assertEqual(e2e_report.yardstick_points(env),
                         {"submit": 30.0, "quiet": None, "clients": None, "end": 70.0})

    def test_a_run_without_yardsticks_reads_none(self):
        speeds = e2e_report.window_yardsticks({})
        self.assertEqual(set(speeds.values()), {None})

    def test_a_time_over_its_window(self):
        self.assertEqual(e2e_report.over(90.0, 45.0), 2.0)
        self.assertIsNone(e2e_report.over(None, 45.0))
        self.assertIsNone(e2e_report.over(90.0, None))
        self.assertIsNone(e2e_report.over(90.0, 0.0))

    def test_a_time_less_one_of_its_parts(self):
        self.assertEqual(e2e_report.diff(32.5, 27.5), 5.0)
        self.assertIsNone(e2e_report.diff(None, 27.5))
        self.assertIsNone(e2e_report.diff(32.5, None))


class AllocatorNoteTest(unittest.TestCase):
    def test_the_same_tunables_in_both_phases(self):
        self.assertEqual(e2e_report.allocator_note("glibc.malloc.arena_max=2",
                                                   "glibc.malloc.arena_max=2"),
                         "slurmctld's allocator: GLIBC_TUNABLES=glibc.malloc.arena_max=2 in "
                         "both phases.")

    def test_no_tunables_reads_as_the_defaults(self):
        self.assertEqual(e2e_report.allocator_note("", ""),
                         "slurmctld's allocator: glibc's defaults in both phases.")

    def test_phases_that_differ_are_flagged(self):
        note = e2e_report.allocator_note("", "glibc.malloc.arena_max=2")
        self.assertIn("glibc's defaults under multifactor", note)
        self.assertIn("GLIBC_TUNABLES=glibc.malloc.arena_max=2 under budget", note)
        self.assertIn("compare allocators as well as plugins", note)

    def test_a_run_that_did_not_read_them(self):
        self.assertEqual(e2e_report.allocator_note(None, None),
                         "slurmctld's allocator: not read (a run from before the phases recorded it).")


if __name__ == "__main__":
    unittest.main()
