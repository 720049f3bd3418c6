#!/usr/bin/env bash
# replay_order.sh BUILD_DIR: does `sbudget replay` start a trace's jobs in the order the real controller does?
#
# Issue #8. Starts the 4-node cluster with priority/budget (fresh ledger, the fixture
# budget.conf, past usage imported with `sbudget ledger import` before slurmctld starts:
# p_acct and p_behind behind their line, p_on near it, p_ahead ahead of it), then:
#   1. generates a deterministic trace: REPLAY_ORDER_JOBS (100) jobs of 1 to 4 s on 1 to 4
#      whole nodes (55 % one node, 25 % two, 10 % three, 10 % four), time limit 1 minute,
#      each from one of 4 projects and one of its 2 users, drawn with bash's RANDOM seeded
#      with REPLAY_ORDER_SEED (8), so the projects' jobs are interleaved;
#   2. submits them in trace order with the partition `normal` DOWN, then sets it UP: every
#      job is pending when scheduling begins, as in the replay, where all are submitted at
#      the instant `normal` went UP (jobs ask for whole nodes and no GRES, so the cluster's
#      GRES/gpu TRES weight adds nothing the simulator leaves out);
#   3. waits until every job has ended and reads the start order from sacct;
#   4. writes the same jobs as a CSV trace (submit: the instant `normal` went UP, in seconds
#      from local midnight, so that the replay runs at the same instant of the month; run:
#      sacct's ElapsedRaw; limit; account; user) and replays it with `sbudget replay --policy
#      budget --nodes 4 --usage usage.csv`, with the weights, PriorityMaxAge,
#      PriorityCalcPeriod, PriorityDecayHalfLife and bf_interval (30 s unless
#      SchedulerParameters sets it) read from the cluster's slurm.conf, twice: with the
#      replay's model of sched/backfill (the main scheduler at every submission and job
#      end, EASY backfill every bf_interval), the replay that is checked, and with
#      --backfill-interval 0 (EASY backfill at every event), only reported: it slips small
#      jobs into spare nodes the cluster waits to fill (docs/what-if.md has the figures);
#   5. compares the start orders.
#
# Start order: the jobs sorted by start time in whole seconds (sacct's resolution), then by
# job id, in both (the replay's start, then its job id, the trace row: the same order as
# Slurm's ids). Agreement: the length of the longest common subsequence (LCS) of the two
# start orders over the number of jobs, i.e. the largest share of jobs that start in the
# same relative order in both; every other job moved. It must be >= REPLAY_ORDER_MIN %
# (90) for the replay with bf_interval. Also reported: the pairs of jobs whose order differs (of n(n-1)/2), each job off
# the LCS with its positions, its start offsets in both, how the cluster started it
# (main scheduler or backfill, from slurmctld's log) and the likely reason; the number of
# jobs whose position differs; both makespans. Also checked: p_behind's jobs start before
# p_ahead's on average (mean position) in both orders.
#
# REPLAY_ORDER_KEEP=DIR keeps the trace, the usage, both start orders and the report in DIR.
# About 3 to 4 minutes. One cluster at a time on this machine: run it as
#   flock /tmp/budget-cluster.lock tests/integration/replay_order.sh BUILD_DIR
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: replay_order.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch replay-order
scenario_traps

jobs_n=${REPLAY_ORDER_JOBS:-100}
seed=${REPLAY_ORDER_SEED:-8}
min_agreement=${REPLAY_ORDER_MIN:-90}
keep=${REPLAY_ORDER_KEEP:-}
projects=(p_acct p_behind p_on p_ahead)
t_script=$SECONDS

fixture_dates
fixture_budget_conf "$work/budget.conf"
fixture_usage_csv "$work/usage.csv"
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf"

section "start: priority/budget, 8 users in 4 projects, past usage imported before slurmctld starts"
FRESH=1 cluster_start
for p in "${projects[@]}"; do
  accounts_account "$p"
  accounts_user "u_${p#p_}" "$p"
  accounts_user "v_${p#p_}" "$p"
done
cluster_stop_ctld
rm -f "$ledger" "$ledger.old"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" "$work/usage.csv"
cluster_start_ctld

# A slurm.conf value (the last line setting it wins, as in Slurm).
conf_value() {
  awk -F= -v key="$1" 'tolower($1) == tolower(key) { v = $2 } END { print v }' "$SLURM_CONF"
}
# Slurm's D-HH:MM durations (days, optional time) as whole days: "30-0" -> 30.
conf_days() {
  local v
  v=$(conf_value "$1")
  [[ "$v" =~ ^([0-9]+)-0+(:0+)*$ ]] || {
    echo "$1=$v: expected whole days (D-0)" >&2
    return 1
  }
  echo "${BASH_REMATCH[1]}"
}
weight_fs=$(conf_value PriorityWeightFairshare)
weight_age=$(conf_value PriorityWeightAge)
max_age_days=$(conf_days PriorityMaxAge)
half_life_days=$(conf_days PriorityDecayHalfLife)
calc_minutes=$(conf_value PriorityCalcPeriod)
bf_interval=$(conf_value SchedulerParameters | grep -o 'bf_interval=[0-9]*' | cut -d= -f2 || true)
bf_interval=${bf_interval:-30}
nodes=$(sinfo -h -N -o %N | sort -u | wc -l)

section "1. a trace of $jobs_n short jobs (seed $seed)"
RANDOM=$seed
: >"$work/jobs.txt" # row project user nodes run_seconds limit_minutes
for ((row = 1; row <= jobs_n; row++)); do
  p=${projects[RANDOM % 4]}
  if ((RANDOM % 2)); then u=u_${p#p_}; else u=v_${p#p_}; fi
  r=$((RANDOM % 100))
  if ((r < 55)); then n=1; elif ((r < 80)); then n=2; elif ((r < 90)); then n=3; else n=4; fi
  echo "$row $p $u $n $((1 + RANDOM % 4)) 1" >>"$work/jobs.txt"
done
awk '{ jobs[$2]++; ns[$2] += $4 * $5 } END {
  for (p in jobs) printf "  %-9s %3d jobs, %4d node-seconds\n", p, jobs[p], ns[p] }' \
  "$work/jobs.txt" | sort

section "2. submit them with normal DOWN, then set it UP"
scontrol update partitionname=normal state=down
declare -A row_of=()
ids=()
while read -r row p u n run limit; do
  id=$(cluster_as "$u" sbatch --parsable -p normal -A "$p" -N "$n" --exclusive -t "$limit" \
    -J "r$row" --chdir="$work" -o /dev/null --wrap "sleep $run" </dev/null)
  row_of[$id]=$row
  ids+=("$id")
done <"$work/jobs.txt"
check "all $jobs_n jobs are pending" test "$(squeue -h -t PD -o %i | wc -l)" = "$jobs_n"
# The priorities the plugin gave at submission: the order a strict priority scheduler follows.
squeue -h -t PD -o '%i %Q' | while read -r id prio; do
  echo "${row_of[$id]} $prio"
done >"$work/priority.txt"
scontrol update partitionname=normal state=up
t_up=$(date +%s)
day=$(date -d "@$t_up" +%Y-%m-%d)
midnight=$(date -d "$day 00:00:00" +%s)
queue_empty() { [[ -z "$(squeue -h -o %i)" ]]; }
wait_for 240 "every job to end" queue_empty
echo "  all ended $((SECONDS - t_script)) s into the script"

section "3. the cluster's start order (sacct) and the same jobs replayed"
job_list=$(IFS=,; echo "${ids[*]}")
# slurmdbd receives the last job ends a moment after slurmctld.
sacct_completed() {
  SLURM_TIME_FORMAT=%s sacct -X -n -P -j "$job_list" \
    -o JobID,Account,User,NNodes,Start,End,ElapsedRaw,TimelimitRaw,State >"$work/sacct.txt"
  [[ "$(awk -F'|' '$9 == "COMPLETED"' "$work/sacct.txt" | wc -l)" == "$jobs_n" ]]
}
wait_for 30 "sacct to show every job completed" sacct_completed
# How the cluster started each job: "main" (sched: Allocate) or "backfill".
sed -n -e 's/.*sched: Allocate JobId=\([0-9]*\) .*/\1 main/p' \
  -e 's/.*Started JobId=\([0-9]*\) .*/\1 backfill/p' "$ctld_log" >"$work/how.txt"
for id in "${ids[@]}"; do echo "$id ${row_of[$id]}"; done >"$work/ids.txt"
# real.txt: row start_offset account nodes run how, in the cluster's start order.
awk -v up="$t_up" '
  FILENAME ~ /how.txt$/ { how[$1] = $2; next }
  FILENAME ~ /ids.txt$/ { row[$1] = $2; next }
  { split($0, f, "|"); print row[f[1]], f[5] - up, f[2], f[4], f[7], (f[1] in how ? how[f[1]] : "?") }' \
  "$work/how.txt" "$work/ids.txt" "$work/sacct.txt" | sort -n -k2,2 -k1,1 >"$work/real.txt"
# real_exact.txt: rows in the order slurmctld logged their starts (milliseconds, and the
# scheduler's own order within a pass).
awk 'FILENAME ~ /ids.txt$/ { row[$1] = $2; next } $1 in row { print row[$1] }' \
  "$work/ids.txt" "$work/how.txt" >"$work/real_exact.txt"

awk -F'[ ,]' -v submit=$((t_up - midnight)) '
  FILENAME ~ /jobs.txt$/ { user[$1] = $3; limit[$1] = $6 * 60; next }
  { line[$1] = submit "," $4 "," $5 "," limit[$1] "," $3 "," user[$1]; if ($1 > n) n = $1 }
  END { print "submit,nodes,run_seconds,limit_seconds,account,user"; for (i = 1; i <= n; i++) print line[i] }' \
  "$work/jobs.txt" "$work/real.txt" >"$work/trace.csv"
replay_args=(--trace "$work/trace.csv" --config "$work/budget.conf" --usage "$work/usage.csv"
  --policy budget --nodes "$nodes" --gpus-per-node "${GPUS:-4}"
  --calc-period $((calc_minutes * 60)) --half-life "$half_life_days"
  --weight-fairshare "$weight_fs" --weight-age "$weight_age" --max-age "$max_age_days"
  --start "$day" --starts -)
echo "  sbudget replay ${replay_args[*]#"$work/"} --backfill-interval $bf_interval"
# NAME: replay_NAME.csv (--starts), NAME.txt (row start_offset, in start second then job id
# order) and NAME_exact.txt (rows in the order the simulated scheduler started them).
replay_to() {
  local name=$1
  shift
  "$sbudget" replay "${replay_args[@]}" "$@" >"$work/replay_$name.csv"
  awk -F, -v up="$t_up" '$1 == "budget" { print $3, $4 - up }' "$work/replay_$name.csv" |
    sort -n -k2,2 -k1,1 >"$work/$name.txt"
  awk -F, '$1 == "budget" { print $3 }' "$work/replay_$name.csv" >"$work/${name}_exact.txt"
}
# sim: backfill every bf_interval, as sched/backfill; easy: EASY backfill at every event,
# which the cluster does not do.
replay_to sim --backfill-interval "$bf_interval"
replay_to easy --backfill-interval 0
check "the replay started every job" test "$(wc -l <"$work/sim.txt")" = "$jobs_n"

section "4. the two start orders compared"
# compare_orders SIM: compares real.txt with SIM.txt (and real_exact.txt with
# SIM_exact.txt), with priority.txt (row priority at submission) and trace.csv (run seconds
# as replayed). Prints the report; its last line is "RESULT lcs pairs off_lcs lcs_exact
# mean_behind_real mean_ahead_real mean_behind_sim mean_ahead_sim".
compare_orders() {
  awk '
    # The length of the longest common subsequence of A[1..na] and B[1..nb]; IN[x] = 1 for
    # the elements of one such subsequence.
    function lcs(A, na, B, nb, IN,    L, i, j) {
      for (i = 1; i <= na + 1; i++) L[i, nb + 1] = 0
      for (j = 1; j <= nb + 1; j++) L[na + 1, j] = 0
      for (i = na; i >= 1; i--)
        for (j = nb; j >= 1; j--)
          L[i, j] = (A[i] == B[j]) ? L[i + 1, j + 1] + 1 : \
                    (L[i + 1, j] >= L[i, j + 1] ? L[i + 1, j] : L[i, j + 1])
      i = 1; j = 1
      while (i <= na && j <= nb) {
        if (A[i] == B[j]) { IN[A[i]] = 1; i++; j++ }
        else if (L[i + 1, j] >= L[i, j + 1]) i++
        else j++
      }
      return L[1, 1]
    }
    function mean(SUM, key, CNT) { return CNT[key] ? SUM[key] / CNT[key] : 0 }
    FNR == 1 { file++ }
    file == 1 { n++; r[n] = $1; rpos[$1] = n; rstart[$1] = $2; acct[$1] = $3; nodes[$1] = $4;
                how[$1] = $6; next }
    file == 2 { m++; s[m] = $1; spos[$1] = m; sstart[$1] = $2; next }
    file == 3 { prio[$1] = $2; next }
    file == 4 { if (FNR > 1) { split($0, f, ","); run[FNR - 1] = f[3] }; next }
    file == 5 { nre++; re[nre] = $1; next }
    file == 6 { nse++; se[nse] = $1; next }
    END {
      common = lcs(r, n, s, m, inlcs)
      common_exact = lcs(re, nre, se, nse, unused)
      pairs = 0
      for (a = 1; a <= n; a++)
        for (b = a + 1; b <= n; b++)
          if (spos[r[a]] > spos[r[b]]) {
            pairs++
            if (pairs <= 25) pl = pl sprintf(" %d<%d", r[a], r[b])
          }
      moved = 0
      for (k = 1; k <= n; k++) if (rpos[r[k]] != spos[r[k]]) moved++
      printf "  agreement: LCS %d of %d jobs = %.1f %%\n", common, n, 100 * common / n
      printf "  (exact orders, slurmctld log vs the replay scheduler: LCS %d of %d = %.1f %%)\n", \
        common_exact, nre, nre ? 100 * common_exact / nre : 0
      printf "  pairs in a different order: %d of %d%s\n", pairs, n * (n - 1) / 2, \
        pairs ? " (rows, cluster order first):" pl (pairs > 25 ? " ..." : "") : ""
      printf "  jobs at a different position: %d; off the LCS: %d\n", moved, n - common
      if (n - common > 0) {
        printf "  %-4s %-9s %5s %8s %8s %10s %9s %-8s %s\n", "row", "project", "nodes", \
          "pos:real", "pos:sim", "start:real", "start:sim", "cluster", "likely reason"
        for (k = 1; k <= n; k++) {
          x = r[k]
          if (x in inlcs) continue
          # Each job it swapped with: who broke the priority order (higher first, then the
          # lower id), judged by whole-second starts.
          swapped = 0; sim_bf = 0; cl_bf = 0; cl_over = 0; tie = 0
          for (y in rpos) {
            if (y == x || (rpos[y] < rpos[x]) == (spos[y] < spos[x])) continue
            swapped++
            if (prio[y] > prio[x] || (prio[y] == prio[x] && y + 0 < x + 0)) { hi = y; lo = x }
            else { hi = x; lo = y }
            if (sstart[lo] < sstart[hi]) sim_bf++
            else if (rstart[lo] < rstart[hi]) { if (how[lo] == "backfill") cl_bf++; else cl_over++ }
            else tie++
          }
          reason = sprintf("swapped with %d:", swapped)
          if (sim_bf) reason = reason sprintf(" %d the replay started lower priority first (backfill into spare nodes);", sim_bf)
          if (cl_bf) reason = reason sprintf(" %d the cluster backfilled lower priority first;", cl_bf)
          if (cl_over) reason = reason sprintf(" %d the cluster started lower priority first (main scheduler);", cl_over)
          if (tie) reason = reason sprintf(" %d same start second, ordered by id;", tie)
          printf "  %-4s %-9s %5d %8d %8d %10d %9d %-8s %s\n", x, acct[x], nodes[x], rpos[x], \
            spos[x], rstart[x], sstart[x], how[x], reason
        }
      }
      # Makespans: from `normal` UP to the last end.
      for (k = 1; k <= n; k++) {
        x = r[k]
        if (rstart[x] + run[x] > rend) rend = rstart[x] + run[x]
        if (sstart[x] + run[x] > send) send = sstart[x] + run[x]
        d = rstart[x] - sstart[x]; dsum += d; dabs += (d < 0 ? -d : d)
      }
      printf "  makespan from UP: cluster %d s, replay %d s; starts differ by %.1f s on average (cluster later by %.1f s)\n", \
        rend, send, dabs / n, dsum / n
      for (k = 1; k <= n; k++) { x = r[k]; cnt[acct[x]]++; sr[acct[x]] += rpos[x]; ss[acct[x]] += spos[x] }
      for (p in cnt)
        printf "  mean position %-9s cluster %5.1f  replay %5.1f  (%d jobs)\n", p, sr[p] / cnt[p], ss[p] / cnt[p], cnt[p]
      printf "RESULT %d %d %d %d %.2f %.2f %.2f %.2f\n", common, pairs, n - common, common_exact, \
        mean(sr, "p_behind", cnt), mean(sr, "p_ahead", cnt), mean(ss, "p_behind", cnt), \
        mean(ss, "p_ahead", cnt)
    }' "$work/real.txt" "$work/$1.txt" "$work/priority.txt" "$work/trace.csv" \
    "$work/real_exact.txt" "$work/$1_exact.txt"
}
echo "  the replay with --backfill-interval 0 (EASY backfill at every event):"
compare_orders easy >"$work/report_easy.txt"
sed -n '1,4p' "$work/report_easy.txt"
echo "  the replay with backfill every $bf_interval s (bf_interval), the one checked:"
compare_orders sim >"$work/report.txt"
grep -v '^RESULT ' "$work/report.txt"
read -r _ lcs _ _ _ behind_real ahead_real behind_sim ahead_sim < <(grep '^RESULT ' "$work/report.txt")
check "agreement: LCS $lcs of $jobs_n >= $min_agreement %" awk_true "100 * $lcs >= $min_agreement * $jobs_n"
check "cluster: p_behind starts before p_ahead on average ($behind_real < $ahead_real)" \
  awk_true "$behind_real < $ahead_real"
check "replay: p_behind starts before p_ahead on average ($behind_sim < $ahead_sim)" \
  awk_true "$behind_sim < $ahead_sim"

if [[ -n "$keep" ]]; then
  mkdir -p "$keep"
  cp "$work"/{jobs.txt,usage.csv,budget.conf,ids.txt,sacct.txt,how.txt,priority.txt,real.txt,real_exact.txt,trace.csv,replay_sim.csv,sim.txt,sim_exact.txt,report.txt,replay_easy.csv,easy.txt,easy_exact.txt,report_easy.txt} "$keep/"
  echo "  kept in $keep"
fi
echo "  script ran $((SECONDS - t_script)) s (cluster stop follows)"
summary
