#!/usr/bin/env bash
# backup_controller.sh BUILD_DIR: a backup slurmctld (SlurmctldHost listed twice, one
# StateSaveLocation) takes over priority/budget's ledger while jobs run, and gives it back.
#
# The backup runs on this machine as host ctl2 (127.0.0.2): its own UTS and mount namespace
# (unshare) give it that host name, an /etc/hosts that resolves it, its own PID file
# directory (slurmctld SIGTERMs whatever its PidFile names) and a slurm.conf that names the
# primary by this machine's host name instead of "localhost" (slurmctld replaces
# "localhost" with its own host name, which in the backup is ctl2: "Duplicate
# SlurmctldHost records"). CommunicationParameters=
# NoCtldInAddrAny makes each controller listen on its own address, SlurmctldTimeout=6 makes
# the backup take over 6 s after the primary stops answering.
#   1. primary stopped (SIGTERM): the backup takes over; the ledger it loads is byte for
#      byte the file the primary left (its last save, at shutdown);
#   2. primary started again: it takes control back; the backup saved on handing over and
#      the primary loads that save;
#   3. `scontrol takeover`: the backup takes control again (a plugin init/fini cycle more
#      in the same backup process) and loads the primary's last save;
#   4. primary started again, then SIGKILLed: the backup loads exactly the file the killed
#      primary left (its last periodic save);
#   5. a standby never accrues: the backup loads the ledger only when it takes over;
#   6. no double counting: once the jobs are done the ledger equals slurmctld's records of
#      the jobs (NNodes x 4 x run time) to the GPU-second, less at most what the SIGKILL may
#      lose (jobs that ended between the primary's last save and the kill, as in soak_kill.sh).
# Run it alone: flock /tmp/budget-cluster.lock tests/integration/backup_controller.sh build/ci
# Stops every daemon it started, the backup too, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: backup_controller.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch backup
backup_log=$lc/log/slurmctld-backup.log
primary_log=$lc/log/slurmctld.log
backup_pid=

stop_backup() {
  [[ -n "$backup_pid" ]] || return 0
  if _lc_alive "$backup_pid" && [[ "$(ps -o comm= -p "$backup_pid" 2>/dev/null)" == slurmctld ]]; then
    kill -TERM "$backup_pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 300; i++)); do
      _lc_alive "$backup_pid" || break
      sleep 0.1
    done
    ! _lc_alive "$backup_pid" || kill -KILL "$backup_pid" 2>/dev/null || true
  fi
  wait "$backup_pid" 2>/dev/null || true
  backup_pid=
}
# cluster_stop cancels the jobs only through a primary it started: the backup may be in control.
scenario_cleanup() {
  ! checks_failed || { tail -n 30 "$primary_log"; tail -n 30 "$lc/log/slurmctld-backup.out" "$backup_log"; } >&2 || true
  cp "$primary_log" "$backup_log" "$lc/log/slurmctld-backup.out" "${BACKUP_KEEP:-/tmp}/" 2>/dev/null || true
  SLURM_CONF=$lc/etc/slurm.conf _lc_cancel_all_jobs || true
  stop_backup
}
scenario_traps

projects=(p_s1 p_s2)
fixture_dates
fixture_budget_conf "$work/budget.conf" "${projects[@]}"
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
# MinJobAge: slurmctld keeps every finished job's record for the final comparison.
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
SlurmctldHost=ctl2(127.0.0.2)
SlurmctldTimeout=6
CommunicationParameters=NoCtldInAddrAny
MinJobAge=86400"

section "start: primary (localhost) and backup (ctl2, 127.0.0.2) on one StateSaveLocation"
FRESH=1 cluster_start
for p in "${projects[@]}"; do
  accounts_account "$p"
  accounts_user "u_${p#p_}" "$p"
done
: >"$backup_log"
install -d -m 0755 "$lc/run/backup"
cp /etc/hosts "$work/hosts"
echo "127.0.0.2 ctl2" >>"$work/hosts"
# A copy of etc/ (not a bind mount of slurm.conf alone: cluster.sh replaces that file by a
# rename, which would detach such a mount, and the backup reads slurm.conf at each takeover).
cp -a "$lc/etc" "$work/etc"
sed -i "s/^SlurmctldHost=localhost\$/SlurmctldHost=$(hostname -s)(127.0.0.1)/" "$work/etc/slurm.conf"
grep -q "^SlurmctldHost=$(hostname -s)(127.0.0.1)\$" "$work/etc/slurm.conf" ||
  { echo "FAIL no SlurmctldHost=localhost line in $SLURM_CONF to name the primary" >&2; exit 1; }
set +m
# shellcheck disable=SC2016 # $1.. are the inner shell's arguments
setsid unshare --uts --mount bash -c 'hostname ctl2 && mount --bind "$1" /etc/hosts &&
  mount --bind "$2" "$3" && mount --bind "$4" "$5" && exec /usr/sbin/slurmctld -D -L "$6"' _ \
  "$work/hosts" "$lc/run/backup" "$lc/run/slurm" "$work/etc" "$lc/etc" "$backup_log" \
  </dev/null >>"$lc/log/slurmctld-backup.out" 2>&1 &
backup_pid=$!
backup_up() { scontrol ping 2>/dev/null | grep -q 'backup.* is UP'; }
primary_up() { scontrol ping 2>/dev/null | grep -q 'primary.* is UP'; }
wait_for 30 "the backup to answer pings" backup_up
check "the backup is a slurmctld in standby (PID $backup_pid)" \
  test "$(ps -o comm= -p "$backup_pid")" = slurmctld
scontrol ping
wait_for 90 "the first save of the ledger" test -s "$ledger"

# Jobs that run across the handovers (one node each, 90 to 150 s), and two 2-node jobs
# queued behind them.
for ((i = 0; i < 6; i++)); do
  p=${projects[i % 2]}
  if ((i < 4)); then
    nn=1 secs=$((90 + RANDOM % 61))
  else
    nn=2 secs=$((20 + RANDOM % 21))
  fi
  cluster_as "u_${p#p_}" sbatch -Q -A "$p" -N "$nn" --exclusive -t 5 --chdir="$work" \
    -o /dev/null --wrap "sleep $secs"
done
wait_for 30 "jobs to run" bash -c "[[ -n \$(squeue -h -t R -o %i) ]]"

loads() { grep -c 'priority/budget: ledger .* loaded' "$1" || true; }
loaded_at() { grep 'priority/budget: ledger .* loaded' "$1" | tail -n 1 | sed 's/.*accounted up to //'; }
# Waits until LOG has more than N ledger loads, then for the new controller's first save.
wait_takeover() {
  local log=$1 n=$2 what=$3
  wait_for 60 "$what to load the ledger" bash -c "(( \$(grep -c 'priority/budget: ledger .* loaded' '$log') > $n ))"
  # Its first pass saves at once; the file it loaded was saved earlier (takeover takes
  # SlurmctldTimeout, and a primary that hands over saves its last pass's time).
  wait_for 30 "$what to save the ledger" ledger_saved_after $(($(loaded_at "$log") + 1))
}
primary_pid() { _lc_pid slurmctld; }

section "1. primary stopped (SIGTERM): the backup takes over with the primary's last save"
check "the standby backup has not loaded the ledger" test "$(loads "$backup_log")" = 0
sleep 10
n=$(loads "$backup_log")
cluster_stop_ctld
cp "$ledger" "$work/left1"
echo "the primary left saved-at $(ledger_saved_at "$work/left1")"
wait_takeover "$backup_log" "$n" "the backup"
check "the backup loaded usage accounted up to the primary's last save ($(loaded_at "$backup_log"))" \
  test "$(loaded_at "$backup_log")" = "$(ledger_saved_at "$work/left1")"
check "the file it replaced (.old) is byte for byte the primary's last save" cmp -s "$work/left1" "$ledger.old"
check "jobs kept running under the backup" bash -c "[[ -n \$(squeue -h -t R -o %i) ]]"

section "2. primary started again: it takes control back and loads the backup's save"
sleep 10
n=$(loads "$primary_log")
cluster_start_ctld
wait_takeover "$primary_log" "$n" "the primary"
wait_for 30 "the backup to be in standby again" backup_up
check "the backup handed over: slurmctld's log says so" \
  grep -q 'Control request received\|REQUEST_CONTROL\|backup controller .*\(released\|relinquish\)\|Processing RPC: REQUEST_CONTROL' "$backup_log"
check "the primary loaded usage accounted up to the backup's last save ($(loaded_at "$primary_log"))" \
  test "$(loaded_at "$primary_log")" = "$(ledger_saved_at "$ledger.old")"
check "the backup is the same process in standby" _lc_alive "$backup_pid"

section "3. scontrol takeover: the backup takes control again"
sleep 10
n=$(loads "$backup_log")
scontrol takeover
wait_takeover "$backup_log" "$n" "the backup"
check "the backup loaded usage accounted up to the primary's last save ($(loaded_at "$backup_log"))" \
  test "$(loaded_at "$backup_log")" = "$(ledger_saved_at "$ledger.old")"
check "the backup took over in the same process (PID $backup_pid)" _lc_alive "$backup_pid"
wait_for 30 "the old primary to exit" bash -c "! scontrol ping | grep -q 'primary.* is UP'"
_lc_stop_daemons slurmctld # reaps it and removes its PID file; it has already exited

section "4. primary back, then SIGKILLed: the backup loads exactly the file it left"
n=$(loads "$primary_log")
cluster_start_ctld
wait_takeover "$primary_log" "$n" "the primary"
# Kill between two passes, so that jobs may end between its last save and the kill.
sleep $((10 + RANDOM % 30))
n=$(loads "$backup_log")
pid=$(primary_pid)
[[ "$(ps -o comm= -p "$pid")" == slurmctld ]] && kill -KILL "$pid"
killed_at=$(date +%s)
while _lc_alive "$pid"; do sleep 0.05; done
wait "$pid" 2>/dev/null || true
rm -f "$lc/run/slurmctld.pid"
cp "$ledger" "$work/left4"
kill_saved=$(ledger_saved_at "$work/left4")
echo "killed at $killed_at; the primary's last save: $kill_saved"
wait_takeover "$backup_log" "$n" "the backup"
check "the backup loaded usage accounted up to the killed primary's last save" \
  test "$(loaded_at "$backup_log")" = "$kill_saved"
check "the file it replaced (.old) is byte for byte what the killed primary left" \
  cmp -s "$work/left4" "$ledger.old"

section "5. a standby never accrues"
check "the backup loaded the ledger once per takeover (3)" test "$(loads "$backup_log")" = 3
check "the primary loaded it once per start after the first (2)" test "$(loads "$primary_log")" = 2

section "6. no double counting: the ledger against slurmctld's records, once the jobs are done"
# The backup is in control and the primary is gone: cluster_wait_idle would watch the
# primary's PID and give up at once.
wait_for 400 "the jobs to end" _lc_queue_empty
now=$(date +%s)
wait_for 120 "a pass to save the ledger" ledger_saved_after $((now + 1))
total=$("$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --json |
  jq -r '[.[] | select(.project | startswith("p_s")) | .used_this_month] | add * 3600 | round')
scontrol show job -o >"$work/jobs"
read -r want bound njobs < <(awk -v kt="$killed_at" -v st="$kill_saved" '
  function t(s) { if (s !~ /^[0-9]{4}-/) return 0; gsub(/[-T:]/, " ", s); return mktime(s) }
  {
    delete kv
    for (i = 1; i <= NF; i++) { eq = index($i, "="); if (eq) kv[substr($i, 1, eq - 1)] = substr($i, eq + 1) }
    if (kv["Account"] !~ /^p_s/) next
    n++
    start = t(kv["StartTime"]); end = t(kv["EndTime"]); nn = kv["NumNodes"] + 0
    if (!start || !end || end <= start) next
    used += nn * 4 * (end - start)
    if (end > st && end <= kt) b += nn * 4 * (end - (start > st ? start : st))
  }
  END { printf "%d %d %d\n", used, b, n }' "$work/jobs")
loss=$((want - total))
echo "jobs: $njobs; slurmctld's records: $want GPU-s; ledger: $total GPU-s; lost: $loss GPU-s; bound: $bound GPU-s"
check "nothing counted twice across 4 handovers (ledger <= records)" test "$loss" -ge 0
check "loss within the SIGKILL's bound ($loss <= $bound GPU-s)" test "$loss" -le "$bound"
summary
