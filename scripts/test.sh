#!/usr/bin/env bash
# Runs every test from nothing on Debian 12 (as root): installs the packages,
# builds the plugins and sbudget (CMake preset "ci"), then, side by side, the
# scenarios against a real cluster (munge, MariaDB, slurmdbd, slurmctld,
# 4 slurmd) that they start and stop themselves, also on failure, and, one
# after the other: the rest of the build with the unit, C ABI, CLI and
# plugin-loading tests, the fuzzers, clang-format and clang-tidy
# (scripts/fuzz.sh, scripts/lint.sh) and the tests again under ASan+UBSan and
# TSan.
set -euo pipefail
cd "$(dirname "$0")/.."

# Runs a step and says how long it took: the whole run must stay well under 30 minutes on
# 2 cores, and this is where to look when it does not.
# Returns the step's own status, also where `set -e` is not in force.
step() {
  local started=$SECONDS rc=0
  "$@" || rc=$?
  echo "test.sh: $((SECONDS - started)) s for: $*$( ((rc == 0)) || echo " (FAILED, status $rc)")"
  return "$rc"
}

# The core, the C ABI and sbudget built and tested again under a sanitizer preset
# (asan: AddressSanitizer and UndefinedBehaviorSanitizer; tsan: ThreadSanitizer).
sanitized() {
  cmake --preset "$1" && cmake --build --preset "$1" -j2 && ctest --preset "$1" -j2
}

# The rest of build/ci (the tests' own programs) and its tests; package_install.sh builds
# the folder too, under the same lock.
unit_tests() {
  flock build/ci/.build.lock cmake --build --preset ci -j2 && ctest --preset ci -j2
}

# Every check runs, and the first failure is the status.
static_checks() {
  local rc=0
  step unit_tests || rc=1
  step ./scripts/fuzz.sh --seconds 30 || rc=1
  step ./scripts/lint.sh build/ci || rc=1
  step sanitized asan || rc=1
  step sanitized tsan || rc=1
  return "$rc"
}

step ./scripts/install-deps.sh
step cmake --preset ci
# What the scenarios run: the two plugins and sbudget. The rest of the build, the unit tests
# among them, waits for nothing the scenarios do.
step cmake --build --preset ci -j2 --target priority_budget job_submit_budget sbudget

# The unit tests, static checks and sanitizer builds keep both cores busy for some 20
# minutes; the scenarios mostly wait for slurmctld's passes. Run together, the checks at the
# lowest priority so that the daemons' timing is as on an idle machine, they take the time of
# the scenarios alone.
static_log=build/ci/static-checks.log
# Their own process group, so that an interrupted run stops them and their children too.
setsid nice -n 19 bash -c "set -uo pipefail; $(declare -f step unit_tests sanitized static_checks); static_checks" \
  >"$static_log" 2>&1 &
static_pid=$!
trap 'kill -- "-$static_pid" 2>/dev/null || true' EXIT
scenarios_rc=0
step tests/integration/run-all.sh "$PWD/build/ci" || scenarios_rc=$?
static_rc=0
wait "$static_pid" || static_rc=$?
trap - EXIT
echo "##### unit tests, fuzzers, lint and sanitizers (run beside the scenarios)"
cat "$static_log"
if ((scenarios_rc != 0 || static_rc != 0)); then
  echo "test.sh: failed: $( ((scenarios_rc)) && echo "the scenarios ")$( ((static_rc)) && echo "unit tests, fuzzers, lint or sanitizers")" >&2
  exit 1
fi
echo "test.sh: every step passed in $SECONDS s"
