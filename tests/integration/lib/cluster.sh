# cluster.sh: a private Slurm 22.05 cluster on this machine (munged, MariaDB, slurmdbd,
# slurmctld and NODES slurmd) for integration tests. Source it, then call cluster_*.
#
#   source tests/integration/lib/cluster.sh
#   trap cluster_stop EXIT; trap 'exit 130' INT; trap 'exit 143' TERM
#   FRESH=1 cluster_start
#   cluster_as alice sbatch -A proj_a --gres=gpu:4 --exclusive --wrap 'sleep 5'
#   cluster_wait_idle 300
#
# Functions (each returns non-zero on failure, after printing why):
#   cluster_start            writes the configs, starts every daemon (stopping leftovers of an
#                            earlier run first) and waits until all nodes are idle
#   cluster_stop             cancels every job, then stops the daemons it started, by PID:
#                            slurmd, slurmctld, slurmdbd, mariadbd, munged. Idempotent and safe
#                            in an EXIT trap (always returns 0; keeps the caller's exit status)
#   cluster_wait_idle [S]    waits ≤ S seconds (default 600) for an empty queue and idle nodes
#   cluster_restart_ctld     rewrites the configs from the knobs, restarts slurmctld (state is
#                            kept) and waits until every node responds; needed for a new
#                            PRIORITY_TYPE or EXTRA_PLUGIN_DIR (PriorityType is read only at start)
#   cluster_stop_ctld        stops slurmctld only (its state kept), e.g. to prepare state files
#   cluster_start_ctld       starts it again and waits until every node responds
#   cluster_reconfigure      rewrites the configs and runs `scontrol reconfigure`
#   cluster_as USER CMD...   runs CMD as USER against this cluster
#   cluster_status           prints sinfo, squeue and the daemons' PIDs
#
# Knobs (environment variables, read by cluster_start, cluster_restart_ctld, cluster_reconfigure):
#   BUDGET_LC=/tmp/budget-lc   everything lives here: etc/ (slurm.conf, gres.conf,
#                              slurmdbd.conf), log/, run/ (PID files), spool/, dev/gpuN
#                              (symlinks to /dev/null), jobs/ (mode 1777, for job output)
#   NODES=4 GPUS=4             nodes gh[1-NODES]: 288 CPUs, 460000 MB, GPUS x gpu:gh200
#   PRIORITY_TYPE=priority/multifactor
#   EXTRA_PLUGIN_DIR=          a directory put first in PluginDir, so a plugin built there wins
#   EXTRA_SLURM_CONF=          lines appended to slurm.conf (a later key overrides an earlier one)
#   EXTRA_SLURM_CONF_FILE=     a file appended to slurm.conf, after EXTRA_SLURM_CONF
#   EXTRA_ETC_FILES=           files (space-separated) copied into etc/ next to slurm.conf,
#                              e.g. a budget.conf that priority/budget reads at init
#   SLURM_USER=root            SlurmUser of slurmctld and slurmdbd (both must be the same for
#                              slurmdbd to take slurmctld's registration): they start as root
#                              and switch to it; StateSaveLocation and slurmdbd.conf are given
#                              to it. Switch users with FRESH=1 (older state is root's)
#   FRESH=1                    start from nothing: wipes etc/, spool/, jobs/, log/ and drops
#                              the accounting database
#   BUDGET_LC_GRACE=30         seconds from SIGTERM to SIGKILL in cluster_stop
#   CTLD_MALLOC_PERTURB=       a byte (1-255) glibc fills slurmctld's freed and malloc'ed (not
#                              calloc'ed) memory with, so that a read of freed or unset memory
#                              shows in what the tests check (not for benchmarks: it costs)
#   CTLD_FAKETIME=             "@YYYY-MM-DD HH:MM:SS": slurmctld alone starts its clock there, in
#                              the local zone, and it runs on from there (libfaketime, package
#                              libfaketime); the other daemons keep the real time. For the
#                              scenarios that need a running slurmctld to cross a date
#   CTLD_VALGRIND=             valgrind's options (--tool=callgrind ...): slurmctld runs under
#                              valgrind, given CTLD_START_TIMEOUT seconds (default 60) to answer
#                              its first ping and every client 60 s an RPC (MessageTimeout);
#                              keep it set until that slurmctld is stopped, as the stop signals
#                              only a process whose comm is valgrind's tool
# cluster_start exports SLURM_CONF=$BUDGET_LC/etc/slurm.conf, so every Slurm command of the
# calling shell talks to this cluster; slurmdbd and slurmd find slurmdbd.conf and gres.conf
# next to it. /etc/slurm is never read or written. MariaDB uses the system datadir (database
# slurm_acct_db, user slurm) and munged the system key and socket (/run/munge).
#
# Daemons are children of the calling shell: never run a bare `wait` while the cluster is up.
# shellcheck shell=bash
set -euo pipefail

_LC_CLUSTER_NAME=testcluster
_LC_CTLD_PORT=6817
_LC_DBD_PORT=6819
_LC_SLURMD_PORT0=17000 # gh1 listens on 17001, gh2 on 17002, ...
_LC_DB=slurm_acct_db
_LC_DB_USER=slurm
_LC_DB_PASS=slurmdbpass

_lc_setup() {
  _LC=${BUDGET_LC:-/tmp/budget-lc}
  _LC_NODES=${NODES:-4}
  _LC_GPUS=${GPUS:-4}
  _LC_GRACE=${BUDGET_LC_GRACE:-30}
  _LC_SLURM_USER=${SLURM_USER:-root}
}

_lc_say() {
  printf '[cluster] %s\n' "$*" >&2
}

# Microseconds since the epoch.
_lc_usec() {
  local t=${EPOCHREALTIME}
  echo "${t/./}"
}

# Seconds since a _lc_usec value, as "1.23".
_lc_since() {
  local us=$(($(_lc_usec) - $1))
  printf '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000))
}

# slurmctld's comm: valgrind's tool (callgrind-amd64-linux, cut to 15 characters) under
# CTLD_VALGRIND.
_lc_ctld_comm() {
  local tool
  if [[ -z "${CTLD_VALGRIND:-}" ]]; then
    echo slurmctld
    return
  fi
  tool=$(sed -n 's/.*--tool=\([a-z]*\).*/\1/p' <<<"$CTLD_VALGRIND")
  printf '%.15s\n' "${tool:-memcheck}-amd64-linux"
}

# The comm (ps -o comm=) a daemon's process must have before we signal it.
_lc_comm() {
  case "$1" in
    slurmd-*) echo slurmd ;;
    slurmctld) _lc_ctld_comm ;;
    *) echo "$1" ;;
  esac
}

# Prints the PID recorded for a daemon; fails when there is no well-formed PID file.
_lc_pid() {
  local f=$_LC/run/$1.pid pid
  [[ -f "$f" ]] || return 1
  pid=$(<"$f")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  echo "$pid"
}

# True when PID exists and is not a zombie (kill -0 succeeds on zombies, and PID 1 here
# reaps orphans late).
_lc_alive() {
  local stat
  stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ -n "$stat" && "$stat" != Z* ]]
}

# True when the daemon's recorded PID is alive and still runs the expected program.
_lc_running() {
  local pid comm
  pid=$(_lc_pid "$1") || return 1
  _lc_alive "$pid" || return 1
  comm=$(ps -o comm= -p "$pid" 2>/dev/null) || return 1
  [[ "$comm" == "$(_lc_comm "$1")" ]]
}

# Names of the daemons with a PID file, slurmd first, in stop order.
_lc_recorded() {
  local f name
  for f in "$_LC"/run/slurmd-*.pid; do
    [[ -f "$f" ]] || continue
    name=${f##*/}
    echo "${name%.pid}"
  done
  for name in slurmctld slurmdbd mariadbd munged; do
    [[ -f "$_LC/run/$name.pid" ]] && echo "$name"
  done
  return 0
}

_lc_tail() {
  local f
  for f in "$_LC/log/$1.log" "$_LC/log/$1.out"; do
    if [[ -s "$f" ]]; then
      echo "--- last lines of $f" >&2
      tail -n 15 "$f" >&2
    fi
  done
  return 0
}

# Starts a daemon in the background, in its own session, and records its PID. setsid and
# setpriv exec (setsid forks only for a process group leader, hence set +m), so $! is the
# daemon itself. Returns once the PID runs the daemon's program (until the exec, ps shows
# bash or setsid, and cluster_stop would refuse to signal it).
_lc_spawn() {
  local name=$1 monitor=0 pid i comm
  shift
  [[ $- == *m* ]] && monitor=1
  ((monitor)) && set +m
  setsid "$@" </dev/null >>"$_LC/log/$name.out" 2>&1 &
  pid=$!
  ((monitor)) && set -m
  echo "$pid" >"$_LC/run/$name.pid"
  for ((i = 0; i < 200; i++)); do
    comm=$(ps -o comm= -p "$pid" 2>/dev/null) || return 0 # exited: the caller's probe reports it
    [[ "$comm" == "$(_lc_comm "$name")" ]] && return 0
    sleep 0.01
  done
  _lc_say "$name (PID $pid) still runs '$comm' after 2 s"
  return 0
}

# Polls CMD every 0.1 s until it succeeds. Fails after TIMEOUT seconds, or at once when DAEMON
# (may be empty) has exited, printing the end of its log.
_lc_wait_for() {
  local timeout=$1 what=$2 daemon=$3
  shift 3
  local deadline=$(($(_lc_usec) + timeout * 1000000))
  until "$@" >/dev/null 2>&1; do
    if [[ -n "$daemon" ]] && ! _lc_alive "$(_lc_pid "$daemon" || echo 0)"; then
      _lc_say "$daemon exited while waiting for $what"
      _lc_tail "$daemon"
      return 1
    fi
    if (($(_lc_usec) > deadline)); then
      _lc_say "timed out after ${timeout} s waiting for $what"
      [[ -z "$daemon" ]] || _lc_tail "$daemon"
      return 1
    fi
    sleep 0.1
  done
}

# SIGTERM the named daemons together, wait until they are gone, SIGKILL what remains after
# the grace period. Only a PID whose program matches is signalled; stale PID files are removed.
_lc_stop_daemons() {
  local name pid comm
  local -a pids=() names=()
  for name in "$@"; do
    pid=$(_lc_pid "$name") || {
      rm -f "$_LC/run/$name.pid"
      continue
    }
    if _lc_alive "$pid"; then
      comm=$(ps -o comm= -p "$pid" 2>/dev/null) || comm=""
      if [[ "$comm" == "$(_lc_comm "$name")" ]]; then
        kill -TERM "$pid" 2>/dev/null || true
        pids+=("$pid")
        names+=("$name")
        continue
      fi
      _lc_say "not stopping PID $pid from $name.pid: it runs '$comm', not $(_lc_comm "$name")"
    fi
    rm -f "$_LC/run/$name.pid"
  done
  ((${#pids[@]} > 0)) || return 0

  local deadline=$(($(_lc_usec) + _LC_GRACE * 1000000)) i left killed=0
  while :; do
    left=0
    for pid in "${pids[@]}"; do
      _lc_alive "$pid" && left=1
    done
    ((left)) || break
    if (($(_lc_usec) > deadline)); then
      if ((killed)); then
        _lc_say "still alive 5 s after SIGKILL (uninterruptible?): ${names[*]}"
        break
      fi
      for i in "${!pids[@]}"; do
        if _lc_alive "${pids[$i]}"; then
          _lc_say "${names[$i]} (PID ${pids[$i]}) ignored SIGTERM for ${_LC_GRACE} s: SIGKILL"
          kill -KILL "${pids[$i]}" 2>/dev/null || true
        fi
      done
      killed=1
      deadline=$(($(_lc_usec) + 5000000))
    fi
    sleep 0.1
  done
  for i in "${!pids[@]}"; do
    # Reap our own children now; for another shell's orphans this just fails.
    wait "${pids[$i]}" 2>/dev/null || true
    rm -f "$_LC/run/${names[$i]}.pid"
  done
  return 0
}

# Fails, naming the holder, when a port the cluster needs is already taken.
_lc_check_ports() {
  local port busy=0 n
  local -a ports=("$_LC_CTLD_PORT" "$_LC_DBD_PORT")
  for ((n = 1; n <= _LC_NODES; n++)); do
    ports+=($((_LC_SLURMD_PORT0 + n)))
  done
  for port in "${ports[@]}"; do
    if [[ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]]; then
      _lc_say "port $port is already in use: $(ss -Hltnp "sport = :$port" | head -n 1)"
      busy=1
    fi
  done
  ((!busy))
}

_lc_stock_plugin_dir() {
  local d
  for d in /usr/lib/*/slurm-wlm; do
    if [[ -f "$d/libslurmfull.so" ]]; then
      echo "$d"
      return 0
    fi
  done
  _lc_say "no Slurm plugin directory (/usr/lib/*/slurm-wlm/libslurmfull.so): run scripts/install-deps.sh"
  return 1
}

# Writes etc/{slurm,gres,slurmdbd}.conf from the knobs. Sets _LC_CONF_CHANGED=1 when
# slurm.conf or gres.conf differ from what was there.
_lc_write_configs() {
  local etc=$_LC/etc stock plugin_dir before after
  stock=$(_lc_stock_plugin_dir) || return 1
  plugin_dir=$stock
  if [[ -n "${EXTRA_PLUGIN_DIR:-}" ]]; then
    # Every PluginDir entry must exist, or every daemon and client refuses slurm.conf.
    if [[ ! -d "$EXTRA_PLUGIN_DIR" ]]; then
      _lc_say "EXTRA_PLUGIN_DIR=$EXTRA_PLUGIN_DIR is not a directory"
      return 1
    fi
    plugin_dir="$(cd "$EXTRA_PLUGIN_DIR" && pwd):$stock"
  fi
  if [[ -n "${EXTRA_SLURM_CONF_FILE:-}" && ! -r "$EXTRA_SLURM_CONF_FILE" ]]; then
    _lc_say "EXTRA_SLURM_CONF_FILE=$EXTRA_SLURM_CONF_FILE is not readable"
    return 1
  fi
  local file
  for file in ${EXTRA_ETC_FILES:-}; do
    if [[ ! -r "$file" ]]; then
      _lc_say "EXTRA_ETC_FILES: $file is not readable"
      return 1
    fi
    cp "$file" "$etc/"
  done
  if ! [[ "$_LC_NODES" =~ ^[1-9][0-9]*$ && "$_LC_GPUS" =~ ^[0-9]+$ ]]; then
    _lc_say "NODES must be >= 1 and GPUS >= 0 (got NODES=$_LC_NODES GPUS=$_LC_GPUS)"
    return 1
  fi
  before=$(cat "$etc/slurm.conf" "$etc/gres.conf" 2>/dev/null || true)

  local nodes="gh[1-$_LC_NODES]" gres="" tres="" ports
  ports="[$((_LC_SLURMD_PORT0 + 1))-$((_LC_SLURMD_PORT0 + _LC_NODES))]"
  if ((_LC_GPUS > 0)); then
    gres=" Gres=gpu:gh200:$_LC_GPUS"
    tres=$'\nAccountingStorageTRES=gres/gpu,gres/gpu:gh200'
  fi
  cat >"$etc/slurm.conf.new" <<EOF
# Generated by tests/integration/lib/cluster.sh: do not edit (rewritten on every start).
ClusterName=$_LC_CLUSTER_NAME
SlurmctldHost=localhost
SlurmUser=$_LC_SLURM_USER
SlurmctldPort=$_LC_CTLD_PORT
SlurmdPort=$((_LC_SLURMD_PORT0 + 1))
AuthType=auth/munge
CredType=cred/munge
PluginDir=$plugin_dir
StateSaveLocation=$_LC/spool/ctld
SlurmdSpoolDir=$_LC/spool/d/%n
SlurmctldPidFile=$_LC/run/slurm/slurmctld.pid
SlurmdPidFile=$_LC/run/slurm/slurmd-%n.pid
SlurmctldLogFile=$_LC/log/slurmctld.log
SlurmdLogFile=$_LC/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$_LC_DBD_PORT${tres}
AccountingStorageEnforce=associations,limits,qos
JobCompType=jobcomp/none
PriorityType=${PRIORITY_TYPE:-priority/multifactor}
PriorityDecayHalfLife=7-0
PriorityCalcPeriod=1
PriorityMaxAge=30-0
PriorityUsageResetPeriod=NONE
PriorityWeightQOS=100000000
PriorityWeightFairshare=10000000
PriorityWeightAge=2000000
PriorityWeightPartition=1000
PriorityWeightJobSize=0
PriorityWeightAssoc=0
PriorityWeightTRES=GRES/gpu=1000
NodeName=$nodes NodeHostname=localhost Port=$ports CPUs=288 Boards=1 SocketsPerBoard=4 CoresPerSocket=72 ThreadsPerCore=1 RealMemory=460000${gres} State=UNKNOWN
PartitionName=normal Nodes=$nodes Default=YES MaxTime=INFINITE PriorityTier=10 State=UP
PartitionName=debug Nodes=$nodes MaxTime=INFINITE PriorityTier=10 State=UP
PartitionName=low Nodes=$nodes MaxTime=INFINITE PriorityTier=1 PreemptMode=REQUEUE GraceTime=120 State=UP
EOF
  {
    if [[ -n "${CTLD_VALGRIND:-}" ]]; then
      # Under valgrind slurmctld answers some 50 times slower: a reconfigure with the
      # benchmark's 20,000 jobs under callgrind's cache simulation outlasts the default 10 s.
      echo "MessageTimeout=60"
    fi
    if [[ -n "${EXTRA_SLURM_CONF:-}" ]]; then
      echo "# EXTRA_SLURM_CONF"
      printf '%s\n' "$EXTRA_SLURM_CONF"
    fi
    if [[ -n "${EXTRA_SLURM_CONF_FILE:-}" ]]; then
      echo "# EXTRA_SLURM_CONF_FILE=$EXTRA_SLURM_CONF_FILE"
      cat "$EXTRA_SLURM_CONF_FILE"
    fi
  } >>"$etc/slurm.conf.new"
  mv "$etc/slurm.conf.new" "$etc/slurm.conf"
  chmod 0644 "$etc/slurm.conf"

  {
    echo "# Generated by tests/integration/lib/cluster.sh."
    echo "AutoDetect=off"
    # gres/gpu needs File=, and it must be a device: symlinks to /dev/null are.
    if ((_LC_GPUS > 0)); then
      echo "NodeName=$nodes Name=gpu Type=gh200 File=$_LC/dev/gpu[0-$((_LC_GPUS - 1))]"
    fi
  } >"$etc/gres.conf"

  # slurmdbd reads slurmdbd.conf from the directory of $SLURM_CONF; it insists on mode 0600
  # and ownership by SlurmUser.
  (
    umask 077
    cat >"$etc/slurmdbd.conf" <<EOF
# Generated by tests/integration/lib/cluster.sh.
AuthType=auth/munge
DbdHost=localhost
DbdPort=$_LC_DBD_PORT
SlurmUser=$_LC_SLURM_USER
DebugLevel=info
LogFile=$_LC/log/slurmdbd.log
PidFile=$_LC/run/slurm/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageLoc=$_LC_DB
StorageUser=$_LC_DB_USER
StoragePass=$_LC_DB_PASS
EOF
  )
  chmod 0600 "$etc/slurmdbd.conf"
  chown "$_LC_SLURM_USER:" "$etc/slurmdbd.conf"

  after=$(cat "$etc/slurm.conf" "$etc/gres.conf")
  _LC_CONF_CHANGED=0
  [[ "$before" == "$after" ]] || _LC_CONF_CHANGED=1
  return 0
}

_lc_make_dirs() {
  local n g
  install -d -m 0755 "$_LC" "$_LC/etc" "$_LC/log" "$_LC/run" "$_LC/run/slurm" \
    "$_LC/spool" "$_LC/spool/d" "$_LC/dev"
  # slurmctld writes its state there as SlurmUser, and so does priority/budget its ledger.
  install -d -o "$_LC_SLURM_USER" -g "$(id -gn "$_LC_SLURM_USER")" -m 0755 "$_LC/spool/ctld"
  install -d -m 1777 "$_LC/jobs"
  for ((n = 1; n <= _LC_NODES; n++)); do
    # slurmd wants its spool dir before it opens its domain socket there.
    install -d -m 0755 "$_LC/spool/d/gh$n"
  done
  for ((g = 0; g < _LC_GPUS; g++)); do
    ln -sfn /dev/null "$_LC/dev/gpu$g"
  done
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o mysql -g mysql -m 0755 /run/mysqld
}

_lc_munge_ok() {
  munge -n | unmunge
}

_lc_start_munged() {
  local t
  t=$(_lc_usec)
  if _lc_munge_ok >/dev/null 2>&1; then
    _lc_say "munged: using the one already running (not ours: not stopped by cluster_stop)"
    return 0
  fi
  # The log file must belong to munge; munged checks its directory is not world-writable.
  install -o munge -g munge -m 0640 /dev/null "$_LC/log/munged.log"
  _lc_spawn munged setpriv --reuid=munge --regid=munge --init-groups \
    /usr/sbin/munged -F --log-file="$_LC/log/munged.log"
  _lc_wait_for 20 "munged" munged _lc_munge_ok || return 1
  _lc_say "munged up ($(_lc_since "$t") s)"
}

_lc_start_mariadbd() {
  local t
  t=$(_lc_usec)
  if mariadb-admin ping >/dev/null 2>&1; then
    _lc_say "mariadbd: using the one already running (not ours: not stopped by cluster_stop)"
  else
    # The settings slurmdbd recommends (it warns otherwise).
    _lc_spawn mariadbd /usr/sbin/mariadbd --user=mysql --innodb-buffer-pool-size=512M \
      --innodb-lock-wait-timeout=900 --innodb-log-file-size=64M
    _lc_wait_for 60 "mariadbd" mariadbd mariadb-admin ping || return 1
  fi
  local sql="CREATE USER IF NOT EXISTS '$_LC_DB_USER'@'localhost' IDENTIFIED BY '$_LC_DB_PASS';
GRANT ALL ON $_LC_DB.* TO '$_LC_DB_USER'@'localhost';"
  if [[ "${FRESH:-0}" == 1 ]]; then
    sql="DROP DATABASE IF EXISTS $_LC_DB; $sql"
  fi
  mariadb -e "$sql" || {
    _lc_say "could not prepare the accounting database"
    return 1
  }
  _lc_say "mariadbd up ($(_lc_since "$t") s)"
}

_lc_dbd_ok() {
  sacctmgr -n show cluster
}

_lc_start_slurmdbd() {
  local t
  t=$(_lc_usec)
  _lc_spawn slurmdbd /usr/sbin/slurmdbd -D
  _lc_wait_for 60 "slurmdbd" slurmdbd _lc_dbd_ok || return 1
  # The cluster must exist in the database before slurmctld first registers.
  if ! sacctmgr -n -P show cluster format=cluster | grep -qx "$_LC_CLUSTER_NAME"; then
    sacctmgr -i add cluster "$_LC_CLUSTER_NAME" >/dev/null || {
      _lc_say "sacctmgr add cluster $_LC_CLUSTER_NAME failed"
      return 1
    }
  fi
  _lc_say "slurmdbd up ($(_lc_since "$t") s)"
}

_lc_ctld_ok() {
  scontrol ping | grep -q 'is UP'
}

_lc_faketime_lib() {
  local lib
  for lib in /usr/lib/*/faketime/libfaketimeMT.so.1; do
    if [[ -f "$lib" ]]; then
      echo "$lib"
      return 0
    fi
  done
  _lc_say "CTLD_FAKETIME needs libfaketime (run scripts/install-deps.sh)"
  return 1
}

_lc_start_slurmctld() {
  local t prefix=() wrapper=()
  t=$(_lc_usec)
  [[ -z "${CTLD_MALLOC_PERTURB:-}" ]] ||
    prefix=(env GLIBC_TUNABLES="glibc.malloc.perturb=$CTLD_MALLOC_PERTURB")
  if [[ -n "${CTLD_FAKETIME:-}" ]]; then
    local faketime_lib
    faketime_lib=$(_lc_faketime_lib) || return 1
    # DONT_RESET: slurmscriptd, forked at start, keeps slurmctld's clock instead of restarting it.
    prefix+=(env LD_PRELOAD="$faketime_lib" FAKETIME="$CTLD_FAKETIME" FAKETIME_DONT_RESET=1)
  fi
  # shellcheck disable=SC2206 # valgrind's options, one word each
  [[ -z "${CTLD_VALGRIND:-}" ]] || wrapper=(valgrind $CTLD_VALGRIND)
  _lc_spawn slurmctld "${prefix[@]}" "${wrapper[@]}" /usr/sbin/slurmctld -D
  _lc_wait_for "${CTLD_START_TIMEOUT:-60}" "slurmctld" slurmctld _lc_ctld_ok || return 1
  _lc_say "slurmctld up ($(_lc_since "$t") s)"
}

_lc_start_slurmds() {
  local t n
  t=$(_lc_usec)
  for ((n = 1; n <= _LC_NODES; n++)); do
    _lc_spawn "slurmd-gh$n" /usr/sbin/slurmd -D -N "gh$n"
  done
  _lc_wait_nodes idle 60 || return 1
  _lc_say "$_LC_NODES slurmd up, nodes idle ($(_lc_since "$t") s)"
}

# Node states, one "name state" line per node (sinfo repeats a node per partition).
_lc_node_states() {
  sinfo -h -N -o '%N %t' | sort -u
}

# Waits until every node is idle (WANT=idle) or merely responding (WANT=up). Resumes nodes
# that a saved state or a bad registration left drained or down (that drain is persistent).
_lc_wait_nodes() {
  local want=$1 timeout=$2 states node state good n
  local deadline=$(($(_lc_usec) + timeout * 1000000))
  local -A resumed=()
  while :; do
    states=$(_lc_node_states 2>/dev/null) || states=""
    good=0
    while read -r node state; do
      [[ -n "$node" ]] || continue
      case "$want:$state" in
        idle:idle | up:idle | up:alloc | up:mix | up:comp | up:resv | up:plnd) good=$((good + 1)) ;;
      esac
      # "*" means not responding yet: only a responding node can be resumed.
      if [[ "$state" =~ ^(drain|drng|down|inval|fail) && -z "${resumed[$node]:-}" ]]; then
        _lc_say "resuming $node (state $state)"
        scontrol update nodename="$node" state=resume >/dev/null 2>&1 || true
        resumed[$node]=1
      fi
    done <<<"$states"
    ((good == _LC_NODES)) && return 0
    for ((n = 1; n <= _LC_NODES; n++)); do
      if ! _lc_running "slurmd-gh$n"; then
        _lc_say "slurmd-gh$n is not running"
        _lc_tail "slurmd-gh$n"
        return 1
      fi
    done
    if (($(_lc_usec) > deadline)); then
      _lc_say "timed out after $timeout s waiting for the nodes to be $want:"
      printf '%s\n' "$states" >&2
      return 1
    fi
    sleep 0.2
  done
}

cluster_start() {
  _lc_setup
  local t0 leftover
  t0=$(_lc_usec)
  leftover=$(_lc_recorded)
  if [[ -n "$leftover" ]]; then
    _lc_say "stopping what an earlier run left: $(echo "$leftover" | tr '\n' ' ')"
    cluster_stop
  fi
  _lc_check_ports || return 1
  if [[ "${FRESH:-0}" == 1 ]]; then
    rm -rf "${_LC:?}/etc" "${_LC:?}/log" "${_LC:?}/run" "${_LC:?}/spool" "${_LC:?}/jobs" "${_LC:?}/dev"
  fi
  _lc_make_dirs
  _lc_write_configs || return 1
  export SLURM_CONF=$_LC/etc/slurm.conf

  if ! { _lc_start_munged && _lc_start_mariadbd && _lc_start_slurmdbd &&
    _lc_start_slurmctld && _lc_start_slurmds; }; then
    _lc_say "cluster_start failed (logs in $_LC/log); stopping what was started"
    cluster_stop
    return 1
  fi
  _lc_say "cluster up in $(_lc_since "$t0") s: $_LC_NODES nodes, ${PRIORITY_TYPE:-priority/multifactor}, SLURM_CONF=$SLURM_CONF"
}

# Cancels every job so that no slurmstepd or job process (they are not children of slurmd)
# outlives the daemons. The jobs with processes go first: a scancel of 20,000 job ids takes
# tens of seconds, and if its timeout cuts it short, it must not be them that it missed. Then
# the pending ones, and then, until none is left (<= 60 s), the jobs with processes again,
# with those the scheduler started on the nodes the first cancel freed (all the pending ones
# that are left, when their cancel was cut short). What is left after that, the stop kills
# (_lc_kill_leftover_steps).
_lc_cancel_all_jobs() {
  _lc_cancel_jobs_in "$_LC_STARTED_STATES" 20 || return 0
  _lc_cancel_jobs_in pending 60 || true
  _lc_wait_for 60 "the cancelled jobs to end" "" _lc_none_started_left || true
}

# The job states in which a job has, or is about to have, processes on a node; and with them,
# those in which it still has them while they end.
_LC_STARTED_STATES=running,suspended,configuring,stopped
_LC_ACTIVE_STATES=$_LC_STARTED_STATES,completing

_lc_none_started_left() { # cancels the started jobs left; true when no job has processes
  _lc_cancel_jobs_in "$_LC_STARTED_STATES" 20 && _lc_no_job_in "$_LC_ACTIVE_STATES"
}

_lc_cancel_jobs_in() { # STATES TIMEOUT: scancel the jobs in STATES; fails when squeue fails
  local ids rc=0
  ids=$(timeout 20 squeue -h -t "$1" -o %i 2>/dev/null) || return 1
  [[ -n "$ids" ]] || return 0
  # shellcheck disable=SC2086 # one argument per job id
  timeout "$2" scancel $ids >/dev/null 2>&1 || rc=$?
  if ((rc == 124)); then
    _lc_say "the cancel of $(wc -l <<<"$ids") jobs ($1) was cut short after $2 s"
  fi
  return 0
}

_lc_no_job_in() { # [STATES]: no job in STATES (without, in squeue's default: the unfinished)
  local ids
  ids=$(squeue -h ${1:+-t "$1"} -o %i) || return 1
  [[ -z "$ids" ]]
}

_lc_queue_empty() { _lc_no_job_in; }

# The last resort when a cancel did not reach every job: SIGKILLs the slurmstepds of this cluster
# (SLURM_CONF in their environment is its own) that outlived the slurmds, and every process
# under them, and says which.
_lc_kill_leftover_steps() {
  local pid environment
  local -a doomed=()
  for pid in $(pgrep -x slurmstepd); do
    environment=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ") || continue
    [[ $'\n'"$environment"$'\n' == *$'\n'"SLURM_CONF=$_LC/etc/slurm.conf"$'\n'* ]] || continue
    mapfile -t -O "${#doomed[@]}" doomed < <(_lc_process_tree "$pid")
  done
  ((${#doomed[@]} > 0)) || return 0
  _lc_say "SIGKILL to what the jobs left running:"
  ps -o pid=,args= -p "${doomed[*]}" >&2 || true
  kill -KILL "${doomed[@]}" 2>/dev/null || true
}

_lc_process_tree() { # PID: PID and its descendants, one a line
  local child
  echo "$1"
  for child in $(ps -o pid= --ppid "$1"); do
    _lc_process_tree "$child"
  done
}

cluster_stop() {
  _lc_setup
  local -a daemons slurmds=()
  mapfile -t daemons < <(_lc_recorded)
  ((${#daemons[@]} > 0)) || return 0
  local t0 name
  t0=$(_lc_usec)
  if _lc_running slurmctld; then
    SLURM_CONF=$_LC/etc/slurm.conf _lc_cancel_all_jobs || true
  fi
  for name in "${daemons[@]}"; do
    [[ "$name" == slurmd-* ]] && slurmds+=("$name")
  done
  ((${#slurmds[@]} == 0)) || _lc_stop_daemons "${slurmds[@]}" || true
  _lc_kill_leftover_steps
  for name in slurmctld slurmdbd mariadbd munged; do
    _lc_stop_daemons "$name" || true
  done
  _lc_say "cluster stopped in $(_lc_since "$t0") s"
  return 0
}

cluster_wait_idle() {
  _lc_setup
  local timeout=${1:-600}
  export SLURM_CONF=$_LC/etc/slurm.conf
  _lc_wait_for "$timeout" "an empty queue" slurmctld _lc_queue_empty || {
    squeue >&2 || true
    return 1
  }
  _lc_wait_nodes idle "$timeout"
}

cluster_restart_ctld() {
  cluster_stop_ctld
  cluster_start_ctld
}

# Stops slurmctld only (state kept): to change its state files while it is down.
cluster_stop_ctld() {
  _lc_setup
  export SLURM_CONF=$_LC/etc/slurm.conf
  _lc_stop_daemons slurmctld
}

# Starts slurmctld again from the knobs' configs and waits until every node responds.
cluster_start_ctld() {
  _lc_setup
  local t0
  t0=$(_lc_usec)
  export SLURM_CONF=$_LC/etc/slurm.conf
  _lc_write_configs || return 1
  _lc_start_slurmctld || return 1
  if ((_LC_CONF_CHANGED)); then
    # The slurmds read the new slurm.conf too (PluginDir, partitions...).
    scontrol reconfigure || return 1
  fi
  _lc_wait_nodes up 60 || return 1
  _lc_say "slurmctld started in $(_lc_since "$t0") s"
}

cluster_reconfigure() {
  _lc_setup
  export SLURM_CONF=$_LC/etc/slurm.conf
  _lc_write_configs || return 1
  scontrol reconfigure || return 1
  _lc_wait_for 30 "slurmctld" slurmctld _lc_ctld_ok || return 1
  _lc_wait_nodes up 60
}

cluster_as() {
  _lc_setup
  local user=$1
  shift
  runuser -u "$user" -- env SLURM_CONF="$_LC/etc/slurm.conf" "$@"
}

cluster_status() {
  _lc_setup
  local name pid
  export SLURM_CONF=$_LC/etc/slurm.conf
  while read -r name; do
    [[ -n "$name" ]] || continue
    pid=$(_lc_pid "$name") || pid="?"
    if _lc_running "$name"; then
      echo "$name: running (PID $pid)"
    else
      echo "$name: not running (stale PID file: $pid)"
    fi
  done < <(_lc_recorded)
  sinfo -N 2>&1 || true
  squeue 2>&1 || true
}
