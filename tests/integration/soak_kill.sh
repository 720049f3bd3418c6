#!/usr/bin/env bash
# soak_kill.sh BUILD_DIR [--kills N] [--min S] [--max S]: SIGKILLs slurmctld (priority/budget)
# N times (default 50) at random moments while jobs keep starting and ending, and checks
# that the ledger loses nothing it promised to keep.
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
# Run it alone: flock /tmp/budget-cluster.lock tests/integration/soak_kill.sh build/ci
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: soak_kill.sh BUILD_DIR [--kills N] [--min S] [--max S]}" && pwd)
shift
kills=50
min_gap=4
max_gap=20
while (($#)); do
  case "$1" in
    --kills) kills=$2; shift 2 ;;
    --min) min_gap=$2; shift 2 ;;
    --max) max_gap=$2; shift 2 ;;
    *) echo "soak_kill.sh: unknown option $1" >&2; exit 2 ;;
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
work=$(mktemp -d /tmp/budget-soak.XXXXXX)
chmod 755 "$work"
ledger=$lc/spool/ctld/budget_ledger
submitter=

stop_submitter() {
  if [[ -n "$submitter" ]]; then
    kill "$submitter" 2>/dev/null || true
    wait "$submitter" 2>/dev/null || true
    submitter=
  fi
}
# On failure, the controller's last words explain more than the check that failed.
trap '((_failures == 0)) || tail -n 40 "$lc/log/slurmctld.log" >&2 || true
  stop_submitter; cluster_stop; rm -rf "$work"' EXIT
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

saved_at() {
  awk '$1 == "saved-at" { print $2; exit }' "$ledger" 2>/dev/null || true
}

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
    before=$(saved_at)
    deadline=$((SECONDS + 90))
    while [[ "$(saved_at)" == "$before" ]] && ((SECONDS < deadline)); do sleep 0.05; done
    sleep "0.$((RANDOM % 5))"
    how="after a pass"
  else
    sleep $((min_gap + RANDOM % (max_gap - min_gap + 1)))
    how="at random"
  fi
  kill_ctld || { echo "FAIL kill $k: no slurmctld to kill" >&2; _failures=$((_failures + 1)); break; }
  echo "$(date +%s) $(saved_at)" >>"$work/kills"
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

section "drain: no more jobs; compare with sacct"
stop_submitter
scancel -t PENDING 2>/dev/null || true
cluster_wait_idle 300
now=$(date +%s)
wait_for 120 "a pass to save the ledger" test "$(saved_at)" -gt "$now"
total=$(ledger_total)
[[ "$(date +%Y-%m)" == "$month" ]] || echo "note: the month changed during the soak; totals are this month's"
sacct -a -X -n -P -S "$(date -d "@$soak_start" +%Y-%m-%dT%H:%M:%S)" -o JobID,Account,NNodes,ElapsedRaw,Start,End,State \
  >"$work/sacct"
read -r sacct_total unknown bound < <(awk -F'|' -v kills="$work/kills" '
  BEGIN { n = 0; while ((getline line < kills) > 0) { split(line, f, " "); kt[n] = f[1]; st[n] = f[2]; n++ } }
  $2 !~ /^p_s/ { next }
  {
    used += $3 * 4 * $4
    if ($6 == "Unknown" || $6 == "") { unk++; next }
    cmd = "date -d " $6 " +%s"; cmd | getline end; close(cmd)
    cmd = "date -d " $5 " +%s"; cmd | getline start; close(cmd)
    for (i = 0; i < n; i++) if (end > st[i] && end <= kt[i]) {
      from = start > st[i] ? start : st[i]; b += $3 * 4 * (end - from)
    }
  }
  END { printf "%d %d %d\n", used, unk, b }' "$work/sacct")
jobs=$(awk -F'|' '$2 ~ /^p_s/' "$work/sacct" | wc -l)
loss=$((sacct_total - total))
echo "jobs: $jobs; sacct: $sacct_total GPU-s; ledger: $total GPU-s; lost: $loss GPU-s; bound: $bound GPU-s; sacct without an end: $unknown"
check "nothing counted twice (ledger <= sacct)" test "$loss" -ge 0
check "loss $loss GPU-s within the bound $bound GPU-s (jobs ended between a save and a kill)" \
  test "$loss" -le "$bound"
check "slurmctld restarted after every kill" test "$restart_failures" = 0
cp "$work/sacct" "$work/kills" "${SOAK_KEEP:-/tmp}/" 2>/dev/null || true
summary
