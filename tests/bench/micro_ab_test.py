#!/usr/bin/env python3
"""Tests of bench/micro_ab.sh and bench/micro_ab.py: two builds' benchmarks read in pairs."""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, BENCH)
import micro_ab  # noqa: E402

# Three pairs; pair 3 lacks its "now" run and is left out; one benchmark in µs.
RUNS = """\
before 1 BM_A 2.0 ms
before 1 BM_B 100 us
now 1 BM_A 1.0 ms
now 1 BM_B 100 us

now 2 BM_A 2.0 ms
now 2 BM_B 120 us
before 2 BM_A 4.0 ms
before 2 BM_B 100 us
before 3 BM_A 9.0 ms
"""

# A budget_bench that answers as Google Benchmark's JSON: one iteration row a benchmark, its
# time the build's own (filled in below), and an aggregate row the script must skip.
FAKE_BENCH = """\
#!/bin/sh
echo "$@" >> "$(dirname "$0")/calls"
cat <<EOF
{"benchmarks": [
 {"name": "BM_X", "run_type": "iteration", "cpu_time": %s, "time_unit": "ms"},
 {"name": "BM_X_median", "run_type": "aggregate", "cpu_time": 99, "time_unit": "ms"}
]}
EOF
"""


class MicroAbTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_pairs_read_as_ratios_now_over_before(self):
        rows = micro_ab.table(micro_ab.read_runs(self.write("runs.txt", RUNS)))
        self.assertEqual(len(rows), 4)  # header, rule, two benchmarks
        # BM_A: ratios 0.5 and 0.5 (pair 3 has no "now"): the mean 0.50, an interval of width 0.
        self.assertEqual(rows[0], "| metric | before, median (range) | now, median (range) | "
                         "now / before, geometric mean | 95 % interval | lowest–highest | "
                         "runs ≤ 1.0 |")
        self.assertEqual(rows[2],
                         "| BM_A (ms) | 3 (2–4) | 1.5 (1–2) | 0.50 | 0.50–0.50 | 0.50–0.50 | 2 of 2 |")
        # BM_B: ratios 1.0 and 1.2, the geometric mean sqrt(1.2).
        self.assertTrue(rows[3].startswith("| BM_B (us) | 100 (100–100) | 110 (100–120) | 1.10 | "),
                        rows[3])
        self.assertTrue(rows[3].endswith(" | 1.00–1.20 | 1 of 2 |"), rows[3])

    def test_a_malformed_line_names_the_file_and_line(self):
        path = self.write("runs.txt", "before 1 BM_A 2.0 ms\nlater 1 BM_A 1.0 ms\n")
        with self.assertRaisesRegex(ValueError, r"runs\.txt:2: expected"):
            micro_ab.read_runs(path)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(micro_ab.main([path]), 2)
        self.assertIn("runs.txt:2", err.getvalue())

    def test_the_script_alternates_the_builds_and_writes_a_line_a_run(self):
        for build, ms in (("old", "4.0"), ("new", "3.0")):
            path = self.write(build + "/bench/budget_bench", FAKE_BENCH % ms)
            os.chmod(path, 0o755)
        out = os.path.join(self.dir.name, "runs.txt")
        result = subprocess.run(
            ["bash", os.path.join(BENCH, "micro_ab.sh"), os.path.join(self.dir.name, "old"),
             os.path.join(self.dir.name, "new"), "BM_X", "3", out],
            capture_output=True, text=True, check=True)
        with open(out) as f:
            lines = f.read().splitlines()
        # Pair 1 before first, pair 2 now first, pair 3 before first; no aggregate row.
        self.assertEqual(lines, [
            "before 1 BM_X 4.0 ms", "now 1 BM_X 3.0 ms",
            "now 2 BM_X 3.0 ms", "before 2 BM_X 4.0 ms",
            "before 3 BM_X 4.0 ms", "now 3 BM_X 3.0 ms"])
        self.assertIn("| BM_X (ms) | 4 (4–4) | 3 (3–3) | 0.75 | 0.75–0.75 | 0.75–0.75 | 3 of 3 |",
                      result.stdout)
        with open(os.path.join(self.dir.name, "old", "bench", "calls")) as f:
            self.assertEqual(f.read().splitlines()[0],
                             "--benchmark_filter=BM_X --benchmark_repetitions=1 "
                             "--benchmark_format=json")

    def test_the_script_refuses_a_build_without_the_benchmark(self):
        result = subprocess.run(
            ["bash", os.path.join(BENCH, "micro_ab.sh"), self.dir.name, self.dir.name, "BM_X",
             "1", os.path.join(self.dir.name, "runs.txt")], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no benchmark binary", result.stderr)


if __name__ == "__main__":
    unittest.main()
