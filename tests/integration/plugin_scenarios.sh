#!/usr/bin/env bash
# plugin_scenarios.sh BUILD_DIR: priority/budget in Debian's slurmctld, against a real cluster.
#
# Starts munge, MariaDB, slurmdbd, slurmctld (PriorityType=priority/budget from BUILD_DIR)
# and 4 slurmd, prepares budgets and past usage with `sbudget ledger import` (the path an
# admin takes when deploying mid-project), then checks:
#   1. a bad budget.conf at start stops slurmctld with file:line in its log;
#   2. three projects, behind / on / ahead of their line, contend for the nodes: the one
#      behind has the highest FAIRSHARE in sprio and starts first, the one ahead last;
#      sprio's PRIORITY equals squeue's; sshare shows RawShares = expected GPUh and every
#      user the project's FairShare; an account without a budget gets FAIRSHARE 0; a job
#      in two partitions is ranked in each; PrivateData=jobs hides others' jobs in sprio;
#      jobs submitted between passes rank as the pass ranks them, on its factors;
#   3. usage accrues while jobs run (periodic passes and job end): the ledger holds exactly
#      nodes x 4 x elapsed; TRESRunMins drains back to 0; a job submitted after a job's end
#      charged its project is ranked by name, not on the factors of the pass before;
#   4. a slurmctld restart keeps the ledger;
#   5. `scontrol reconfigure` with a broken budget.conf keeps the old one and logs why; with a
#      good one, a job submitted at once is ranked on the new budget;
#   6. `scontrol reconfigure` with new TRES weights: sprio shows each job the TRES weights it
#      was ranked with (a job ranked before the reload, the old ones or, once re-ranked, the
#      new); the reload asks for a pass, which runs within seconds, not a period later, and
#      re-ranks every job; it logs the project Slurm has no account for, which
#      `sbudget check-config --accounts` finds first from sacctmgr; with
#      PriorityWeightFairshare=0 the log says the budget factor adds nothing;
#   7. a ledger saved in the previous month is closed at startup with the right lost and
#      rolled-over credit; the project without an account is logged after the start too.
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: plugin_scenarios.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch scenarios
scenario_traps

fixture_dates
fixture_budget_conf "$work/budget.conf"
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
# Freed memory refilled: a sprio row that outlived what it points at prints garbage here.
export CTLD_MALLOC_PERTURB=165
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
PrivateData=jobs"
weight_fs=10000000

# The passes' counts of the jobs submitted between them (DebugFlags=Priority): how many lines
# so far, and the sum of those after the first SKIP as "ON_THE_PASS_FACTORS BY_NAME".
since_pattern="since the pass before, [0-9]* new jobs ranked on its factors, [0-9]* by name"
count_pass_lines() { grep -c "$since_pattern" "$ctld_log" || true; }
submissions_ranked_since() { # SKIP
  grep -o "$since_pattern" "$ctld_log" |
    awk -v skip="$1" 'NR > skip { on += $5; by += $12 } END { print on + 0, by + 0 }'
}
submissions_counted() { # SKIP N: the lines after SKIP count N jobs or more
  local on by
  read -r on by < <(submissions_ranked_since "$1")
  ((on + by >= $2))
}

section "start: the plugin loads; accounts and past usage"
FRESH=1 cluster_start
for p in behind on ahead close acct; do
  accounts_account "p_$p"
  accounts_user "u_$p" "p_$p"
done
accounts_account nobudget
accounts_user u_none nobudget

section "1. a bad budget.conf at start stops slurmctld, naming file and line"
cluster_stop_ctld
cp "$work/budget.conf" "$work/budget.conf.good"
sed -i 's/^Project=p_on Kind=large Credit=120000/Project=p_on Kind=large Credit=-5/' "$work/budget.conf"
bad_line=$(grep -n '^Project=p_on' "$work/budget.conf" | cut -d: -f1)
: >"$ctld_log"
if cluster_start_ctld 2>/dev/null; then started=yes; else started=no; fi
check "slurmctld refuses to start with a broken budget.conf" test "$started" = no
check "its log names budget.conf:$bad_line and the field" \
  grep -q "budget.conf:$bad_line: Credit: must be a whole positive number" "$ctld_log"
cp "$work/budget.conf.good" "$work/budget.conf"

# Past usage, imported while slurmctld is down: every earlier month on the line;
# this month p_behind 100 GPUh, p_on 5,000, p_ahead 12,000 of an expected 10,000.
fixture_usage_csv "$work/usage.csv"
rm -f "$ledger" "$ledger.old"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" "$work/usage.csv"
cluster_start_ctld

section "2. behind starts first, ahead last; sprio and sshare show the budget"
blocker=$(cluster_as u_acct sbatch --parsable -A p_acct -N4 --exclusive -t 10 \
  --chdir="$work" -o /dev/null --wrap 'sleep 600')
wait_for 60 "the blocker runs" job_state_is "$blocker" RUNNING
declare -A job=()
for p in ahead on behind; do # submitted worst first: FIFO would get it backwards
  job[$p]=$(cluster_as "u_$p" sbatch --parsable -A "p_$p" -N4 --exclusive --gres=gpu:4 -t 2 \
    --chdir="$work" -o /dev/null --wrap 'sleep 8')
done
multi_job=$(cluster_as u_on sbatch --parsable -A p_on -p normal,low -N4 --exclusive \
  --gres=gpu:4 -t 2 --chdir="$work" -o /dev/null --wrap 'sleep 1')
none_job=$(cluster_as u_none sbatch --parsable -A nobudget -N4 --exclusive -t 2 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1')
sleep 2
sprio -l >"$work/sprio.txt"
squeue -o '%.8i %.9a %.10Q %.8T' >"$work/squeue.txt"
sshare -a -l -P >"$work/sshare.txt"
cat "$work/sprio.txt" "$work/squeue.txt"
column -t -s '|' "$work/sshare.txt" | cut -c1-140

fs_behind=$(sprio_field "${job[behind]}" FAIRSHARE)
fs_on=$(sprio_field "${job[on]}" FAIRSHARE)
fs_ahead=$(sprio_field "${job[ahead]}" FAIRSHARE)
check "FAIRSHARE behind ($fs_behind) > on ($fs_on)" awk_true "$fs_behind > $fs_on"
check "FAIRSHARE on ($fs_on) > ahead ($fs_ahead)" awk_true "$fs_on > $fs_ahead"
check "behind and on are in the behind band (> 0.6 x weight)" \
  awk_true "$fs_on > 0.6 * $weight_fs"
check "ahead is in the ahead band (0.4..0.6 x weight)" \
  awk_true "$fs_ahead > 0.4 * $weight_fs && $fs_ahead <= 0.6 * $weight_fs"
check "an account without a budget gets FAIRSHARE 0" \
  awk_true "$(sprio_field "$none_job" FAIRSHARE) == 0"
fs_in() { sprio -l -j "$1" | awk -v part="$2" '$2 == part { print $8 }'; }
check "a job in normal and low is ranked in each: normal by the project's factor" \
  test "$(fs_in "$multi_job" normal)" = "$fs_on"
fs_low=$(fs_in "$multi_job" low)
check "... and low in the low band (<= 0.2 x weight)" \
  awk_true "$fs_low > 0 && $fs_low <= 0.2 * $weight_fs"
# Every GPU of the cluster: TRES factor 1 for gres/gpu, weighted by PriorityWeightTRES's 1000.
# A row copied from the job's last ranking (one partition) and a row ranked when asked (each
# partition of a job in two) carry both arrays and their partition's name.
tres_rows() { sprio -h -j "$1" -o '%r|%t|%T' | tr -d ' ' | sort | paste -sd' '; }
rows=$(tres_rows "${job[on]}")
check "sprio's TRES of a job in one partition: gres/gpu factor 1, weighted 1000 ($rows)" \
  test "$rows" = "normal|gres/gpu=1.00|gres/gpu=1000"
rows=$(tres_rows "$multi_job")
check "... and of a job in normal and low, in each ($rows)" \
  test "$rows" = "low|gres/gpu=1.00|gres/gpu=1000 normal|gres/gpu=1.00|gres/gpu=1000"
scancel "$multi_job"
check "PrivateData=jobs: u_on sees only its own jobs in sprio" \
  test "$(cluster_as u_on sprio -h -o %i | sort -u | paste -sd,)" = "${job[on]}"
for id in "${job[@]}" "$none_job"; do
  check "sprio PRIORITY of $id equals squeue %Q" \
    test "$(sprio_field "$id" PRIORITY)" = "$(squeue -h -j "$id" -o %Q)"
done
check "sshare: p_ahead RawShares = its expected 10,000 GPUh" \
  test "$(sshare_field p_ahead '' RawShares)" = 10000
for p in behind on ahead; do
  user_fs=$(sshare_field "p_$p" "u_$p" FairShare)
  check "sshare: u_$p FairShare ($user_fs) = sprio FAIRSHARE / weight" \
    awk_true "($user_fs * $weight_fs - $(sprio_field "${job[$p]}" FAIRSHARE))^2 < 100"
done

# Submission ranked the jobs by name; a pass ranks them from each association's project,
# resolved once in its publish step. Both must give the same priority: the difference
# left between squeue's %Q (the pass) and sprio's PRIORITY (computed by name when asked)
# is the age the jobs gained in between, at most 2,000,000 x 120 s / 30 days = 93. A
# wrong fair-share factor (the low band, or 0) moves it by hundreds of thousands.
scontrol setdebug verbose # DebugFlags lines are logged at verbose
scontrol setdebugflags +Priority
pass_line="pass ranked [0-9]* jobs in .*, 0 ranked by name"
wait_for 90 "a pass that ranks every job from its association" grep -q "$pass_line" "$ctld_log"
# The same pass counts the jobs submitted since the one before; later lines count the jobs
# submitted between passes (submissions_ranked_since).
wait_for 10 "the pass's count of new jobs" grep -q "since the pass before, " "$ctld_log"
grep -o "pass ranked .*" "$ctld_log" | tail -1
phases_line="pass outside the job write lock: usage decay [0-9]* usec, waiting for the lock [0-9]* usec, advance [0-9]* usec, publish [0-9]* usec"
check "the pass logs where its time outside the job write lock went" grep -q "$phases_line" "$ctld_log"
for p in ahead on behind; do
  id=${job[$p]}
  check "after a pass: squeue %Q of $id is sprio's PRIORITY, age aside" \
    awk_true "($(squeue -h -j "$id" -o %Q) - $(sprio_field "$id" PRIORITY))^2 < 100^2"
done
# A job submitted between two passes is ranked by priority_p_set. sprio shows a job in one
# partition with the factors its last ranking left (here priority_p_set's); they must be the
# factors the engine gave for the job in normal and in low, but for the usage the pass
# decayed in between (tens a minute here). A wrong partition role moves FAIRSHARE from one
# band to another, by millions.
# Nothing charged since the pass (the running blocker is charged by passes), so both are
# ranked on the pass's factors, without a lookup by name: the next pass's count says so.
declare -A fs_by_name=([normal]=$fs_on [low]=$fs_low)
counted=$(count_pass_lines)
for part in normal low; do
  late=$(cluster_as u_on sbatch --parsable -A p_on -p "$part" -N4 --exclusive --gres=gpu:4 \
    -t 2 --chdir="$work" -o /dev/null --wrap 'sleep 1')
  fs_late=$(sprio_field "$late" FAIRSHARE)
  check "a job in $part submitted between passes: FAIRSHARE $fs_late, by name ${fs_by_name[$part]}" \
    awk_true "($fs_late - ${fs_by_name[$part]})^2 < (0.001 * $weight_fs)^2"
  scancel "$late"
done
ask_for_pass
wait_for 30 "a pass to count them" submissions_counted "$counted" 2
check "both ranked on the last pass's factors, none by name ($(submissions_ranked_since "$counted"))" \
  test "$(submissions_ranked_since "$counted")" = "2 0"
scontrol setdebugflags -Priority
scontrol setdebug info

scancel "$blocker"
wait_for 180 "the three jobs to finish" jobs_done "${job[@]}"
start_of() { sacct -n -X -P -j "$1" -o Start; }
check "behind started before on" test "$(start_of "${job[behind]}")" \< "$(start_of "${job[on]}")"
check "on started before ahead" test "$(start_of "${job[on]}")" \< "$(start_of "${job[ahead]}")"
sacct -X -j "${job[behind]},${job[on]},${job[ahead]}" -o JobID,Account,Start,End,ElapsedRaw

section "3. usage accrues: nodes x 4 GPUh per node-hour x elapsed"
elapsed=$(sacct -n -X -P -j "${job[behind]}" -o ElapsedRaw)
wait_for 90 "a periodic pass to save the ledger" ledger_saved_after "$(date +%s)"
used=$(ledger_json_field p_behind used_this_month)
want=$(awk "BEGIN { printf \"%.9f\", 100 + 4 * 4 * $elapsed / 3600 }")
check "p_behind this month: 100 + 16 GPU x ${elapsed} s = $want GPUh (ledger: $used)" \
  awk_true "($used - $want)^2 < 1e-9"
raw=$(sshare_field p_behind u_behind RawUsage)
check "sshare RawUsage of u_behind (${raw} GPU-s) includes the job's $((16 * elapsed)) GPU-s" \
  awk_true "$raw >= 16 * $elapsed"

on_before=$(ledger_json_field p_on used_this_month)
long_job=$(cluster_as u_on sbatch --parsable -A p_on -N2 --exclusive -t 3 \
  --chdir="$work" -o /dev/null --wrap 'sleep 75')
wait_for 60 "the 2-node job runs" job_state_is "$long_job" RUNNING
sleep 5 # a pass in the job's first seconds could charge it nothing
ask_for_pass_and_save "a pass while it runs"
on_running=$(ledger_json_field p_on used_this_month)
check "usage accrues while the job runs ($on_before -> $on_running GPUh)" \
  awk_true "$on_running > $on_before"
wait_for 120 "the 2-node job to end" jobs_done "$long_job"
ask_for_pass_and_save "a pass after it ended"
elapsed=$(sacct -n -X -P -j "$long_job" -o ElapsedRaw)
want=$(awk "BEGIN { printf \"%.9f\", $on_before + 2 * 4 * $elapsed / 3600 }")
on_after=$(ledger_json_field p_on used_this_month)
check "accrual ticks and job end add up to exactly 2 x 4 x ${elapsed} s ($want GPUh)" \
  awk_true "($on_after - $want)^2 < 1e-9"
run_mins=$(sshare -a -l -P | awk -F'|' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "TRESRunMins") c = i; next } { print $c }' | tr ',' '\n' | awk -F= '$2 != 0' | wc -l)
check "TRESRunMins drained to 0 once every job ended" test "$run_mins" = 0

# A job's end charges its project at once (priority_p_job_end), and the charge starts a new
# generation of the engine: a job submitted after it, before the next pass, is ranked by name
# on the charged budget, not on the factors the pass before the charge left. Right after a
# pass, the next is a minute away; should one come between the two jobs all the same, again.
scontrol setdebug verbose
scontrol setdebugflags +Priority
for attempt in 1 2; do
  wait_for 90 "a pass" ledger_saved_after "$(date +%s)"
  pass_at=$(ledger_saved_at)
  sleep 1 # its log lines follow the save
  counted=$(count_pass_lines)
  short=$(cluster_as u_on sbatch --parsable -A p_on -N1 --exclusive -t 1 \
    --chdir="$work" -o /dev/null --wrap 'sleep 2')
  wait_for 60 "the short job to end" jobs_done "$short"
  after_charge=$(cluster_as u_on sbatch --parsable -A p_on -N1 --exclusive -t 1 \
    --chdir="$work" -o /dev/null --wrap 'sleep 1')
  [[ "$(ledger_saved_at)" == "$pass_at" ]] && break
  echo "a pass came between the two jobs (attempt $attempt): again"
  wait_for 60 "the job after the charge to end" jobs_done "$after_charge" # its own charge
done
ask_for_pass
wait_for 30 "a pass to count them" submissions_counted "$counted" 2
check "a job before the charge ranked on the pass's factors, one after it by name ($(submissions_ranked_since "$counted"))" \
  test "$(submissions_ranked_since "$counted")" = "1 1"
scontrol setdebugflags -Priority
scontrol setdebug info
wait_for 60 "the job after the charge to end" jobs_done "$after_charge"

section "4. a slurmctld restart keeps the ledger"
before=$(ledger_json_field p_behind used_this_month)
cluster_stop_ctld
# The stop saved the ledger; the first pass of the new slurmctld saves it again, at its start
# (within the same second as the stop's save, the pass a minute later does).
stopped_save=$(ledger_saved_at)
cluster_start_ctld
wait_for 90 "the new slurmctld to save the ledger" ledger_saved_since_stamp "$stopped_save"
check "p_behind usage unchanged by the restart ($before GPUh)" \
  test "$(ledger_json_field p_behind used_this_month)" = "$before"
check "the log says the ledger was loaded" grep -q "ledger $ledger loaded" "$ctld_log"

section "5. scontrol reconfigure: a broken budget.conf keeps the last good one; a good one counts"
sed -i 's/^Project=p_ahead Kind=large Credit=120000/Project=p_ahead Kind=large Credit=zero/' \
  "$work/budget.conf"
bad_line=$(grep -n '^Project=p_ahead' "$work/budget.conf" | cut -d: -f1)
reconfigure_until_logged "the broken budget.conf to be rejected" \
  "rejected, keeping the last good budgets"
check "the log names budget.conf:$bad_line" grep -q "budget.conf:$bad_line: Credit" "$ctld_log"
check "the log says the last good budgets are kept" \
  grep -q "rejected, keeping the last good budgets" "$ctld_log"
blocker=$(cluster_as u_acct sbatch --parsable -A p_acct -N4 --exclusive -t 10 \
  --chdir="$work" -o /dev/null --wrap 'sleep 600')
wait_for 60 "the blocker runs" job_state_is "$blocker" RUNNING
probe=$(cluster_as u_ahead sbatch --parsable -A p_ahead -N4 --exclusive -t 1 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1')
check "p_ahead still ranks by its budget (ahead band)" \
  awk_true "$(sprio_field "$probe" FAIRSHARE) > 0.4 * $weight_fs"
scancel "$probe"
reload_budgets() { reconfigure_until_logged "$1" "budgets reloaded from"; } # WHAT
# A good reload counts for new jobs at once, not from the next pass (PriorityCalcPeriod is a
# minute): ten times the credit puts p_ahead far behind its line, in the behind band.
sed 's/^Project=p_ahead Kind=large Credit=120000/Project=p_ahead Kind=large Credit=1200000/' \
  "$work/budget.conf.good" >"$work/budget.conf"
reload_budgets "budget.conf reloaded"
probe=$(cluster_as u_ahead sbatch --parsable -A p_ahead -N4 --exclusive -t 1 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1')
# sprio shows the factors priority_p_set gave the job: they must be the new budget's, not
# the factor the last pass ranked p_ahead's jobs on.
check "after a good reload a new p_ahead job ranks on the new credit (behind band)" \
  awk_true "$(sprio_field "$probe" FAIRSHARE) > 0.6 * $weight_fs"
scancel "$probe" "$blocker"
cp "$work/budget.conf.good" "$work/budget.conf"
reload_budgets "the good file to be taken back"

section "6. scontrol reconfigure: new TRES weights, each row with its ranking's; a pass at once"
# sprio's %t is a job's weighted TRES value over the weight its row carries: 1.00 for every
# GPU of the cluster, whatever the weight, as long as the row's value and its weight come from
# one ranking. A row that took the new weights with an old ranking's values would read 0.50.
blocker=$(cluster_as u_acct sbatch --parsable -A p_acct -N4 --exclusive -t 10 \
  --chdir="$work" -o /dev/null --wrap 'sleep 600')
wait_for 60 "the blocker runs" job_state_is "$blocker" RUNNING
old_job=$(cluster_as u_on sbatch --parsable -A p_on -N4 --exclusive --gres=gpu:4 -t 2 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1')
# Every pass saves the ledger, stamped with its time (a reconfigure resets DebugFlags, so the
# pass's log line cannot tell). Right after a pass, a minute before the next periodic one
# (PriorityCalcPeriod), so that a pass within seconds of the reload is the one it asked for:
wait_for 90 "a pass" ledger_saved_after "$(date +%s)"
last_pass=$(ledger_saved_at)
slurm_conf=$lc/etc/slurm.conf
# The same reconfigure reloads budget.conf, now with a project Slurm has no account for (a
# typo of p_ahead): the pass after the reload names it, and no other.
fixture_budget_conf "$work/budget.conf" p_behind p_on p_ahead p_close p_acct p_ahaed
without_account="priority/budget: project p_ahaed has no Slurm account: no job can use its credit"
# sbudget finds it first, from the real sacctmgr; a warning, the exit status 0.
rc=0
out=$("$sbudget" check-config --accounts "$work/budget.conf" 2>&1) || rc=$?
check "check-config --accounts warns of p_ahaed (status $rc)" \
  contains "$out" "declares project p_ahaed, which slurmdbd has no account for: no job can use its credit"
check "... and of no other project, exit status 0" \
  test "$(grep -c 'which slurmdbd has no account for' <<<"$out")" = 1 -a "$rc" = 0
sed -i 's|^PriorityWeightTRES=GRES/gpu=1000$|PriorityWeightTRES=GRES/gpu=2000|' "$slurm_conf"
check "slurm.conf now weighs a GPU 2000" grep -q '^PriorityWeightTRES=GRES/gpu=2000$' "$slurm_conf"
reload_budgets "slurm.conf reloaded"
old_rows=$(tres_rows "$old_job")
check "a job ranked before the reload shows one ranking's value and weight, old or new ($old_rows)" \
  grep -qxE 'normal\|gres/gpu=1\.00\|gres/gpu=(1000|2000)' <<<"$old_rows"
new_job=$(cluster_as u_on sbatch --parsable -A p_on -N4 --exclusive --gres=gpu:4 -t 2 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1')
new_rows=$(tres_rows "$new_job")
check "a job submitted after it shows the new weight ($new_rows)" \
  test "$new_rows" = "normal|gres/gpu=1.00|gres/gpu=2000"
wait_for 30 "the pass the reload asks for" ledger_saved_since_stamp "$last_pass"
check "it ran $(($(ledger_saved_at) - last_pass)) s after the pass before, not a period (60 s) later" \
  test $(($(ledger_saved_at) - last_pass)) -lt 45
old_rows=$(tres_rows "$old_job")
check "after it, the older job too shows the new weight ($old_rows)" \
  test "$old_rows" = "normal|gres/gpu=1.00|gres/gpu=2000"
check "the pass after the reload logs p_ahaed, which has no Slurm account" \
  grep -qF "$without_account" "$ctld_log"
check "and no project that has one ($(grep -c 'has no Slurm account' "$ctld_log") lines)" \
  test "$(grep -c 'has no Slurm account' "$ctld_log")" = 1
scancel "$old_job" "$new_job" "$blocker"
sed -i 's|^PriorityWeightTRES=GRES/gpu=2000$|PriorityWeightTRES=GRES/gpu=1000|' "$slurm_conf"
reload_budgets "slurm.conf taken back"
# Slurm's default fair-share weight, 0, leaves the budgets ranking nothing: the log says so.
sed -i "s|^PriorityWeightFairshare=$weight_fs\$|PriorityWeightFairshare=0|" "$slurm_conf"
check "slurm.conf now weighs the fair-share factor 0" \
  grep -q '^PriorityWeightFairshare=0$' "$slurm_conf"
reconfigure_until_logged "the zero fair-share weight to be logged" \
  "PriorityWeightFairshare is 0: the budget factor adds nothing to a job's priority"
sed -i "s|^PriorityWeightFairshare=0\$|PriorityWeightFairshare=$weight_fs|" "$slurm_conf"
reload_budgets "the fair-share weight taken back"

section "7. a ledger saved in the previous month is closed at startup"
cluster_stop_ctld
rm -f "$ledger" "$ledger.old"
fixture_prev_csv "$work/prev.csv"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" \
  --at "$FIX_PREV-15T12:00:00" "$work/prev.csv"
: >"$ctld_log"
cluster_start_ctld
prev=$((FIX_MONTH - 1))
remaining=$(printf '%d' $((FIX_CREDIT - ((prev - 1) * FIX_B + 8500))) | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
grep "p_close: month" "$ctld_log" || true
check "month $prev of p_close closed at start: used 3,000, lost 5,500, rolled over 1,500" \
  grep -q "p_close: month $prev closed: used 3,000 GPUh, lost 5,500, rolled over 1,500, remaining $remaining" \
  "$ctld_log"
wait_for 90 "a pass to publish the budget" sshare_has_shares p_close
check "sshare: p_close RawShares = 10,000 + 1,500 rolled over" \
  test "$(sshare_field p_close '' RawShares)" = 11500
check "the first pass after the start logs p_ahaed, which has no Slurm account" \
  grep -qF "$without_account" "$ctld_log"

summary
