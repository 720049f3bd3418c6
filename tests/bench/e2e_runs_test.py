#!/usr/bin/env python3
"""Tests of bench/e2e_runs.py: the rounds of several e2e runs side by side and pooled."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import e2e_runs  # noqa: E402

import round_files  # noqa: E402

PASS = "priority recalculation pass, median (ms)"
RSS = "slurmctld RSS after the workload (MiB)"


def row(metric, multifactor, budget):
    ratio = budget / multifactor if multifactor and budget else None
    return {"metric": metric, "multifactor": multifactor, "budget": budget, "ratio": ratio}


class E2eRunsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        rounds = [
            [row(PASS, 8.0, 4.0), row(RSS, 100.0, 110.0)],
            [row(PASS, 10.0, 2.5), row(RSS, 100.0, 90.0)],
            [row(PASS, 9.0, 9.0)],  # no RSS measured in this round
        ]
        self.paths = round_files.write_rounds(self.dir.name,
                                              [{"table": table} for table in rounds])

    def tearDown(self):
        self.dir.cleanup()

    def run_main(self, args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            e2e_runs.main(args)
        rows = {}
        for line in out.getvalue().splitlines()[2:]:  # after the header and its rule
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows[cells[0]] = cells[1:]
        return rows

    def test_side_by_side_labels_each_round_and_counts_rounds_at_or_under_one(self):
        rows = self.run_main(self.paths)
        self.assertEqual(rows[PASS], ["0.50", "0.25", "1.00", "0.50", "3 of 3"])
        self.assertEqual(rows[RSS], ["1.10", "0.90", "n/a", "0.99", "1 of 2"])

    def test_summary_pools_values_and_ratios_over_every_round(self):
        rows = self.run_main(["--summary"] + self.paths)
        # multifactor 8, 10, 9; budget 4, 2.5, 9; ratios 0.5, 0.25, 1.0 (geometric mean 0.5).
        # Their logarithms -ln 2, -2 ln 2, 0: standard deviation ln 2, so the interval is
        # 0.5 * exp(±4.303 * ln 2 / sqrt(3)) (t for 2 degrees of freedom).
        self.assertEqual(rows[PASS], ["9 (8–10)", "4 (2.5–9)", "0.50", "0.09–2.80",
                                      "0.25–1.00", "3 of 3"])
        # 1.1 and 0.9: one degree of freedom, t 12.706.
        self.assertEqual(rows[RSS], ["100 (100–100)", "100 (90–110)", "0.99", "0.28–3.56",
                                     "0.90–1.10", "1 of 2"])

    def test_interval_narrows_with_agreeing_rounds_and_needs_two(self):
        self.assertIsNone(e2e_runs.geometric_interval([0.8]))
        low, high = e2e_runs.geometric_interval([0.8, 0.8, 0.8])
        self.assertAlmostEqual(low, 0.8)
        self.assertAlmostEqual(high, 0.8)
        # Eight rounds of 0.9 and 1.1 alternating: the mean of the logs is ln(0.99) / 2 and
        # the interval holds 1.0, a line these rounds cannot tell from multifactor's.
        low, high = e2e_runs.geometric_interval([0.9, 1.1] * 4)
        self.assertLess(low, 1.0)
        self.assertGreater(high, 1.0)
        # 20 rounds take the row of 19 degrees of freedom; 23, between the rows of 20 and 25, 20's.
        self.assertEqual(e2e_runs.t_975(19), 2.093)
        self.assertEqual(e2e_runs.t_975(22), 2.086)

    def write_run(self, name, multifactor_tunables, budget_tunables):
        path = os.path.join(self.dir.name, name)
        plugins = {}
        for plugin, tunables in (("multifactor", multifactor_tunables),
                                 ("budget", budget_tunables)):
            if tunables is not None:  # None: a run from before the phases recorded them
                plugins[plugin] = {"glibc_tunables": tunables}
        with open(path, "w") as f:
            json.dump({"table": [row(PASS, 8.0, 4.0)], "plugins": plugins}, f)
        return path

    def warnings_of(self, paths):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            e2e_runs.main(["--summary"] + paths)
        return err.getvalue()

    def test_runs_on_glibcs_defaults_pool_without_a_warning(self):
        older = self.write_run("e2e-run8-round1.json", None, None)
        newer = self.write_run("e2e-run10-round1.json", "", "")
        self.assertEqual(self.warnings_of(self.paths + [older, newer]), "")

    def test_two_allocators_are_enough_for_the_warning(self):
        fixed = self.write_run("e2e-run10-round1.json", "glibc.malloc.arena_max=1",
                               "glibc.malloc.arena_max=1")
        warning = self.warnings_of([self.paths[0], fixed])
        self.assertIn("different allocators", warning)
        self.assertIn("GLIBC_TUNABLES=glibc.malloc.arena_max=1 in run10-round1", warning)

    def test_runs_on_other_allocators_are_named(self):
        fixed = self.write_run("e2e-run10-round1.json", "glibc.malloc.arena_max=2",
                               "glibc.malloc.arena_max=2")
        mixed = self.write_run("e2e-run10-round2.json", "", "glibc.malloc.arena_max=2")
        warning = self.warnings_of([self.paths[0], fixed, mixed])
        self.assertIn("different allocators", warning)
        self.assertIn("glibc's defaults in run9-round1", warning)
        self.assertIn("GLIBC_TUNABLES=glibc.malloc.arena_max=2 in run10-round1", warning)
        self.assertIn("glibc's defaults / GLIBC_TUNABLES=glibc.malloc.arena_max=2 in "
                      "run10-round2", warning)

    def test_without_runs_it_exits_with_its_usage(self):
        with self.assertRaises(SystemExit) as stop:
            e2e_runs.main(["--summary"])
        self.assertIn("e2e_runs.py", str(stop.exception))


if __name__ == "__main__":
    unittest.main()
