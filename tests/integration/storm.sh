#!/usr/bin/env bash
# storm.sh BUILD_DIR [--seconds S]: sprio, sshare, squeue and `scontrol reconfigure` in
# parallel loops against slurmctld (priority/budget) for S seconds (default 180) while
# jobs are submitted and end, then checks:
#   - slurmctld is the same process throughout (no crash) and every command answered
#     within 30 s (no deadlock: a hung lock would time the storm's commands out);
#   - the ledger charged exactly what sacct says the jobs used (NNodes x 4 x ElapsedRaw,
#     to the GPU-second), as in a quiet run (plugin_scenarios.sh check 3);
#   - credit - used this month - remaining (the closed months' share) is unchanged.
# Then, with the same cluster (PrivateData=jobs,usage,accounts from the start):
#   - PrivateData: a plain user sees only their own pending jobs in sprio, only their own
#     user rows in sshare, only their project in sbudget (another one is refused);
#   - values from users are data, never configuration, commands or paths: jobs named
#     `$(touch ...)` or with a newline and "Project=evil Credit=999999", comments like
#     "Project=evil Credit=999999" and "../../..", accounts such as '$(id)' or '../p_s1',
#     sbudget -A '../../etc/passwd': budget.conf is unchanged, the ledger has no new project
#     and still loads, no file is created, and no log line starts with the injected text.
# Run it alone: flock /tmp/budget-cluster.lock tests/integration/storm.sh build/ci
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: storm.sh BUILD_DIR [--seconds S]}" && pwd)
shift
seconds=180
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    *) echo "storm.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch storm
storm_pids=()

stop_storm() {
  local pid
  for pid in "${storm_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  storm_pids=()
}
scenario_cleanup() { stop_storm; }
scenario_traps

projects=(p_s1 p_s2 p_s3)
fixture_dates
fixture_budget_conf "$work/budget.conf" "${projects[@]}"
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
PrivateData=jobs,usage,accounts"

section "start: priority/budget, a fresh ledger"
FRESH=1 cluster_start
for p in "${projects[@]}"; do
  accounts_account "$p"
  accounts_user "u_${p#p_}" "$p"
done
ctld_pid=$(_lc_pid slurmctld)
# Per project, credit - used this month - remaining (GPU-s): the credit accounted to the
# closed months, which jobs of this month must not change.
accounted_closed() {
  "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
    jq -r '[.[] | select(.project | startswith("p_s"))
            | "\(.project)=\((.credit - .used_this_month - .remaining) * 3600 | round)"] | join(" ")'
}
wait_for 90 "the first save of the ledger" test -s "$ledger"
closed_before=$(accounted_closed)
start=$(date +%s)
: >"$work/timeouts"

# One loop per client: each command must answer within 30 s.
storm() {
  local name=$1
  shift
  trap - EXIT
  local end=$((start + seconds)) n=0
  while (($(date +%s) < end)); do
    timeout 30 "$@" >/dev/null 2>&1 || {
      local rc=$?
      ((rc == 124)) && echo "$name" >>"$work/timeouts"
    }
    n=$((n + 1))
  done
  echo "$name $n" >>"$work/counts"
}
storm sprio sprio -l & storm_pids+=($!)
storm sshare sshare -a -l & storm_pids+=($!)
storm squeue squeue & storm_pids+=($!)
storm reconfigure bash -c 'scontrol reconfigure; sleep 2' & storm_pids+=($!)
storm sbudget bash -c "'$sbudget' ledger show --config '$work/budget.conf' --ledger '$ledger'" &
storm_pids+=($!)

section "storm: $seconds s of sprio, sshare, squeue, sbudget and scontrol reconfigure; jobs"
submitted=0
while (($(date +%s) < start + seconds)); do
  if (($(squeue -h -t PD 2>/dev/null | wc -l) < 6)); then
    p=${projects[RANDOM % ${#projects[@]}]}
    if cluster_as "u_${p#p_}" sbatch -Q -A "$p" -N $((1 + RANDOM % 2)) --exclusive -t 3 \
      --chdir="$work" -o /dev/null --wrap "sleep $((5 + RANDOM % 40))" >/dev/null 2>&1; then
      submitted=$((submitted + 1))
    fi
  fi
  sleep 0.5
done
for pid in "${storm_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
storm_pids=()
sort "$work/counts"

section "after the storm"
check "slurmctld is the same process (PID $ctld_pid)" test "$(_lc_pid slurmctld)" = "$ctld_pid"
check "slurmctld is alive" _lc_alive "$ctld_pid"
check "no command timed out ($(sort "$work/timeouts" | uniq -c | tr '\n' ' '))" test ! -s "$work/timeouts"
scancel -t PENDING 2>/dev/null || true
cluster_wait_idle 300
now=$(date +%s)
wait_for 120 "a pass to save the ledger" ledger_saved_after $((now + 1))
total=$("$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
  jq -r '[.[] | select(.project | startswith("p_s")) | .used_this_month] | add * 3600 | round')
want=$(sacct -a -X -n -P -S "$(date -d "@$start" +%Y-%m-%dT%H:%M:%S)" -o Account,NNodes,ElapsedRaw |
  awk -F'|' '$1 ~ /^p_s/ { s += $2 * 4 * $3 } END { printf "%d\n", s }')
echo "jobs submitted: $submitted; ledger: $total GPU-s; sacct: $want GPU-s"
check "the ledger equals sacct's usage to the GPU-second" test "$total" = "$want"
check "credit - used - remaining unchanged for every project ($closed_before)" \
  test "$(accounted_closed)" = "$closed_before"

section "PrivateData=jobs,usage,accounts: a user sees only what it allows"
# One job holds every node, so each user's job stays pending and sprio lists it.
blocker=$(cluster_as u_s3 sbatch --parsable -A p_s3 -N "${NODES:-4}" --exclusive -t 5 \
  --chdir="$work" -o /dev/null --wrap 'sleep 300')
wait_for 30 "the blocker to run" job_state_is "$blocker" RUNNING
declare -A mine=()
for p in "${projects[@]}"; do
  mine[$p]=$(cluster_as "u_${p#p_}" sbatch --parsable -A "$p" -N 1 --exclusive -t 1 \
    --chdir="$work" -o /dev/null --wrap 'true')
done
wait_for 90 "a pass to rank the pending jobs" \
  bash -c "[[ \$(sprio -h -o %i | sort -u | wc -l) -ge 3 ]]"
check "root sees every project's pending job in sprio" \
  test "$(sprio -h -o %i | sort -u | paste -sd,)" = "$(printf '%s\n' "${mine[@]}" | sort | paste -sd,)"
check "u_s1 sees only its own job in sprio (${mine[p_s1]})" \
  test "$(cluster_as u_s1 sprio -h -o %i | sort -u | paste -sd,)" = "${mine[p_s1]}"
check "u_s1 sees only its own job in sprio -l" \
  test "$(cluster_as u_s1 sprio -l -h | awk '{ print $3 }' | sort -u | paste -sd,)" = u_s1
check "u_s1 sees only its own job in squeue" \
  test "$(cluster_as u_s1 squeue -h -o %u | sort -u | paste -sd,)" = u_s1
sshare_users=$(cluster_as u_s1 sshare -a -l -P | awk -F'|' 'NR > 1 && $2 != "" { print $2 }' | sort -u | paste -sd,)
check "u_s1 sees only its own user row in sshare -a (got: $sshare_users)" test "$sshare_users" = u_s1
check "root sees every project's user in sshare -a" \
  test "$(sshare -a -l -P | awk -F'|' 'NR > 1 && $2 ~ /^u_s/ { print $2 }' | sort -u | paste -sd,)" = u_s1,u_s2,u_s3
check "u_s1: sbudget shows p_s1 only" \
  test "$(cluster_as u_s1 "$sbudget" --json | jq -r '[.[].project] | join(",")')" = p_s1
check "u_s1: sbudget -A p_s2 is refused" bash -c "! runuser -u u_s1 -- env SLURM_CONF=$SLURM_CONF '$sbudget' -A p_s2 >/dev/null 2>&1"
check "u_s1: sbudget --all is refused" bash -c "! runuser -u u_s1 -- env SLURM_CONF=$SLURM_CONF '$sbudget' --all >/dev/null 2>&1"
scancel "$blocker" "${mine[@]}" 2>/dev/null || true
cluster_wait_idle 120

section "values from users are data: names, comments, accounts, paths"
conf_sum=$(sha256sum <"$work/budget.conf")
ledger_projects() { awk '$1 == "project" { print $2 }' "$ledger" | sort | paste -sd,; }
projects_before=$(ledger_projects)
log_lines=$(wc -l <"$lc/log/slurmctld.log")
pwned=$work/pwned
rm -f "$pwned"*
nl=$'\n'
# Each as USER ACCOUNT NAME COMMENT; Slurm may refuse a value (then it is not ours to check).
hostile() {
  cluster_as "$1" sbatch --parsable -A "$2" -t 1 --chdir="$work" -o /dev/null -J "$3" \
    --comment "$4" --wrap 'true' 2>"$work/sbatch.err" || { echo "  sbatch refused: $(cat "$work/sbatch.err")" >&2; }
}
evil=()
evil+=("$(hostile u_s1 p_s1 "\$(touch $pwned.name)\`touch $pwned.tick\`" "Project=evil Credit=999999")")
evil+=("$(hostile u_s1 p_s1 "x${nl}Project=evil2 Credit=999999" "../../../../$pwned.path${nl}Project=evil3")")
evil+=("$(hostile u_s2 p_s2 '../../../etc/budget.conf' "; touch $pwned.semi; | touch $pwned.pipe")")
echo "hostile jobs accepted: ${evil[*]}"
check "a job named \$(touch ...) with comment 'Project=evil Credit=999999' is accepted as data" \
  test -n "${evil[0]}"
check "sbatch -A '\$(id)' is refused" \
  bash -c "! runuser -u u_s1 -- env SLURM_CONF=$SLURM_CONF sbatch -A '\$(touch $pwned.acct)' -t 1 -o /dev/null --wrap true >/dev/null 2>&1"
check "sbatch -A '../p_s1' is refused" \
  bash -c "! runuser -u u_s1 -- env SLURM_CONF=$SLURM_CONF sbatch -A '../p_s1' -t 1 -o /dev/null --wrap true >/dev/null 2>&1"
check "u_s1: sbudget -A '../../etc/passwd' is refused" \
  bash -c "! runuser -u u_s1 -- env SLURM_CONF=$SLURM_CONF '$sbudget' -A '../../etc/passwd' >/dev/null 2>&1"
check "u_s1: sbudget -A '\$(touch ...)' is refused" \
  bash -c "! runuser -u u_s1 -- env SLURM_CONF=$SLURM_CONF '$sbudget' -A '\$(touch $pwned.cli)' >/dev/null 2>&1"
cluster_as u_s1 "$sbudget" why "${evil[0]}" >/dev/null 2>&1 || true
cluster_wait_idle 120
now=$(date +%s)
wait_for 120 "a pass to save the ledger" ledger_saved_after $((now + 1))
scontrol reconfigure
sleep 2
check "budget.conf unchanged" test "$(sha256sum <"$work/budget.conf")" = "$conf_sum"
check "the ledger loads" bash -c "'$sbudget' ledger show --config '$work/budget.conf' --ledger '$ledger' >/dev/null"
check "the ledger has the same projects ($projects_before)" test "$(ledger_projects)" = "$projects_before"
check "the ledger has no line from a job's name or comment" bash -c "! grep -q 'evil\\|Credit=\\|budget.conf' '$ledger'"
check "no file was created by a name, comment or account ($(compgen -G "$pwned*" | tr '\n' ' '))" \
  bash -c "! compgen -G '$pwned*' >/dev/null"
tail -n +"$((log_lines + 1))" "$lc/log/slurmctld.log" >"$work/log.new"
check "no log line starts with injected text" bash -c "! grep -q '^Project=\\|^\\(\\[[^]]*\\] \\)\\?Project=' '$work/log.new'"
check "slurmctld did not log the budgets reloaded from another file" \
  bash -c "! grep 'budgets reloaded from' '$work/log.new' | grep -v -q -- 'from $work/budget.conf\$'"
check "slurmctld is still the same process" test "$(_lc_pid slurmctld)" = "$ctld_pid"
summary
