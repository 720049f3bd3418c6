#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang (address + undefined sanitizers)
# against the core's sources, then runs each for a while from the seed corpus.
#
#   scripts/fuzz.sh [--seconds N] [--build DIR] [--jobs J] [TARGET...]
#
#   --seconds N   fuzzing time per target (default 30; 0 only builds and replays the seeds)
#   --build DIR   where objects, binaries and the growing corpus go (default build/fuzz)
#   --jobs J      parallel compilations (default 2)
#   TARGET        config_fuzzer, state_file_fuzzer (default: every fuzz/*_fuzzer.cpp)
#
# Exits non-zero on a crash, a leak, a sanitizer report or a timeout; the
# reproducer is left in DIR/artifacts/ (replay: DIR/bin/TARGET FILE).
# Needs clang and libclang-rt-14-dev (scripts/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
build=build/fuzz
jobs=2
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ((${#targets[@]} == 0)); then
  for f in fuzz/*_fuzzer.cpp; do
    t=${f##*/}
    targets+=("${t%.cpp}")
  done
fi

cxx=$(command -v clang++-14 || command -v clang++ || true)
if [[ -z "$cxx" ]]; then
  echo "fuzz.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
fi
flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -Iinclude
  -fsanitize=address,undefined -fno-sanitize-recover=all)

mkdir -p "$build/obj" "$build/bin" "$build/artifacts"
build=$(cd "$build" && pwd)

# The core, instrumented for coverage (fuzzer-no-link) but without libFuzzer's main.
objects=()
pids=()
for src in src/core/*.cpp; do
  obj=$build/obj/$(basename "${src%.cpp}").o
  objects+=("$obj")
  if [[ ! -f "$obj" || "$src" -nt "$obj" || -n "$(find include/budget -newer "$obj" -print -quit)" ]]; then
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj" &
    pids+=($!)
    if ((${#pids[@]} >= jobs)); then
      wait "${pids[0]}"
      pids=("${pids[@]:1}")
    fi
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid"
done

status=0
for t in "${targets[@]}"; do
  [[ -f "fuzz/$t.cpp" ]] || { echo "fuzz.sh: no fuzz/$t.cpp" >&2; exit 2; }
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "fuzz/$t.cpp" "${objects[@]}" -o "$build/bin/$t"
  seeds=fuzz/corpus/${t%_fuzzer}
  corpus=$build/corpus/${t%_fuzzer}
  mkdir -p "$corpus"
  dict=()
  [[ -f "fuzz/${t%_fuzzer}.dict" ]] && dict=(-dict="fuzz/${t%_fuzzer}.dict")
  if ((seconds > 0)); then
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "${dict[@]}" "$corpus" "$seeds")
  else
    args=(-runs=0 -artifact_prefix="$build/artifacts/$t-" "$seeds")
  fi
  echo "##### $t (${seconds}s)"
  if ! "$build/bin/$t" "${args[@]}" 2>"$build/$t.log"; then
    tail -n 40 "$build/$t.log" >&2
    echo "fuzz.sh: $t FAILED (log: $build/$t.log)" >&2
    status=1
    continue
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|^Done|^INFO: seed corpus' \
    "$build/$t.log" || true
  echo "$t: corpus $(find "$corpus" -type f | wc -l) inputs"
done
exit "$status"
