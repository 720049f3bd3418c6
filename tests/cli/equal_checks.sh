# equal_checks.sh: the assertions of tests/cli's shell tests. Source it.
#
#   check WHAT GOT WANT   prints ok, or FAIL with both values, and counts the failure
#   checks_done           prints the count of failures and exits 1 if any
# shellcheck shell=bash

failures=0

check() { # WHAT GOT WANT
  if [[ "$2" == "$3" ]]; then
    echo "ok: $1"
  else
    printf 'FAIL: %s:\n  got:  %s\n  want: %s\n' "$1" "$2" "$3"
    failures=$((failures + 1))
  fi
}

checks_done() {
  if ((failures > 0)); then
    echo "$failures failed"
    exit 1
  fi
}
