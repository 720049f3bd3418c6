#!/usr/bin/env bash
# soak_kill.sh BUILD_DIR [--kills N] [--min S] [--max S] [--close-kills M]: SIGKILLs
# slurmctld (priority/budget) N times (default 50) at random moments while jobs keep
# starting and ending, then M more times (default 10) while it closes a month at startup,
# and checks that the ledger loses nothing it promised to keep.
#
# Every --min..--max seconds (default 4..20; one kill in three waits for a periodic pass to
# save the ledger and kills 0-0.5 s later, i.e. during or right after accrual), slurmctld
# gets SIGKILL and is started again at once. After every restart:
#   - the ledger file loads (`sbudget ledger show`);
#   - conservation: for every project, credit - used this month - remaining (the credit
#     accounted to closed months) is the same as before the first kill, to the GPU-second;
#   - the month's usage never decreases from one restart to the next;
#   - the total never exceeds NODES x 4 GPU x the wall time since the soak began.
# At the end (queue drained, one more pass saved) the ledger's total is compared with
# sacct's sum of ElapsedRaw x NNodes x 4 over the soak's jobs. The usage a kill may lose is
# bounded: a job that ended after the last save before a kill was charged in memory only,
# and a restart resumes accrual from the save (docs/reliability.md). The script computes
# that bound exactly from each kill's time, the save time it left, and sacct, and checks
#   0 <= sacct - ledger <= bound   (nothing counted twice, nothing lost beyond it).
# Month close: slurmctld runs on real time, so the close under test is the catch-up close at
# startup. A ledger saved in the previous month (`sbudget ledger import --at`, p_close used
# 3,000 of its 10,000 GPUh there) is put in place and slurmctld started; it is killed at a
# random moment of its startup (1 in 3) or just after the log says the month closed (the
# rest), then started again. After every restart the ledger file has the month closed
# exactly once: the same closed months, usage and remaining credit as a start that was not
# killed, and slurmctld logged the close again only when the killed start had not saved it.
# Run it alone: flock /tmp/budget-cluster.lock tests/integration/soak_kill.sh build/ci
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: soak_kill.sh BUILD_DIR [--kills N] [--min S] [--max S] [--close-kills M]}" && pwd)
shift
kills=50
min_gap=4
max_gap=20
close_kills=10
while (($#)); do
  case "$1" in
    --kills) kills=$2; shift 2 ;;
    --close-kills) close_kills=$2; shift 2 ;;
    --min) min_gap=$2; shift 2 ;;
    --max) max_gap=$2; shift 2 ;;
    *) echo "soak_kill.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch soak
submitter=

stop_submitter() {
  if [[ -n "$submitter" ]]; then
    kill "$submitter" 2>/dev/null || true
    wait "$submitter" 2>/dev/null || true
    submitter=
  fi
}
# On failure, the controller's last words explain more than the check that failed.
scenario_cleanup() {
  ! checks_failed || tail -n 40 "$ctld_log" >&2 || true
  stop_submitter
}
scenario_traps

projects=(p_s1 p_s2 p_s3)
fixture_dates
# p_close: no jobs; the month-close phase gives it usage in the previous month.
fixture_budget_conf "$work/budget.conf" "${projects[@]}" p_close
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
# MinJobAge: slurmctld keeps every finished job's record for the final comparison.
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
MinJobAge=86400"
nodes=${NODES:-4}

section "start: priority/budget, a fresh ledger, projects ${projects[*]}"
FRESH=1 cluster_start
for p in "${projects[@]}"; do
  accounts_account "$p"
  accounts_user "u_${p#p_}" "$p"
done
soak_start=$(date +%s)
month=$(date +%Y-%m)

# Keeps about 6 jobs queued: 1 or 2 whole nodes, 15 to 75 s. sbatch fails while
# slurmctld is down; the next round tries again.
(
  trap - EXIT
  while :; do
    queued=$(squeue -h -t PD 2>/dev/null | wc -l) || queued=6
    if ((queued < 6)); then
      p=${projects[RANDOM % ${#projects[@]}]}
      timeout 10 runuser -u "u_${p#p_}" -- env SLURM_CONF="$SLURM_CONF" sbatch -Q -A "$p" \
        -N $((1 + RANDOM % 2)) --exclusive -t 5 --chdir="$work" -o /dev/null \
        --wrap "sleep $((15 + RANDOM % 61))" >/dev/null 2>&1 || true
    else
      sleep 1
    fi
  done
) &
submitter=$!

# Total GPU-seconds charged this month over the soak's projects, from the ledger file.
ledger_total() {
  "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
    jq -r '[.[] | select(.project | startswith("p_s")) | .used_this_month] | add * 3600 | round'
}

# Per project, credit - used this month - remaining, in GPU-seconds: the credit
# accounted to the months already closed (used or lost). Constant while no month closes.
accounted_closed() {
  "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
    jq -r '[.[] | select(.project | startswith("p_s"))
            | "\(.project)=\((.credit - .used_this_month - .remaining) * 3600 | round)"] | join(" ")'
}

kill_ctld() {
  local pid comm
  pid=$(_lc_pid slurmctld) || return 1
  comm=$(ps -o comm= -p "$pid" 2>/dev/null) || return 1
  [[ "$comm" == slurmctld ]] || return 1
  kill -KILL "$pid"
  while _lc_alive "$pid"; do sleep 0.05; done
  wait "$pid" 2>/dev/null || true
  rm -f "$lc/run/slurmctld.pid"
}

section "soak: $kills kills, every $min_gap-$max_gap s"
prev_total=0
wait_for 90 "the first save of the ledger" test -s "$ledger"
closed_before=$(accounted_closed)
echo "accounted to closed months (GPU-s): $closed_before"
: >"$work/kills"
restart_failures=0
for ((k = 1; k <= kills; k++)); do
  if ((k % 3 == 0)); then
    before=$(ledger_saved_at)
    deadline=$((SECONDS + 90))
    while [[ "$(ledger_saved_at)" == "$before" ]] && ((SECONDS < deadline)); do sleep 0.05; done
    sleep "0.$((RANDOM % 5))"
    how="after a pass"
  else
    sleep $((min_gap + RANDOM % (max_gap - min_gap + 1)))
    how="at random"
  fi
  kill_ctld || { echo "FAIL kill $k: no slurmctld to kill" >&2; _failures=$((_failures + 1)); break; }
  echo "$(date +%s) $(ledger_saved_at)" >>"$work/kills"
  if ! cluster_start_ctld 2>"$work/start.err"; then
    cat "$work/start.err" >&2
    restart_failures=$((restart_failures + 1))
    echo "FAIL kill $k: slurmctld did not come back" >&2
    _failures=$((_failures + 1))
    break
  fi
  if ! "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" >/dev/null; then
    echo "FAIL kill $k: the ledger does not load" >&2
    _failures=$((_failures + 1))
    continue
  fi
  total=$(ledger_total)
  limit=$((nodes * 4 * ($(date +%s) - soak_start)))
  ok=1
  closed_now=$(accounted_closed)
  [[ "$closed_now" == "$closed_before" ]] ||
    { echo "FAIL kill $k: credit - used - remaining changed: $closed_before -> $closed_now" >&2; ok=0; }
  ((total >= prev_total)) || { echo "FAIL kill $k: usage went down $prev_total -> $total" >&2; ok=0; }
  ((total <= limit)) || { echo "FAIL kill $k: usage $total > $limit GPU-s possible" >&2; ok=0; }
  ((ok)) || _failures=$((_failures + 1))
  _checks=$((_checks + 1))
  echo "kill $k/$kills ($how): ledger loads, $total GPU-s, conserved"
  prev_total=$total
done

section "drain: no more jobs; compare with slurmctld's job records and sacct"
stop_submitter
scancel -t PENDING 2>/dev/null || true
cluster_wait_idle 300
now=$(date +%s)
# A poll, not `test "$(ledger_saved_at)" -gt ...`: wait_for runs its command again each
# second, but a $(...) in its arguments is expanded once, before the first try (the last
# run's timeout).
wait_for 120 "a pass to save the ledger" ledger_saved_after $((now + 1))
total=$(ledger_total)
[[ "$(date +%Y-%m)" == "$month" ]] || echo "note: the month changed during the soak; totals are this month's"
cp "$lc/log/slurmctld.log" "$work/slurmctld.log"
# The reference is slurmctld's own record of each job (MinJobAge keeps them): the budget
# follows slurmctld's view, and a SIGKILL also costs slurmctld what it had not saved yet.
# Its job state is saved at most 5 s (SAVE_MAX_WAIT) after a change, so a job that started
# in those seconds is recovered PENDING ("Registered PENDING" when its node reports it;
# slurmctld kills it and runs it again, or our drain cancels it). The ledger may keep what
# a pass charged for that lost start: at most NNodes x 4 GPU x 10 s per such job.
scontrol show job -o >"$work/jobs"
sacct -a -X -n -P -S "$(date -d "@$soak_start" +%Y-%m-%dT%H:%M:%S)" -o JobID,Account,NNodes,ElapsedRaw,Start,End,State \
  >"$work/sacct"
grep -o 'Registered PENDING JobId=[0-9]*' "$work/slurmctld.log" | sed 's/.*=//' | sort -u >"$work/lost_starts" || true
read -r ctld_total bound over jobs < <(awk -v kills="$work/kills" -v lost="$work/lost_starts" '
  function t(s) { if (s !~ /^[0-9]{4}-/) return 0; gsub(/[-T:]/, " ", s); return mktime(s) }
  BEGIN {
    n = 0; while ((getline line < kills) > 0) { split(line, f, " "); kt[n] = f[1]; st[n] = f[2]; n++ }
    while ((getline line < lost) > 0) lost_start[line] = 1
  }
  {
    delete kv
    for (i = 1; i <= NF; i++) { eq = index($i, "="); if (eq) kv[substr($i, 1, eq - 1)] = substr($i, eq + 1) }
    if (kv["Account"] !~ /^p_s/) next
    jobs++
    start = t(kv["StartTime"]); end = t(kv["EndTime"]); nn = kv["NumNodes"] + 0
    if (kv["JobId"] in lost_start) over += nn * 4 * 10
    if (!start || !end || end <= start || kv["JobState"] == "PENDING") next
    used += nn * 4 * (end - start)
    for (i = 0; i < n; i++) if (end > st[i] && end <= kt[i]) {
      from = start > st[i] ? start : st[i]; b += nn * 4 * (end - from)
    }
  }
  END { printf "%d %d %d %d\n", used, b, over, jobs }' "$work/jobs")
sacct_total=$(awk -F'|' '$2 ~ /^p_s/ { s += $3 * 4 * $4 } END { printf "%d\n", s }' "$work/sacct")
sacct_open=$(awk -F'|' '$2 ~ /^p_s/ && ($6 == "Unknown" || $6 == "")' "$work/sacct" | wc -l)
loss=$((ctld_total - total))
echo "jobs: $jobs; slurmctld's records: $ctld_total GPU-s; ledger: $total GPU-s; lost: $loss GPU-s;" \
  "bound: $bound GPU-s (jobs ended between a save and a kill)"
echo "starts slurmctld lost: $(wc -l <"$work/lost_starts") (jobs $(tr '\n' ' ' <"$work/lost_starts")), allowance $over GPU-s"
echo "sacct: $sacct_total GPU-s ($((sacct_total - total)) more than the ledger); records without an end: $sacct_open"
check "nothing counted twice (ledger <= slurmctld's records + $over for lost starts)" \
  test "$loss" -ge "$((-over))"
check "loss $loss GPU-s within the bound $bound GPU-s (jobs ended between a save and a kill)" \
  test "$loss" -le "$bound"
check "slurmctld restarted after every kill" test "$restart_failures" = 0
cp "$work/sacct" "$work/kills" "$work/jobs" "$work/slurmctld.log" "${SOAK_KEEP:-/tmp}/" 2>/dev/null || true

section "month close: $close_kills kills while slurmctld closes month $FIX_PREV at startup"
ctld_log=$lc/log/slurmctld.log
prev=$((FIX_MONTH - 1))
close_line="p_close: month $prev closed"
fixture_prev_csv "$work/prev.csv"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$work/prev_ledger" \
  --at "$FIX_PREV-15T12:00:00" "$work/prev.csv" >/dev/null

# What a close must leave, independent of the time of day: per project the closed months,
# the usage of every month and, from sbudget, credit, remaining and this month's usage.
close_view() {
  awk '$1 == "project" { print $2, $3, $5 }' "$ledger"
  "$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
    jq -r '.[] | "\(.project) \(.state) \(.month) \(.credit) \(.remaining) \(.used_this_month)"'
}
p_close_closed() {
  awk '$1 == "project" && $2 == "p_close" { sub(/closed=/, "", $3); print $3; exit }' "$ledger"
}
# The ledger saved last month in place, with no .old or .new beside it. slurmctld is down.
put_prev_ledger() {
  rm -f "$ledger.old" "$ledger.new"
  cp "$work/prev_ledger" "$ledger"
}
# Starts slurmctld cleanly and waits for the first pass to save the ledger.
start_and_save() {
  local t
  t=$(date +%s)
  cluster_start_ctld 2>"$work/start.err" || { cat "$work/start.err" >&2; return 1; }
  wait_for 120 "the first pass to save the ledger" ledger_saved_after "$t"
}

kill_ctld
put_prev_ledger
from=$(($(wc -l <"$ctld_log") + 1))
start_and_save
reference=$(close_view)
check "a start without a kill closes month $prev of p_close (log: $close_line)" \
  grep -q "$close_line" <(tail -n +"$from" "$ctld_log")
check "p_close: closed=$((FIX_MONTH - 1)) in the ledger after that start" test "$(p_close_closed)" = $((FIX_MONTH - 1))
echo "reference after a clean close:"
printf '  %s\n' "$reference"
declare -A landed=()
for ((k = 1; k <= close_kills; k++)); do
  kill_ctld
  put_prev_ledger
  from=$(($(wc -l <"$ctld_log") + 1))
  _lc_spawn slurmctld /usr/sbin/slurmctld -D
  if ((k % 3 == 1)); then
    sleep "$((RANDOM % 2)).$((RANDOM % 10))$((RANDOM % 10))"
    how="at random in startup"
  else
    deadline=$((SECONDS + 15))
    until tail -n +"$from" "$ctld_log" | grep -q "$close_line" || ((SECONDS >= deadline)); do
      sleep 0.01
    done
    sleep "0.0$((RANDOM % 5))"
    how="right after the close"
  fi
  kill_ctld || true
  # Where the kill landed: before the close, after it (file not saved yet), after the save.
  if [[ "$(p_close_closed)" != 0 ]]; then
    where="after the save"
  elif tail -n +"$from" "$ctld_log" | grep -q "$close_line"; then
    where="after the close, before the save"
  else
    where="before the close"
  fi
  landed[$where]=$((${landed[$where]:-0} + 1))
  file_closed=$(p_close_closed)
  from=$(($(wc -l <"$ctld_log") + 1))
  if ! start_and_save; then
    restart_failures=$((restart_failures + 1))
    check "close kill $k: slurmctld came back" false
    break
  fi
  if [[ "$file_closed" == 0 ]]; then
    check "close kill $k ($how, $where): the restart closed the month" \
      grep -q "$close_line" <(tail -n +"$from" "$ctld_log")
  else
    check "close kill $k ($how, $where): the restart did not close it again" \
      test -z "$(tail -n +"$from" "$ctld_log" | grep "$close_line")"
  fi
  check "close kill $k: the ledger equals the clean close's" test "$(close_view)" = "$reference"
done
echo "close kills landed: $(for w in "${!landed[@]}"; do printf '%s: %s; ' "$w" "${landed[$w]}"; done)"
check "slurmctld restarted after every close kill" test "$restart_failures" = 0
summary
