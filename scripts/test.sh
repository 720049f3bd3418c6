#!/usr/bin/env bash
# Runs every test from nothing on Debian 12 (as root): installs the packages,
# builds the core, sbudget and the plugin (CMake preset "ci"), runs the unit,
# C ABI, CLI and plugin-loading tests, checks clang-format and clang-tidy
# (scripts/lint.sh), then the scenarios against a real cluster (munge,
# MariaDB, slurmdbd, slurmctld, 4 slurmd) that it starts and stops itself,
# also on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

# Runs a step and says how long it took: the whole run must stay well under 30 minutes on
# 2 cores, and this is where to look when it does not.
step() {
  local started=$SECONDS
  "$@"
  echo "test.sh: $((SECONDS - started)) s for: $*"
}

step ./scripts/install-deps.sh
step cmake --preset ci
step cmake --build --preset ci -j2
step ctest --preset ci -j2
step ./scripts/fuzz.sh --seconds 30
step ./scripts/lint.sh build/ci
step tests/integration/run-all.sh "$PWD/build/ci"
echo "test.sh: every step passed in $SECONDS s"
