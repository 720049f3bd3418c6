#!/usr/bin/env bash
# slurm_user_scenarios.sh BUILD_DIR: priority/budget in a slurmctld that runs as SlurmUser=slurm,
# as sites run it (the other scenarios run it as root, which every file check lets through).
#
# Starts munge, MariaDB, slurmdbd and slurmctld (both switching to the Debian packages' user
# slurm; PriorityType=priority/budget and JobSubmitPlugins=budget from BUILD_DIR) and 4 slurmd,
# then checks:
#   1. `sbudget ledger import` run by root, as the admin guide says, leaves the ledger to the
#      owner of StateSaveLocation (slurm), mode 0600, and both plugins load it: sshare ranks
#      the project behind its line above the one ahead of it;
#   2. the plugin itself writes the ledger as slurm, mode 0600, and its previous copy too;
#   3. root and SlurmUser can read the ledger with sbudget, which finds it and budget.conf in
#      slurm.conf when not told; a user is refused, told the file and why;
#   4. at `scontrol reconfigure` budget.conf is taken from root and from SlurmUser, and refused,
#      the last good budgets kept, when another user owns it or its group may write it (each
#      refusal with the command that mends it); a taken reload ranks a new job on it;
#   5. a ledger left to root (a restore without -p) stops slurmctld, saying the file and
#      "Permission denied"; once given back to slurm, slurmctld starts on it.
# Slurm's loader starts either plugin first; the checks do not depend on which.
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: slurm_user_scenarios.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch slurm-user
scenario_traps

id slurm >/dev/null 2>&1 || {
  echo "no user slurm (Debian's slurmctld package creates it)" >&2
  exit 1
}
slurm_uid=$(id -u slurm)
nobody_uid=$(id -u nobody)

fixture_dates
fixture_budget_conf "$work/budget.conf"
fixture_usage_csv "$work/usage.csv"
export SLURM_USER=slurm
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
JobSubmitPlugins=budget"
weight_fs=10000000

runs_as() { # DAEMON USER: every process named DAEMON runs as USER, and there is one
  local users
  users=$(ps -o user= -C "$1" | sort -u)
  [[ "$users" == "$2" ]] || {
    echo "  ($1 runs as: ${users:-nothing})" >&2
    return 1
  }
}
owner_and_mode() { stat -c '%U %a' "$1"; }
log_has() { grep -qF -- "$1" "$ctld_log"; }
fairshare_of_new_job() { # ACCOUNT USER: the FAIRSHARE sprio shows for a new pending job of it
  local probe value
  probe=$(cluster_as "$2" sbatch --parsable -A "$1" -N4 --exclusive -t 1 \
    --chdir="$work" -o /dev/null --wrap 'sleep 1')
  value=$(sprio_field "$probe" FAIRSHARE)
  scancel "$probe"
  echo "$value"
}

section "start: slurmdbd and slurmctld switch to SlurmUser=slurm"
FRESH=1 cluster_start
check "slurmctld runs as slurm" runs_as slurmctld slurm
check "slurmdbd runs as slurm" runs_as slurmdbd slurm
check "StateSaveLocation belongs to slurm" test "$(owner_and_mode "$lc/spool/ctld")" = "slurm 755"
check "the plugin started a fresh ledger" log_has "no ledger at $ledger: starting a fresh one"
for p in behind on ahead close acct; do
  accounts_account "p_$p"
  accounts_user "u_$p" "p_$p"
done

section "1. ledger import as root: the files go to slurm, and slurmctld loads them"
cluster_stop_ctld
rm -f "$ledger" "$ledger.old"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" "$work/usage.csv"
check "the imported ledger belongs to slurm, mode 0600" \
  test "$(owner_and_mode "$ledger")" = "slurm 600"
: >"$ctld_log"
cluster_start_ctld
check "priority/budget loaded it" log_has "ledger $ledger loaded"
check "job_submit/budget loaded it" log_has "job_submit/budget: lifecycle checks from $work/budget.conf, usage from $ledger"
behind_above_ahead() {
  awk_true "$(sshare_field p_behind u_behind FairShare) > $(sshare_field p_ahead u_ahead FairShare)"
}
wait_for 90 "sshare to rank p_behind above p_ahead" behind_above_ahead
check "sshare ranks p_behind ($(sshare_field p_behind u_behind FairShare)) above p_ahead \
($(sshare_field p_ahead u_ahead FairShare))" behind_above_ahead

section "2. the plugin writes the ledger as slurm"
job=$(cluster_as u_on sbatch --parsable -A p_on -N1 --gres=gpu:4 -t 1 --chdir="$work" \
  -o /dev/null --wrap 'sleep 2')
wait_for 60 "job $job to end" jobs_done "$job"
ask_for_pass_and_save "a ledger saved after the job"
check "the ledger the plugin saved belongs to slurm, mode 0600" \
  test "$(owner_and_mode "$ledger")" = "slurm 600"
check "... and its previous copy" test "$(owner_and_mode "$ledger.old")" = "slurm 600"
check "the job was charged to p_on" awk_true "$(ledger_json_field p_on used_this_month) > 5000"

section "3. who can read the ledger"
check "root reads it" "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger"
at=@$(date +%s)
check "without --config and --ledger sbudget finds both in slurm.conf, as the plugins do" \
  test "$("$sbudget" ledger show --at "$at")" = \
  "$("$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --at "$at")"
check "SlurmUser reads it" \
  cluster_as slurm "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger"
rc=0
out=$(cluster_as u_on "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" \
  2>&1) || rc=$?
check "a user is refused" test "$rc" -ne 0
check "... told the file and why" contains "$out" "cannot read $ledger: Permission denied"

section "4. reconfigure: budget.conf from root or slurm is taken, from anyone else refused"
blocker=$(cluster_as u_acct sbatch --parsable -A p_acct -N4 --exclusive -t 10 \
  --chdir="$work" -o /dev/null --wrap 'sleep 600')
wait_for 60 "the blocker runs" job_state_is "$blocker" RUNNING
cp "$work/budget.conf" "$work/budget.conf.good"
# Ten times the credit puts p_ahead far behind its line: a reload that is taken shows at once.
sed -i 's/^Project=p_ahead Kind=large Credit=120000/Project=p_ahead Kind=large Credit=1200000/' \
  "$work/budget.conf"
chown nobody "$work/budget.conf"
reconfigure_until_logged "the refusal of a file nobody owns" \
  "refusing budget.conf $work/budget.conf: owned by uid $nobody_uid, not by root or this process's user (uid $slurm_uid); run: chown $slurm_uid $work/budget.conf"
check "... followed by the line that keeps the last good budgets" \
  log_has "$work/budget.conf rejected, keeping the last good budgets: refusing budget.conf"
fs=$(fairshare_of_new_job p_ahead u_ahead)
check "... the last good budgets kept: a new p_ahead job ranks ahead of its line ($fs)" \
  awk_true "$fs < 0.6 * $weight_fs"
chown slurm "$work/budget.conf"
chmod 0664 "$work/budget.conf"
reconfigure_until_logged "the refusal of a file its group may write" \
  "refusing budget.conf $work/budget.conf: mode 0664 lets group members write it; run: chmod go-w $work/budget.conf"
chmod 0644 "$work/budget.conf"
reconfigure_until_logged "the reload of a file slurm owns" "budgets reloaded from $work/budget.conf"
fs=$(fairshare_of_new_job p_ahead u_ahead)
check "owned by slurm, mode 0644, it is taken: a new p_ahead job ranks behind ($fs)" \
  awk_true "$fs > 0.6 * $weight_fs"
cp "$work/budget.conf.good" "$work/budget.conf"
chown root "$work/budget.conf"
reconfigure_until_logged "the reload of a file root owns" "budgets reloaded from $work/budget.conf"
fs=$(fairshare_of_new_job p_ahead u_ahead)
check "owned by root it is taken too: p_ahead ranks ahead of its line again ($fs)" \
  awk_true "$fs < 0.6 * $weight_fs"
scancel "$blocker"
wait_for 60 "the blocker to end" jobs_done "$blocker"

section "5. a ledger left to root stops slurmctld; given back to slurm, it starts"
cluster_stop_ctld
chown root: "$ledger" "$ledger.old"
: >"$ctld_log"
if cluster_start_ctld 2>/dev/null; then started=yes; else started=no; fi
check "slurmctld does not start on a ledger it cannot read" test "$started" = no
check "its log names the file and the reason" \
  log_has "cannot read $ledger: Permission denied"
plugin_refused_to_start() {
  grep -qE "priority/budget: cannot start: cannot load the usage ledger|job_submit/budget: cannot read .*refusing to start without budgets" "$ctld_log"
}
check "... and that the plugin cannot start" plugin_refused_to_start
chown slurm: "$ledger" "$ledger.old"
cluster_start_ctld
check "given back to slurm, the ledger is loaded" log_has "ledger $ledger loaded"
check "... by job_submit/budget too" log_has "job_submit/budget: lifecycle checks from"

summary
