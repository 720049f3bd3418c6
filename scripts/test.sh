#!/usr/bin/env bash
# Runs every test from nothing on Debian 12 (as root): installs the packages,
# builds the core, sbudget and the plugin (CMake preset "ci"), runs the unit,
# C ABI, CLI and plugin-loading tests, checks clang-format and clang-tidy
# (scripts/lint.sh), then the scenarios against a real cluster (munge,
# MariaDB, slurmdbd, slurmctld, 4 slurmd) that it starts and stops itself,
# also on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci -j2
ctest --preset ci -j2
./scripts/fuzz.sh --seconds 30
./scripts/lint.sh build/ci
tests/integration/run-all.sh "$PWD/build/ci"
