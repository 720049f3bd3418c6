# checks.sh: assertions and probes for the integration scenarios. Source it.
#
#   section TITLE              prints a heading
#   check WHAT CMD...          runs CMD; counts and prints ok/FAIL
#   summary                    prints the count; returns 1 if any check failed
#   checks_failed              true when a check has failed so far (for clean-up diagnostics)
#   wait_for SECS WHAT CMD...  polls CMD every second; fails the script on timeout
#   awk_true EXPR              true when the awk expression is non-zero
#   job_state_is JOB STATE     squeue's state of JOB is STATE
#   jobs_done JOB...           none of the jobs is pending or running any more
#   sprio_field JOB COLUMN     a column of `sprio -l` for JOB (by header name)
#   sshare_field ACCOUNT USER COLUMN   a column of `sshare -a -l -P` ('' USER: account row)
#   sshare_has_shares ACCOUNT  its RawShares is > 0
#   ledger_json_field PROJECT FIELD    a field of `sbudget ledger show --json`
#   ledger_saved_at [FILE]     the Unix time a ledger file (the ledger) says it was saved at
#   ledger_saved_after T       the ledger file was saved at or after Unix time T
#   ledger_saved_since_stamp S the ledger file was saved at a time other than S (a save since S)
#   reconfigure_until_logged WHAT LINE
#                              runs `scontrol reconfigure`, then waits (30 s) until slurmctld's
#                              log holds LINE (fixed text) once more than before
# Expects $sbudget, $work, $ledger, $ctld_log and SLURM_CONF (cluster.sh) to be set.
# shellcheck shell=bash

_checks=0
_failures=0

section() {
  printf '\n=== %s\n' "$*"
}

check() {
  local what=$1
  shift
  _checks=$((_checks + 1))
  if "$@"; then
    echo "ok   $what"
  else
    echo "FAIL $what" >&2
    _failures=$((_failures + 1))
  fi
}

summary() {
  echo
  echo "$((_checks - _failures)) passed, $_failures failed"
  ((_failures == 0))
}

checks_failed() { ((_failures > 0)); }

wait_for() {
  local secs=$1 what=$2
  shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "FAIL timed out after ${secs} s waiting for $what" >&2
      _failures=$((_failures + 1))
      summary || true
      exit 1
    fi
    sleep 1
  done
  # Where a suite's time goes: most of it is waits like these for a pass, a minute apart.
  local waited=$((SECONDS + secs - deadline))
  ((waited < 10)) || echo "     (waited ${waited} s for $what)"
}

awk_true() {
  awk "BEGIN { exit !($1) }"
}

job_state_is() {
  [[ "$(squeue -h -j "$1" -o %T 2>/dev/null)" == "$2" ]]
}

jobs_done() {
  local id
  for id in "$@"; do
    [[ -z "$(squeue -h -j "$id" -o %T 2>/dev/null)" ]] || return 1
  done
}

sprio_field() {
  sprio -l -j "$1" | awk -v col="$2" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == col && !(col in idx)) idx[col] = i; next }
    { print $(idx[col]); exit }'
}

sshare_field() {
  sshare -a -l -P | awk -F'|' -v acct="$1" -v user="$2" -v col="$3" '
    NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
    { a = $1; gsub(/ /, "", a) }
    a == acct && $2 == user { print $(idx[col]); exit }'
}

sshare_has_shares() {
  awk_true "$(sshare_field "$1" '' RawShares) > 0"
}

ledger_json_field() {
  "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
    jq -r --arg p "$1" --arg f "$2" '.[] | select(.project == $p) | .[$f]'
}

ledger_saved_at() {
  awk '$1 == "saved-at" { print $2; exit }' "${1:-$ledger}" 2>/dev/null || true
}

ledger_saved_after() {
  local at
  at=$(ledger_saved_at)
  [[ -n "$at" ]] && ((at >= $1))
}

# A restarted slurmctld saves at once, in the second the stop's save may share: "after a
# time" cannot tell the two apart, "not the stop's stamp" can.
ledger_saved_since_stamp() {
  local at
  at=$(ledger_saved_at)
  [[ -n "$at" && "$at" != "$1" ]]
}

# Asks slurmctld for a pass now rather than at its next PriorityCalcPeriod (a minute here): a
# successful reload of budget.conf brings one at once (priority_budget(8)), and `scontrol
# setdebugflags` reloads it (priority_g_reconfig) without a whole reconfigure; the flag it clears
# is one no scenario sets. For the checks that need a pass after some event; those of the
# periodic schedule itself wait for it.
ask_for_pass() {
  scontrol setdebugflags -Triggers
}

# ask_for_pass, then waits (saying WHAT it waits for) until a pass has saved the ledger since.
ask_for_pass_and_save() { # WHAT
  local asked
  asked=$(date +%s)
  ask_for_pass
  wait_for 30 "$1" ledger_saved_after "$asked"
}

reconfigure_until_logged() {
  local before
  before=$(grep -cF -- "$2" "$ctld_log" || true)
  scontrol reconfigure
  # shellcheck disable=SC2016 # expanded by the inner bash, from its arguments
  wait_for 30 "$1" bash -c '(($(grep -cF -- "$1" "$2") > $3))' _ "$2" "$ctld_log" "$before"
}

# --- Added for the lifecycle scenarios ------------------------------------------------------
#   job_reason JOB             squeue's REASON of JOB (%r: the full text of a hold's reason)
#   job_partition JOB          squeue's partition of JOB
#   job_priority JOB           squeue's priority of JOB (%Q)
#   budget_held JOB            JOB is pending, priority 0, its reason starts with "budget: "
#   not_budget_held JOB        JOB is pending with a priority > 0 and no budget reason
#   contains TEXT PART         TEXT contains PART (prints TEXT when it does not)

job_reason() {
  squeue -h -j "$1" -o %r 2>/dev/null
}

job_partition() {
  squeue -h -j "$1" -o %P 2>/dev/null
}

job_priority() {
  squeue -h -j "$1" -o %Q 2>/dev/null
}

budget_held() {
  [[ "$(squeue -h -j "$1" -o %T 2>/dev/null)" == PENDING ]] &&
    [[ "$(job_priority "$1")" == 0 ]] &&
    [[ "$(job_reason "$1")" == "budget: "* ]]
}

not_budget_held() {
  [[ "$(squeue -h -j "$1" -o %T 2>/dev/null)" == PENDING ]] &&
    [[ "$(job_priority "$1")" != 0 ]] &&
    [[ "$(job_reason "$1")" != "budget: "* ]]
}

contains() {
  if [[ "$1" == *"$2"* ]]; then
    return 0
  fi
  echo "  (got: $1)" >&2
  return 1
}
