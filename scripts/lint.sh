#!/usr/bin/env bash
# Checks the C++ sources against .clang-format and .clang-tidy; exits non-zero on any finding.
#
# Usage: scripts/lint.sh BUILD_DIR
#   BUILD_DIR is a configured CMake build folder holding compile_commands.json (every preset
#   writes one: CMakeLists.txt sets CMAKE_EXPORT_COMPILE_COMMANDS). Configure it with
#   -DBUDGET_BUILD_PLUGIN=ON or not: only the C++ sources are checked.
#
# 1. clang-format --dry-run -Werror on every .cpp/.hpp under include/ src/ tests/.
#    The C files (src/slurm/*.c, tests/c_api/*.c, tests/plugin/*.c) are left out on purpose:
#    they follow Slurm's own C style (tabs, K&R braces), not the house .clang-format.
# 2. clang-tidy -p BUILD_DIR --quiet on every .cpp under src/ (core, c_api, cli), two files at
#    a time; the headers they include are checked through .clang-tidy's HeaderFilterRegex.
#    Tests are formatted but not tidied.
#
# The tools default to clang-format and clang-tidy on PATH (Debian 12: LLVM 14); set
# CLANG_FORMAT / CLANG_TIDY to use others. Other versions may format or diagnose differently.
# Almost all the time is clang-tidy: 3 to 36 s of CPU a file. Its checks walk every header a file
# includes, system ones too: CLI11 adds some 12 s to a file, nlohmann/json 6, which is why only
# the files that need them include them. The 50 files take about 5.5 minutes on 2 free cores.
set -euo pipefail

die() {
  echo "lint.sh: $*" >&2
  exit 2
}

[[ $# -eq 1 ]] || die "usage: $0 BUILD_DIR (a CMake build folder with compile_commands.json)"
build=$(cd "$1" 2>/dev/null && pwd) || die "no such build folder: $1"
[[ -f "$build/compile_commands.json" ]] ||
  die "$build has no compile_commands.json: configure it with cmake first"

cd "$(dirname "$0")/.."
root=$PWD
clang_format=${CLANG_FORMAT:-clang-format}
clang_tidy=${CLANG_TIDY:-clang-tidy}
command -v "$clang_format" >/dev/null || die "$clang_format not found (apt-get install clang-format)"
command -v "$clang_tidy" >/dev/null || die "$clang_tidy not found (apt-get install clang-tidy)"

mapfile -d '' format_files < <(find include src tests -type f \( -name '*.cpp' -o -name '*.hpp' \) \
  -print0 | sort -z)
# Slowest first, so that the two parallel runs end together: a file that includes CLI11, fmt or
# nlohmann/json costs several times a core file (those headers dominate), then larger files.
tidy_order() {
  local f cost
  while IFS= read -r -d '' f; do
    cost=$(stat -c %s "$f")
    if grep -qE '#include <(CLI|fmt|nlohmann)/' "$f"; then
      cost=$((cost + 1000000))
    fi
    printf '%d\t%s\0' "$cost" "$f"
  done < <(find src -type f -name '*.cpp' -print0) | sort -z -rn | cut -z -f2-
}
mapfile -d '' tidy_files < <(tidy_order)
[[ ${#format_files[@]} -gt 0 && ${#tidy_files[@]} -gt 0 ]] || die "no C++ sources found in $root"

# A source missing from the database would be tidied with guessed flags: ask for a re-configure
# instead (the core and the unit tests glob their sources when cmake runs).
missing=()
for f in "${tidy_files[@]}"; do
  grep -qF "/$f\"" "$build/compile_commands.json" || missing+=("$f")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  printf 'lint.sh: not in %s/compile_commands.json (re-run cmake on it): %s\n' \
    "$build" "${missing[*]}" >&2
  exit 1
fi

failed=0

echo "lint.sh: clang-format: ${#format_files[@]} files" >&2
if ! "$clang_format" --dry-run -Werror "${format_files[@]}"; then
  echo "lint.sh: clang-format: the files above differ from .clang-format;" \
    "fix with: $clang_format -i FILE" >&2
  failed=1
fi

# One clang-tidy per file. Its report is buffered and printed whole so that the two parallel
# runs do not interleave, without clang's "N warnings generated." count of the diagnostics
# that the configuration suppresses (system headers, unchecked families).
tidy_one() {
  local out rc=0
  out=$("$CLANG_TIDY_BIN" -p "$BUILD_DIR" --quiet "$1" 2>&1) || rc=$?
  out=$(grep -Ev '^[0-9]+ (warning|error)s? (and [0-9]+ (warning|error)s? )?generated\.$' \
    <<<"$out" || true)
  if [[ $rc -ne 0 || "$out" == *"warning:"* || "$out" == *"error:"* ]]; then
    printf '%s\nlint.sh: clang-tidy: findings in %s (exit %d)\n' "$out" "$1" "$rc" >&2
    return 1
  fi
}
export -f tidy_one
export CLANG_TIDY_BIN=$clang_tidy BUILD_DIR=$build

echo "lint.sh: clang-tidy: ${#tidy_files[@]} files, 2 at a time" >&2
# shellcheck disable=SC2016  # $1 is expanded by the inner bash, one file per call
if ! printf '%s\0' "${tidy_files[@]}" | xargs -0 -P2 -n1 bash -c 'tidy_one "$1"' tidy_one; then
  failed=1
fi

if [[ $failed -ne 0 ]]; then
  echo "lint.sh: FAILED" >&2
  exit 1
fi
echo "lint.sh: clean" >&2
