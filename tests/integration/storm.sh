#!/usr/bin/env bash
# storm.sh BUILD_DIR [--seconds S]: sprio, sshare, squeue and `scontrol reconfigure` in
# parallel loops against slurmctld (priority/budget) for S seconds (default 180) while
# jobs are submitted and end, then checks:
#   - slurmctld is the same process throughout (no crash) and every command answered
#     within 30 s (no deadlock: a hung lock would time the storm's commands out);
#   - the ledger charged exactly what sacct says the jobs used (NNodes x 4 x ElapsedRaw,
#     to the GPU-second), as in a quiet run (plugin_scenarios.sh check 3);
#   - credit - used this month - remaining (the closed months' share) is unchanged.
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
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib/cluster.sh
source "$here/lib/cluster.sh"
# shellcheck source=SCRIPTDIR/lib/accounts.sh
source "$here/lib/accounts.sh"
# shellcheck source=SCRIPTDIR/lib/budget_fixture.sh
source "$here/lib/budget_fixture.sh"
# shellcheck source=SCRIPTDIR/lib/checks.sh
source "$here/lib/checks.sh"

sbudget=$build/src/cli/sbudget
lc=${BUDGET_LC:-/tmp/budget-lc}
work=$(mktemp -d /tmp/budget-storm.XXXXXX)
chmod 755 "$work"
ledger=$lc/spool/ctld/budget_ledger
storm_pids=()

stop_storm() {
  local pid
  for pid in "${storm_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  storm_pids=()
}
trap 'stop_storm; cluster_stop; rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

projects=(p_s1 p_s2 p_s3)
fixture_dates
{
  echo "PartitionName=normal Role=budgeted GpuhPerNodeHour=4"
  echo "PartitionName=debug Role=budgeted GpuhPerNodeHour=4"
  echo "PartitionName=low Role=low GpuhPerNodeHour=4"
  for p in "${projects[@]}"; do
    echo "Project=$p Kind=large Credit=$FIX_CREDIT Start=$FIX_START PIs=pi.$p@uni.ch StorageTB=1 StorageInodes=1000000"
  done
} >"$work/budget.conf"
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf"

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
wait_for 120 "a pass to save the ledger" \
  awk -v t="$now" '$1 == "saved-at" { exit !($2 > t) }' "$ledger"
total=$("$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
  jq -r '[.[] | select(.project | startswith("p_s")) | .used_this_month] | add * 3600 | round')
want=$(sacct -a -X -n -P -S "$(date -d "@$start" +%Y-%m-%dT%H:%M:%S)" -o Account,NNodes,ElapsedRaw |
  awk -F'|' '$1 ~ /^p_s/ { s += $2 * 4 * $3 } END { printf "%d\n", s }')
echo "jobs submitted: $submitted; ledger: $total GPU-s; sacct: $want GPU-s"
check "the ledger equals sacct's usage to the GPU-second" test "$total" = "$want"
check "credit - used - remaining unchanged for every project ($closed_before)" \
  test "$(accounted_closed)" = "$closed_before"
summary
