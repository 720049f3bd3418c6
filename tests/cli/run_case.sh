#!/usr/bin/env bash
# Runs one CLI golden case and compares its exit code, stdout and stderr with the expected files.
#
# usage: run_case.sh SBUDGET CASES_DIR/NAME [--update]
#   NAME.args    arguments, one per line (a blank line is an empty argument)
#   NAME.stdout  expected standard output; absent: stdout must be empty
#   NAME.stderr  expected standard error; absent: stderr must be empty
#   NAME.code    expected exit code; absent: 0
#   NAME.path    optional: directories, one per line, relative to the working
#                directory (tests/cli/), put first on PATH for this case only,
#                in order; e.g. `data/fake-bin` to run its fake `sacct`
#   NAME.env     optional: VAR=VALUE lines set in sbudget's environment for this
#                case only, e.g. SLURM_CONF=data/plugin_paths/slurm.conf (without it,
#                SLURM_CONF names a file that does not exist, never this machine's)
# --update writes what sbudget printed into those files instead of comparing
# (review the diff before committing it).
set -u

sbudget=$1
case_path=$2
update=${3:-}

if [[ ! -f "$case_path.args" ]]; then
  echo "run_case.sh: no $case_path.args" >&2
  exit 1
fi
args=()
mapfile -t args < "$case_path.args"

path_prefix=
if [[ -f "$case_path.path" ]]; then
  while IFS= read -r dir; do
    [[ -n "$dir" ]] || continue
    if ! absolute=$(cd "$dir" 2>/dev/null && pwd); then
      echo "run_case.sh: $case_path.path: no directory $dir" >&2
      exit 1
    fi
    path_prefix+="$absolute:"
  done < "$case_path.path"
fi

environment=()
if [[ -f "$case_path.env" ]]; then
  mapfile -t environment < <(grep -v '^$' "$case_path.env")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# No case reads this machine's slurm.conf: SLURM_CONF names none unless NAME.env sets it.
PATH="$path_prefix$PATH" env SLURM_CONF=data/no-such-dir/slurm.conf "${environment[@]}" \
  "$sbudget" "${args[@]}" \
  >"$work/stdout" 2>"$work/stderr"
code=$?

if [[ "$update" == "--update" ]]; then
  for stream in stdout stderr; do
    if [[ -s "$work/$stream" ]]; then
      cp "$work/$stream" "$case_path.$stream"
    else
      rm -f "$case_path.$stream"
    fi
  done
  if [[ "$code" != 0 ]]; then
    echo "$code" > "$case_path.code"
  else
    rm -f "$case_path.code"
  fi
  exit 0
fi

status=0
expected_code=0
if [[ -f "$case_path.code" ]]; then
  expected_code=$(tr -d '[:space:]' < "$case_path.code")
fi
if [[ "$code" != "$expected_code" ]]; then
  echo "exit code $code, expected $expected_code"
  status=1
fi
for stream in stdout stderr; do
  expected="$case_path.$stream"
  [[ -f "$expected" ]] || expected=/dev/null
  if ! diff -u --label "expected $stream" --label "actual $stream" "$expected" "$work/$stream"; then
    status=1
  fi
done
exit $status
