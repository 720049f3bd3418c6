#!/usr/bin/env python3
"""Tests of bench/ab_pairs.py: an A/B script's phases paired and read as e2e rounds."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import ab_pairs  # noqa: E402

# An ABBA plan with a phase left over and one test of the nodes that was not timed.
PHASES = """\
mf1 plugin=multifactor dir=- per_job_ms=5.0 select_median_us=300 job layout start_mod_64=16
bu1 plugin=budget dir=/x per_job_ms=4.0 select_median_us=n/a

bu2 plugin=budget dir=/x per_job_ms=6.0 select_median_us=200
mf2 plugin=multifactor dir=- per_job_ms=5.0 select_median_us=400
mf3 plugin=multifactor dir=- per_job_ms=5.0 select_median_us=400
"""


class AbPairsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "sbatch_ab.txt")
        with open(self.path, "w") as f:
            f.write(PHASES)

    def tearDown(self):
        self.dir.cleanup()

    def test_pairs_the_nth_phase_of_each_plugin_and_leaves_the_extra_one_out(self):
        runs = ab_pairs.pairs_as_runs(ab_pairs.read_phases(self.path), ["per_job_ms"])
        self.assertEqual([label for label, _ in runs], ["bu1/mf1", "bu2/mf2"])
        self.assertAlmostEqual(runs[0][1]["per_job_ms"]["ratio"], 0.8)
        self.assertAlmostEqual(runs[1][1]["per_job_ms"]["ratio"], 1.2)

    def test_a_value_that_is_not_a_number_gives_no_ratio(self):
        runs = ab_pairs.pairs_as_runs(ab_pairs.read_phases(self.path), ["select_median_us"])
        self.assertIsNone(runs[0][1]["select_median_us"]["ratio"])
        self.assertAlmostEqual(runs[1][1]["select_median_us"]["ratio"], 0.5)

    def test_a_field_over_another_is_each_phases_quotient(self):
        runs = ab_pairs.pairs_as_runs(ab_pairs.read_phases(self.path),
                                      ["select_median_us/per_job_ms"])
        # bu1's test of the nodes is n/a: no quotient; pair 2: (200 / 6) / (400 / 5).
        self.assertIsNone(runs[0][1]["select_median_us/per_job_ms"]["budget"])
        self.assertAlmostEqual(runs[0][1]["select_median_us/per_job_ms"]["multifactor"], 60.0)
        self.assertAlmostEqual(runs[1][1]["select_median_us/per_job_ms"]["ratio"],
                               (200 / 6) / (400 / 5))

    def test_prints_the_pooled_table_then_the_pairs(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ab_pairs.main([self.path, "per_job_ms", "select_median_us"])
        lines = out.getvalue().splitlines()
        # 0.8 and 1.2: geometric mean sqrt(0.96), one degree of freedom.
        self.assertIn("| per_job_ms | 5 (5–5) | 5 (4–6) | 0.98 | 0.07–12.88 | 0.80–1.20 | 1 of 2 |",
                      lines)
        self.assertIn("| select_median_us | 350 (300–400) | 200 (200–200) | 0.50 | n/a | "
                      "0.50–0.50 | 1 of 1 |", lines)
        self.assertIn("| per_job_ms | 0.80 | 1.20 | 0.98 | 1 of 2 |", lines)

    def test_a_file_without_both_plugins_is_an_error(self):
        with open(self.path, "w") as f:
            f.write("mf1 plugin=multifactor per_job_ms=5.0\n")
        with self.assertRaises(SystemExit) as stop:
            ab_pairs.main([self.path, "per_job_ms"])
        self.assertIn("no multifactor and budget phases", str(stop.exception))


if __name__ == "__main__":
    unittest.main()
