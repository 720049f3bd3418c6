#!/usr/bin/env bash
# lifecycle_scenarios.sh BUILD_DIR: the project lifecycle (docs/lifecycle.md) in a real cluster.
#
# Starts munge, MariaDB, slurmdbd, slurmctld (PriorityType=priority/budget and
# JobSubmitPlugins=budget from BUILD_DIR) and 4 slurmd; puts seven projects in every state with
# `sbudget ledger import` (dates relative to today), then checks:
#   1. at submit (job_submit/budget), the message reaching sbatch, srun and salloc:
#      an ended project is refused naming the project, its last day and the storage date;
#      a blocked one (credit and low allowance used) is refused saying how much was used;
#      an account without a budget is accepted, then refused once budget.conf says reject;
#      with CreditUsedUp=reject a project without credit is refused, naming low; with
#      redirect its job is moved to low and told so; a preparatory project is told its start;
#   2. the redirected job uses the last of the low allowance: the project is then blocked,
#      its job waiting in low is held, and low refuses it too;
#   3. ordering in sprio: started with credit > preparatory > low partition;
#   4. pending jobs when a project crosses a state: a project whose running job uses the last
#      of its credit gets its pending job in a budgeted partition held with a reason squeue
#      shows (the running job keeps running); moving it to low is accepted, moving it back
#      refused, and the hold is released at the next pass; a project made "ended" by
#      budget.conf gets its pending job held, and released when budget.conf is restored, by
#      the pass `scontrol reconfigure` asks for, within seconds;
#   5. the started project with credit starts before the preparatory one.
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: lifecycle_scenarios.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch lifecycle
scenario_traps

for so in priority_budget.so job_submit_budget.so; do
  [[ -f "$build/src/slurm/$so" ]] || {
    echo "no $build/src/slurm/$so: configure with -DBUDGET_BUILD_PLUGIN=ON and build it" >&2
    exit 1
  }
done

fixture_dates
fixture_lifecycle_dates
fixture_lifecycle_conf "$work/budget.conf"
fixture_lifecycle_usage_csv "$work/usage.csv"
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
JobSubmitPlugins=budget"
weight_fs=10000000

# submit USER ARGS...: runs sbatch as USER; sets $out (stdout and stderr) and $rc.
submit() {
  local user=$1
  shift
  rc=0
  out=$(cluster_as "$user" sbatch --parsable --chdir="$work" -o /dev/null "$@" 2>&1) || rc=$?
}
job_id_of() { tail -n 1 <<<"$1"; }
# set_conf KEY VALUE: changes a global option of budget.conf in place.
set_conf() { sed -i "s/^\\(.*\\)$1=[a-z]*/\\1$1=$2/" "$work/budget.conf"; }

section "start: both plugins load; accounts; seven projects in every state"
FRESH=1 cluster_start
for p in act prep low cap cross ext end; do
  accounts_account "p_$p"
  accounts_user "u_$p" "p_$p"
done
accounts_account nobudget
accounts_user u_none nobudget
cluster_stop_ctld
rm -f "$ledger" "$ledger.old"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" "$work/usage.csv"
"$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger"
cluster_start_ctld
check "slurmctld loaded job_submit/budget" grep -q "job_submit/budget: lifecycle checks from" "$ctld_log"

section "1. at submit: ended, blocked, unbudgeted, credit used up, preparatory"
submit u_end -N1 -t 1 --wrap true # no -A: the user's default account, p_end
check "an ended project's job is refused" test "$rc" -ne 0
check "... naming the project and its last day ($LC_END_LAST)" \
  contains "$out" "project p_end ended on $LC_END_LAST (its last day of compute): compute is no longer available"
check "... and until when its storage stays readable ($LC_END_STORAGE)" \
  contains "$out" "storage stays readable until $LC_END_STORAGE"
check "... in sbatch's own output" contains "$out" "sbatch: error: job refused: project p_end"
check "no job of u_end was queued" test -z "$(squeue -h -u u_end -o %i)"
rc=0
out=$(cluster_as u_end srun -A p_end -N1 -t 1 true 2>&1) || rc=$?
check "srun is refused" test "$rc" -ne 0
check "... with the same message in srun's output" \
  contains "$out" "srun: error: job refused: project p_end ended on $LC_END_LAST"
rc=0
out=$(cluster_as u_cap salloc -A p_cap -p low -N1 -t 1 true 2>&1) || rc=$?
check "salloc for a blocked project is refused" test "$rc" -ne 0
check "... saying how much of the low allowance was used" \
  contains "$out" "salloc: error: job refused: project p_cap has used its credit (120,000 GPUh) and its whole low allowance (10,000 of 10,000 GPUh used)"

submit u_none -A nobudget -N1 -t 1 -H --wrap true
check "UnbudgetedAccounts=allow: a job without a budget is accepted, silently" \
  test "$rc" -eq 0 -a "$(wc -l <<<"$out")" -eq 1
scancel "$(job_id_of "$out")"
set_conf UnbudgetedAccounts reject
submit u_none -A nobudget -N1 -t 1 --wrap true
check "UnbudgetedAccounts=reject (read at once, no reconfigure): refused" test "$rc" -ne 0
check "... with a clear message" \
  contains "$out" "job refused: account nobudget has no GPU-hour budget"
set_conf UnbudgetedAccounts allow

set_conf CreditUsedUp reject
submit u_low -A p_low -p normal -N1 -t 1 --wrap true
check "CreditUsedUp=reject: a project without credit is refused in normal" test "$rc" -ne 0
check "... and told to use low" contains "$out" "Submit to partition low (-p low)"
submit u_low -A p_low -p low -N1 -t 1 -H --wrap true
check "... but accepted in low" test "$rc" -eq 0
scancel "$(job_id_of "$out")" 2>/dev/null || true
set_conf CreditUsedUp redirect

submit u_prep -A p_prep -N1 -t 1 -H --wrap true
check "a preparatory project's job is accepted" test "$rc" -eq 0
check "... and told when the project starts ($LC_PREP_START)" \
  contains "$out" "project p_prep starts on $LC_PREP_START"
scancel "$(job_id_of "$out")"

# No -p: the default partition (normal, budgeted) is redirected.
submit u_low -A p_low -N2 --exclusive -t 2 --wrap 'sleep 8'
low_job=$(job_id_of "$out")
check "CreditUsedUp=redirect: the job is accepted" test "$rc" -eq 0
check "... told it runs in low instead of normal" \
  contains "$out" "sbatch: project p_low has used its credit (120,000 GPUh): this job runs in partition low instead of normal"
check "... and queued in low" test "$(job_partition "$low_job")" = low
wait_for 60 "the redirected job runs" job_state_is "$low_job" RUNNING
# 0.01 GPUh of low allowance left: the running job uses it in 4.5 s; this one waits in low.
submit u_low -A p_low -p low -N4 --exclusive -t 2 --wrap 'sleep 3'
low_pending=$(job_id_of "$out")
check "p_low (allowance left) is accepted in low" test "$rc" -eq 0

section "4a. a running job uses the last of its project's credit; a job waits behind it"
submit u_cross -A p_cross -p normal -N2 --exclusive -t 10 --wrap 'sleep 300'
blocker=$(job_id_of "$out")
wait_for 60 "p_cross's job runs" job_state_is "$blocker" RUNNING
# 0.01 GPUh of credit left: 2 nodes use it in 4.5 s. Submitted at once, before any pass sees it.
submit u_cross -A p_cross -p normal -N4 --exclusive -t 2 --wrap 'sleep 3'
cross_job=$(job_id_of "$out")
check "p_cross (credit left) is accepted in normal" test "$rc" -eq 0 -a "$(job_partition "$cross_job")" = normal

section "3. ordering: started with credit > preparatory > low partition"
wait_for 60 "the redirected p_low job to end" jobs_done "$low_job"
declare -A job=()
submit u_act -A p_act -p normal -N4 --exclusive -t 2 --wrap 'sleep 3'
job[act]=$(job_id_of "$out")
submit u_prep -A p_prep -p normal -N4 --exclusive -t 2 --wrap 'sleep 3'
job[prep]=$(job_id_of "$out")
submit u_act -A p_act -p low -N4 --exclusive -t 2 --wrap 'sleep 3'
job[actlow]=$(job_id_of "$out")
submit u_ext -A p_ext -p normal -N4 --exclusive -t 2 --wrap 'sleep 3'
job[ext]=$(job_id_of "$out")
sleep 1
sprio -l >"$work/sprio.txt"
cat "$work/sprio.txt"
fs_act=$(sprio_field "${job[act]}" FAIRSHARE)
fs_prep=$(sprio_field "${job[prep]}" FAIRSHARE)
fs_low=$(sprio_field "${job[actlow]}" FAIRSHARE)
check "started with credit ($fs_act) > preparatory ($fs_prep)" awk_true "$fs_act > $fs_prep"
check "preparatory ($fs_prep) > a job in low ($fs_low)" awk_true "$fs_prep > $fs_low"
check "bands: started > 0.4, preparatory in (0.2, 0.4], low in (0, 0.2] x weight" \
  awk_true "$fs_act > 0.4 * $weight_fs && $fs_prep > 0.2 * $weight_fs && $fs_prep <= 0.4 * $weight_fs && $fs_low > 0 && $fs_low <= 0.2 * $weight_fs"
check "PRIORITY: started with credit above preparatory" \
  awk_true "$(job_priority "${job[act]}") > $(job_priority "${job[prep]}")"

section "4b. budget.conf moves p_ext's start back a year: it has ended"
cp "$work/budget.conf" "$work/budget.conf.good"
fixture_lifecycle_conf "$work/budget.conf" "$LC_EXT_START"
scontrol reconfigure
submit u_ext -A p_ext -p normal -N1 -t 1 --wrap true
check "a new p_ext job is refused at once: ended on $LC_EXT_LAST" \
  contains "$out" "project p_ext ended on $LC_EXT_LAST"

section "2, 4c. the next pass: states change with no job submitted"
wait_for 90 "a pass" ledger_saved_after "$(($(date +%s) + 1))"
squeue -o '%.6i %.9P %.8a %.8T %.10Q %r' | tee "$work/squeue.txt"
check "p_low used the last of its low allowance: blocked" \
  test "$(ledger_json_field p_low state)" = blocked
submit u_low -A p_low -p low -N1 -t 1 --wrap true
check "... so even low refuses it, saying how much was used" \
  contains "$out" "its whole low allowance ("
check "p_cross used the last of its credit: low" test "$(ledger_json_field p_cross state)" = low
check "p_cross's pending job in normal is held (priority 0)" budget_held "$cross_job"
check "... with a reason squeue shows, saying what to do" \
  contains "$(job_reason "$cross_job")" "budget: project p_cross has used its credit (120,000 GPUh); partition normal is closed to it: scontrol update JobId=$cross_job Partition=low, or scancel it"
check "... the same reason in scontrol show job (which writes spaces as _)" \
  contains "$(scontrol -o show job "$cross_job")" "Reason=budget:_project_p_cross_has_used_its_credit"
check "p_cross's running job keeps running" job_state_is "$blocker" RUNNING
check "p_low's pending job in low is held: credit and allowance used" \
  contains "$(job_reason "$low_pending")" "budget: project p_low used its credit and its low allowance ("
check "p_ext's pending job is held: ended on $LC_EXT_LAST" \
  contains "$(job_reason "${job[ext]}")" "budget: project p_ext ended on $LC_EXT_LAST"
check "the log says why each was held" \
  grep -q "priority/budget: JobId=$cross_job held: budget: project p_cross" "$ctld_log"
check "the log records the state changes" \
  grep -q "priority/budget: project p_cross: active -> low" "$ctld_log"
for k in act prep actlow; do
  check "the ${k} job is not held" not_budget_held "${job[$k]}"
done
rc=0
cluster_as u_cross scontrol update JobId="$cross_job" Partition=debug 2>"$work/err" || rc=$?
check "moving it to another budgeted partition is refused" test "$rc" -ne 0
check "... with Slurm's account/partition error" \
  grep -q "Invalid account or account/partition combination" "$work/err"
rc=0
cluster_as u_cross scontrol update JobId="$cross_job" Partition=low || rc=$?
check "its user moves it to low: accepted" test "$rc" -eq 0 -a "$(job_partition "$cross_job")" = low
cp "$work/budget.conf.good" "$work/budget.conf"
scontrol reconfigure

section "4d. the pass the reconfigure asks for releases both holds, within seconds"
# Not the next periodic pass, up to PriorityCalcPeriod (a minute) later: a reload asks for one.
released() { grep -q "priority/budget: JobId=$1 released" "$ctld_log"; }
both_released() { released "$cross_job" && released "${job[ext]}"; }
wait_for 30 "the pass after the reconfigure to release them" both_released
squeue -o '%.6i %.9P %.8a %.8T %.10Q %r'
check "p_cross's job, now in low, is released" not_budget_held "$cross_job"
check "... and ranks in the low band" \
  awk_true "$(sprio_field "$cross_job" FAIRSHARE) <= 0.2 * $weight_fs"
check "p_ext's job is released once budget.conf is restored" not_budget_held "${job[ext]}"
check "the log says so" grep -q "priority/budget: JobId=${job[ext]} released" "$ctld_log"

section "5. the started project with credit runs before the preparatory one"
check "p_low's job stays held: nothing changed for it" budget_held "$low_pending"
scancel "$cross_job" "${job[actlow]}" "${job[ext]}" "$low_pending" "$blocker"
wait_for 120 "p_act and p_prep to finish" jobs_done "${job[act]}" "${job[prep]}"
start_of() { sacct -n -X -P -j "$1" -o Start; }
check "p_act started before p_prep" test "$(start_of "${job[act]}")" \< "$(start_of "${job[prep]}")"
sacct -X -j "${job[act]},${job[prep]}" -o JobID,Account,Partition,Start,End

summary
