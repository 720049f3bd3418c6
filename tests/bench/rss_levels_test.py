#!/usr/bin/env python3
"""Tests of bench/rss_levels.py: slurmctld's RSS split into its level and the reading within."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import rss_levels  # noqa: E402

import round_files  # noqa: E402


def phase(rss, anon=None):
    values = {"rss_mib": rss}
    if anon is not None:
        values["rss_anon_mib"] = anon
    return values


class RssLevelsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        # (multifactor, budget): two rounds on one level, three on two, one without budget's RSS.
        rounds = [
            (phase(125.0, 118.0), phase(124.0, 116.82)),  # one level: 0.992, anon 0.990
            (phase(150.0, 143.0), phase(151.5, 142.0)),   # one level: 1.010, anon 0.993
            (phase(151.0), phase(126.0)),                 # multifactor higher
            (phase(150.0), phase(125.0)),                 # multifactor higher
            (phase(126.0), phase(152.0)),                 # budget higher
            (phase(126.0), {}),                           # budget's RSS not read
        ]
        self.paths = round_files.write_rounds(
            self.dir.name, [{"plugins": {"multifactor": multifactor, "budget": budget}}
                            for multifactor, budget in rounds])

    def tearDown(self):
        self.dir.cleanup()

    def run_main(self, args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = rss_levels.main(args)
        return status, out.getvalue().splitlines()

    def test_rounds_split_by_level_and_read_within_one(self):
        status, lines = self.run_main(self.paths)
        self.assertEqual(status, 0)
        self.assertEqual(lines[0],
                         "5 rounds; 2 with both phases on one level (within 10 MiB), 3 on two")
        # 124/125 = 0.992 and 151.5/150 = 1.01: geometric mean sqrt(0.992 * 1.01) = 1.0010; one
        # degree of freedom (t 12.706) makes the interval wide.
        self.assertTrue(lines[2].startswith("  RSS: 1.0010 ("), lines[2])
        self.assertTrue(lines[2].endswith(", 1 of 2 at or under 1.0"), lines[2])
        # 116.82/118 = 0.99 and 142/143 = 0.993: both under 1.0.
        self.assertTrue(lines[3].startswith("  its anonymous part: 0.9915 ("), lines[3])
        self.assertTrue(lines[3].endswith(", 2 of 2 at or under 1.0"), lines[3])
        # 2 against 1: the two-sided sign test's p is 2 * (1 + 3) / 8 = 1.0.
        self.assertEqual(lines[4], "On two levels: multifactor's phase higher in 2, budget's in "
                                   "1 (sign test, two-sided p 1.00)")

    def test_a_narrow_gap_puts_every_round_on_two_levels(self):
        status, lines = self.run_main(["--level-gap", "0.5"] + self.paths)
        self.assertEqual(status, 0)
        self.assertEqual(lines[0],
                         "5 rounds; 0 with both phases on one level (within 0.5 MiB), 5 on two")
        self.assertEqual(lines[2], "  RSS: no round")
        self.assertEqual(lines[4], "On two levels: multifactor's phase higher in 3, budget's in "
                                   "2 (sign test, two-sided p 1.00)")

    def test_sign_test_p(self):
        self.assertEqual(rss_levels.sign_test_p(0, 0), 1.0)
        self.assertEqual(rss_levels.sign_test_p(5, 0), 0.0625)  # 2 / 32
        self.assertEqual(rss_levels.sign_test_p(0, 5), 0.0625)
        self.assertEqual(rss_levels.sign_test_p(1, 1), 1.0)
        # 19 against 10: 2 * P(X <= 10) for 29 fair throws.
        self.assertAlmostEqual(rss_levels.sign_test_p(19, 10), 0.1360, places=4)

    def warnings_of(self, paths):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status, _ = self.run_main(paths)
        self.assertEqual(status, 0)
        return err.getvalue()

    def test_rounds_on_one_allocator_pool_without_a_warning(self):
        self.assertEqual(self.warnings_of(self.paths), "")

    def test_rounds_on_two_allocators_are_named(self):
        one_arena = {"rss_mib": 125.0, "glibc_tunables": "glibc.malloc.arena_max=1"}
        other = round_files.write_rounds(
            os.path.join(self.dir.name, "other"),
            [{"plugins": {"multifactor": one_arena, "budget": dict(one_arena, rss_mib=124.0)}}])
        warning = self.warnings_of(self.paths[:1] + other)
        self.assertIn("rss_levels.py: these runs' slurmctld had different allocators", warning)
        self.assertIn("glibc's defaults in run9-round1", warning)
        self.assertIn("GLIBC_TUNABLES=glibc.malloc.arena_max=1 in run9-round1", warning)

    def test_a_round_left_out_names_no_allocator(self):
        # The sixth round has no budget RSS: its allocator, another, is not pooled either.
        left_out = round_files.write_rounds(
            os.path.join(self.dir.name, "other"),
            [{"plugins": {"multifactor": {"rss_mib": 126.0,
                                          "glibc_tunables": "glibc.malloc.arena_max=1"},
                          "budget": {"glibc_tunables": "glibc.malloc.arena_max=1"}}}])
        self.assertEqual(self.warnings_of(self.paths + left_out), "")

    def test_no_round_with_both_readings_is_an_error_naming_the_files(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status, lines = self.run_main(self.paths[5:])
        self.assertEqual(status, 1)
        self.assertEqual(lines, [])
        self.assertIn("no round with both RSS readings in " + self.paths[5], err.getvalue())


if __name__ == "__main__":
    unittest.main()
