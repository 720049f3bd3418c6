#!/usr/bin/env bash
# month_boundary.sh BUILD_DIR: a running slurmctld with priority/budget crosses midnight of the
# 1st of a month (docs/design.md, the month close; docs/lifecycle.md, the states that change at
# midnight), in about four minutes.
#
# slurmctld alone runs on a clock that starts 80 s before the next 1st (CTLD_FAKETIME,
# libfaketime); munge, slurmdbd, slurmd and the commands keep the real time. Two large projects
# (credit 120,000 GPUh, so a month's budget is 10,000 and its minimal 8,500) are in their 6th
# month: p_idle has used 3,000 GPUh of it, p_run 10,000 and runs a job on all 4 nodes (16 GPUs)
# across midnight. Behind it wait a job of p_end, whose 12th and last month ends at midnight, and
# one of p_prep, a small project whose Start is the 1st. Checks, with slurmctld the same process
# throughout:
#   1. the pass after midnight closes month 6 of p_idle: used 3,000 GPUh, lost 5,500 (8,500 less
#      3,000), rolled over 1,500, remaining 61,500 (the policy's rule), logged after midnight;
#   2. before midnight p_end's job waits unheld and p_prep's ranks in the preparatory band; at
#      that same pass p_end's job is held with the reason squeue shows and p_prep's ranks in
#      the active band, both changes logged;
#   3. p_run's month 6 closes with nothing lost;
#   4. the job's GPU-seconds are split at midnight, to the second: 16 x (midnight - start) in
#      month 6 and 16 x (end - midnight) in month 7, by slurmctld's own start and end times;
#   5. sshare shows p_idle's new month: RawShares = 10,000 + 1,500 rolled over.
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: month_boundary.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch month-boundary
scenario_traps

# The next 1st, midnight in the local zone (the plugin's), and the six project months before it.
boundary=$(date -d "$(date +%Y-%m-01) +1 month" +%Y-%m-%d)
boundary_epoch=$(date -d "$boundary 00:00:00" +%s)
ctld_start=$(date -d "@$((boundary_epoch - 80))" '+%Y-%m-%d %H:%M:%S')
export CTLD_FAKETIME="@$ctld_start"
FIX_START=$(date -d "$boundary -6 months" +%Y-%m-%d)
end_start=$(date -d "$boundary -12 months" +%Y-%m-%d)
end_last=$(date -d "$boundary -1 day" +%Y-%m-%d)
{
  # Every start year's price, since one is given (a small project's credit needs its own).
  prices=()
  for ((y = ${end_start:0:4}; y <= ${boundary:0:4}; y++)); do prices+=("$y:2.69"); done
  echo "NodeHourPrice=$(IFS=,; echo "${prices[*]}")"
  echo "PartitionName=normal Role=budgeted GpuhPerNodeHour=4"
  echo "PartitionName=low Role=low GpuhPerNodeHour=4"
  for p in p_idle p_run; do
    echo "Project=$p Kind=large Credit=120000 Start=$FIX_START PIs=pi.$p@uni.ch StorageTB=1 StorageInodes=1000000"
  done
  echo "Project=p_end Kind=large Credit=120000 Start=$end_start PIs=pi.p_end@uni.ch StorageTB=1 StorageInodes=1000000"
  echo "Project=p_prep Kind=small Credit=6000 Created=$(date -d "$boundary -20 days" +%Y-%m-%d) Start=$boundary PIs=pi.p_prep@uni.ch"
} >"$work/budget.conf"
{
  echo "account,user,month,partition,gpu_hours"
  for ((m = 0; m < 6; m++)); do
    month=$(date -d "$FIX_START +$m months" +%Y-%m)
    echo "p_run,u_run,$month,budgeted,10000"
    if ((m < 5)); then echo "p_idle,u_idle,$month,budgeted,10000"; fi
  done
  echo "p_idle,u_idle,$month,budgeted,3000"
  for ((m = 0; m < 12; m++)); do # on its line until its last month
    echo "p_end,u_end,$(date -d "$end_start +$m months" +%Y-%m),budgeted,$((m < 11 ? 10000 : 5000))"
  done
} >"$work/usage.csv"
weight_fs=10000000
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf"

# The comma-separated field FIELD (closed, budgeted) of PROJECT's line in the ledger.
ledger_project_field() { # PROJECT FIELD
  awk -v p="$1" -v f="$2=" '$1 == "project" && $2 == p {
    for (i = 3; i <= NF; i++) if (index($i, f) == 1) { print substr($i, length(f) + 1); exit } }' \
    "$ledger"
}
month_closed() { [[ "$(ledger_project_field "$1" closed)" == "$2" ]]; }
job_time() { # JOB FIELD: StartTime or EndTime of JOB in slurmctld's record, as Unix time
  date -d "$(scontrol show job "$1" | grep -o "$2=[^ ]*" | cut -d= -f2)" +%s
}

section "start: slurmctld's clock 80 s before $boundary"
"$sbudget" check-config "$work/budget.conf"
FRESH=1 cluster_start
for p in idle run end prep; do
  accounts_account "p_$p"
  accounts_user "u_$p" "p_$p"
done
cluster_stop_ctld
rm -f "$ledger" "$ledger.old"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" \
  --at "${ctld_start/ /T}" "$work/usage.csv"
cluster_start_ctld
ctld_pid=$(pgrep -x slurmctld)
job=$(cluster_as u_run sbatch --parsable -A p_run -N4 --exclusive --gres=gpu:4 -t 5 \
  --chdir="$work" -o /dev/null --wrap 'sleep 150')
wait_for 30 "the job to run" job_state_is "$job" RUNNING
start=$(job_time "$job" StartTime)
check "the job started before midnight on slurmctld's clock ($(date -d "@$start" +%FT%T))" \
  test "$start" -lt "$boundary_epoch"
declare -A waiting=()
for p in end prep; do
  waiting[$p]=$(cluster_as "u_$p" sbatch --parsable -A "p_$p" -N1 --exclusive -t 1 \
    --chdir="$work" -o /dev/null --wrap 'sleep 1')
done
sleep 2
fs_prep=$(sprio_field "${waiting[prep]}" FAIRSHARE)
check "before midnight p_end's job waits unheld" not_budget_held "${waiting[end]}"
check "... and p_prep's ranks in the preparatory band ($fs_prep)" \
  awk_true "$fs_prep > 0.2 * $weight_fs && $fs_prep <= 0.4 * $weight_fs"

section "1. the pass after midnight closes the month"
wait_for 200 "month 6 of p_idle to be closed in the ledger" month_closed p_idle 6
grep "month 6 closed" "$ctld_log" || true
check "p_idle: used 3,000 GPUh, lost 5,500, rolled over 1,500, remaining 61,500" \
  grep -q "p_idle: month 6 closed: used 3,000 GPUh, lost 5,500, rolled over 1,500, remaining 61,500" \
  "$ctld_log"
check "... logged on or after $boundary" \
  grep -q "^\[${boundary}T[^]]*\] priority/budget: p_idle: month 6 closed" "$ctld_log"
check "slurmctld ran throughout (PID $ctld_pid)" test "$(pgrep -x slurmctld)" = "$ctld_pid"

section "2. the lifecycle at the same pass: p_end ended, p_prep started"
fs_prep=$(sprio_field "${waiting[prep]}" FAIRSHARE)
check "p_end's job is held" budget_held "${waiting[end]}"
check "... its reason says the project ended on $end_last" \
  contains "$(job_reason "${waiting[end]}")" \
  "budget: project p_end ended on $end_last; its jobs can no longer start (scancel this job)"
check "... logged: p_end active -> ended" grep -q "project p_end: active -> ended" "$ctld_log"
check "p_prep's job now ranks in the active band ($fs_prep)" awk_true "$fs_prep > 0.6 * $weight_fs"
check "... logged: p_prep preparatory -> active" \
  grep -q "project p_prep: preparatory -> active" "$ctld_log"

section "3. p_run's month closes with nothing lost"
check "p_run: month 6 closed, lost 0" grep -q "p_run: month 6 closed: used [0-9,.]* GPUh, lost 0," \
  "$ctld_log"

section "4. the job's GPU-seconds split at midnight, to the second"
wait_for 150 "the job to end" jobs_done "$job"
end=$(job_time "$job" EndTime)
wait_for 90 "a ledger saved after the job's end" ledger_saved_after "$end"
IFS=, read -r -a months <<<"$(ledger_project_field p_run budgeted)"
want6=$((10000 * 3600 + 16 * (boundary_epoch - start)))
want7=$((16 * (end - boundary_epoch)))
check "month 6: 10,000 GPUh + 16 x $((boundary_epoch - start)) s = $want6 GPU-s (ledger ${months[6]:-none})" \
  test "${months[6]:-}" = "$want6"
check "month 7: 16 x $((end - boundary_epoch)) s = $want7 GPU-s (ledger ${months[7]:-none})" \
  test "${months[7]:-}" = "$want7"

section "5. sshare shows the new month"
check "p_idle's RawShares = 10,000 + 1,500 rolled over" \
  test "$(sshare_field p_idle '' RawShares)" = 11500

summary
