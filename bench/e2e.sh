#!/usr/bin/env bash
# e2e.sh BUILD_DIR OUT_DIR [--smoke]: priority/budget against priority/multifactor in the real
# local cluster, both on the same queue in the same run (docs/performance.md).
#
# Starts the cluster of tests/integration/lib/cluster.sh (munge, MariaDB, slurmdbd, slurmctld,
# 4 slurmd) and builds the site of bench/lib/e2e_site.sh on it: ACCOUNTS accounts with one
# budgeted project each and past usage in the ledger, the 4 nodes busy, JOBS pending jobs.
# Then, for each plugin in turn, it restarts slurmctld with that
# PriorityType on the same queue and measures:
#   - the priority recalculation pass, from its usage decay to its last job write lock
#     release: multifactor's from the decay thread's pow() call before its _apply_decay to
#     fair_tree_decay's return (uprobes; fair_tree_decay alone is reported too),
#     priority/budget's _calc_pass up to the ledger save (its DebugFlags=Priority log line,
#     which also gives the save); the median over the passes;
#   - the job write lock held by the priority thread in each pass ("decay" or "budget"),
#     from uprobes on slurmctld's lock_slurmctld (return) and unlock_slurmctld (entry), both
#     plugins alike: the total per pass and the longest single hold;
#   - `sprio -l` and `sshare -a -l` wall time (median and fastest of CLIENT_RUNS runs),
#     slurmctld's time answering each (sdiag), and the priority plugin's part of sprio's answer
#     (priority_g_get_priority_factors_list, uprobes: the list it builds under the job read lock),
#     and the sprio process's own CPU time (median of CLIENT_RUNS more runs);
#   - sbatch throughput: SUBMIT_TIMED plain sbatch one after the other (cancelled after, and
#     their records purged before the quiet window), and slurmctld's part of each (uprobes on
#     the RPC threads): the wait for its locks, job_allocate, and within it the priority
#     plugin's priority_g_set and the test of the nodes; how priority/budget ranked them, on
#     the pass's factors or by name (OUT_DIR/e2e-budget-submissions.txt, its passes' counts);
#     and the clients' own CPU per job (the sbatch processes, which run no plugin code, and the
#     shell's subshells that start them; most of a submission's wall time on this machine);
#   - sdiag main and backfill mean cycles over a quiet window of QUIET seconds after
#     `sdiag -r`;
#   - slurmctld's VmRSS at the end, by mapping (OUT_DIR/e2e-PLUGIN-rss.txt), and the bytes its
#     malloc holds in use then (malloc_stats through gdb; n/a without gdb);
#   - the machine's speed: a yardstick that runs no Slurm code (the CPU time of `gzip -1` of
#     2.6 MB, median of five) before the submissions, the quiet window and the clients, and at
#     the phase's end. The lines of Slurm's own code are also reported over the mean of the two
#     yardsticks either side of their window: this guest has slow spells that take a phase and
#     spare the next.
# Writes OUT_DIR/e2e.json and OUT_DIR/e2e.md (the table, with the ratios budget / multifactor).
#
# Uprobes need root and tracefs (mounted on /sys/kernel/tracing if it is not, and unmounted
# after); without them the multifactor pass and both lock holds are reported as n/a.
# Run it under the cluster lock, as every cluster user on this machine does:
#   flock /tmp/budget-cluster.lock bench/e2e.sh build/bench bench-results
# Knobs (environment): BENCH_ACCOUNTS=500 BENCH_JOBS=20000 BENCH_SUBMIT_TIMED=250
# BENCH_QUIET=240 BENCH_CLIENT_RUNS=10 BENCH_SUBMITTERS=4; --smoke sets 20, 200, 20, 5, 3
# (about two minutes: it checks that everything runs, its numbers mean little).
# BENCH_PROFILE=1 also samples priority/budget's "budget" thread with perf during the first
# BENCH_PROFILE_S=70 seconds of its quiet window (one or two of its passes; the samples are
# taken only while the thread runs) and writes OUT_DIR/e2e-budget-profile.txt (self time by
# symbol, with the call graph).
# BENCH_NICE=0 submits every job with nice 0 (the workload of runs 1 to 5).
# BENCH_PROFILE_CTLD=1 samples all of slurmctld (every thread, 499 Hz) over each plugin's quiet
# window and writes OUT_DIR/e2e-{multifactor,budget}-ctld-profile.txt (self time by thread name
# and symbol): where the scheduler cycles spend their time under each plugin.
# BENCH_PROFILE_SUBMIT=1 samples slurmctld (20 kHz) during the timed submissions and writes
# OUT_DIR/e2e-{multifactor,budget}-submit-profile.txt: self time by library and symbol on the RPC
# threads, where a submission's time goes under each plugin.
# BENCH_ORDER="budget multifactor" runs the plugins in that order (default: multifactor first),
# to tell a difference between the plugins from one between the first and the second phase.
# Run second, multifactor starts without the usage priority/budget published into Slurm's
# association records (the assoc_usage state file is removed before it starts).
# BENCH_ROUNDS=N measures both plugins N times in one run, on the one site, in the order A B,
# then B A, and so on: each round's report in OUT_DIR/round-K/ (e2e.md, e2e.json, the RSS split
# and profiles), and OUT_DIR/e2e-rounds.md the ratios of the rounds side by side with their
# geometric mean (bench/e2e_runs.py). Each round costs two phases (two restarts of slurmctld and
# two quiet windows).
# BENCH_CONF_MULTIFACTOR and BENCH_CONF_BUDGET: a slurm.conf line for that plugin's phase only.
# BENCH_GLIBC_TUNABLES: slurmctld's GLIBC_TUNABLES in every phase of both plugins (say
# glibc.malloc.arena_max=2): the RSS line otherwise reads which of two levels glibc's arenas end
# a phase on (docs/performance-log.md, "Where the two levels of RSS came from"). The job
# layout is matched under them too. Each phase reports what slurmctld's environment held
# (glibc_tunables), and the report names it.
# BENCH_SUBMIT_AT=15: the timed submissions start that many seconds after slurmctld's start (and
# after the plugin's first pass), in every phase alike. Before, they started as soon as the
# nodes responded: 1.7 s after the start when slurm.conf had changed (the other plugin before:
# `scontrol reconfigure` makes the slurmds register at once), 5.7 s when it had not (the same
# plugin before, the first phase of rounds 2 and up), right after the nodes' registration, into
# slurmctld's lock holds of that moment: waits of 18 and 45 ms for the locks at 5.7 and 6.1 s in
# run 46's round 2, none over 1 ms in the phase that started at 1.7 s (docs/performance-log.md).
# Where slurmctld's job records start relative to cache lines follows the length of its
# slurm.conf strings (docs/performance-log.md, "The backfill cycle, phase by phase"), and one of the
# two layouts makes backfill's preemption walk slower whichever the plugin. Unless
# BENCH_CONF_BUDGET is set, the run starts by finding the JobCompLoc line (unused under
# jobcomp/none) whose length puts priority/budget's records where multifactor's fall
# (match_job_layout in bench/lib/e2e_site.sh, a few restarts of slurmctld); runs 15 to 49 took
# BENCH_CONF_BUDGET=JobCompLoc=/tmp/pppppppppppppppp, which did on their machine. Each phase's
# layout (bench/job_layout.py) is in the report, which says when the two differ.
# BENCH_CONF_BUDGET= (empty) runs the plugins on the layouts their PriorityType lines alone give
# (runs 1 to 14).
# Stops every daemon and probe it started, also on failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=../tests/integration/lib/cluster.sh
source "$repo/tests/integration/lib/cluster.sh"
# shellcheck source=../tests/integration/lib/budget_fixture.sh
source "$repo/tests/integration/lib/budget_fixture.sh"
# shellcheck source=lib/e2e_site.sh
source "$here/lib/e2e_site.sh"

read -r -a order <<<"${BENCH_ORDER:-multifactor budget}"
[[ "${order[*]}" == "multifactor budget" || "${order[*]}" == "budget multifactor" ]] || {
  echo "e2e.sh: BENCH_ORDER must be \"multifactor budget\" or \"budget multifactor\"" >&2
  exit 2
}
site_init e2e.sh e2e "$@"
ctld_log=$lc/log/slurmctld.log

if ((smoke)); then
  accounts=${BENCH_ACCOUNTS:-20} jobs=${BENCH_JOBS:-200} submit_timed=${BENCH_SUBMIT_TIMED:-20}
  quiet=${BENCH_QUIET:-5} client_runs=${BENCH_CLIENT_RUNS:-3}
else
  accounts=${BENCH_ACCOUNTS:-500} jobs=${BENCH_JOBS:-20000} submit_timed=${BENCH_SUBMIT_TIMED:-250}
  quiet=${BENCH_QUIET:-240} client_runs=${BENCH_CLIENT_RUNS:-10}
fi
submitters=${BENCH_SUBMITTERS:-4}
submit_at=${BENCH_SUBMIT_AT:-15}
profile=${BENCH_PROFILE:-0} profile_s=${BENCH_PROFILE_S:-70}
profile_ctld=${BENCH_PROFILE_CTLD:-0} profile_submit=${BENCH_PROFILE_SUBMIT:-0}
ctld_tunables=${BENCH_GLIBC_TUNABLES:-}
declare -A conf_line=([multifactor]=${BENCH_CONF_MULTIFACTOR:-} [budget]=${BENCH_CONF_BUDGET:-})
nice_spread=${BENCH_NICE:-1}
rounds=${BENCH_ROUNDS:-1}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || {
  echo "e2e.sh: BENCH_ROUNDS must be a whole number from 1 up" >&2
  exit 2
}

say() { printf '[e2e] %s\n' "$*" >&2; }

# Seconds since the epoch, with microseconds.
now_s() { echo "$EPOCHREALTIME"; }

# --- uprobes -----------------------------------------------------------------------------------
tracefs=/sys/kernel/tracing
group=budget_bench
tracing=0 mounted_tracefs=0 reader_pid="" old_clock=""

# The file offset of the PLT stub through which an ELF file calls FUNCTION: probing it sees
# that file's calls only.
plt_offset() {
  local file=$1 function=$2 addr
  addr=$(objdump -d -j .plt -j .plt.sec "$file" 2>/dev/null |
    awk -v f="<$function@plt>:" '$2 == f { print $1; exit }')
  [[ -n "$addr" ]] || return 1
  addr_offset "$file" "$addr"
}

tracing_start() {
  local mf ctld ftd lock unlock pow
  mf=$(_lc_stock_plugin_dir)/priority_multifactor.so
  ctld=$(readlink -f /usr/sbin/slurmctld)
  if [[ ! -d $tracefs/events ]]; then
    mount -t tracefs nodev "$tracefs" 2>/dev/null && mounted_tracefs=1
  fi
  if [[ ! -w $tracefs/uprobe_events ]] ||
    ! ftd=$(elf_offset "$mf" fair_tree_decay) ||
    ! lock=$(elf_offset "$ctld" lock_slurmctld) ||
    ! unlock=$(elf_offset "$ctld" unlock_slurmctld); then
    say "no uprobes (tracefs or symbols missing): pass of multifactor and lock holds not measured"
    return 0
  fi
  {
    echo "p:$group/ftd_in $mf:$ftd"
    echo "r:$group/ftd_out $mf:$ftd"
    echo "r:$group/lock_out $ctld:$lock"
    echo "p:$group/unlock_in $ctld:$unlock"
  } >>"$tracefs/uprobe_events" || {
    say "cannot add uprobes: pass of multifactor and lock holds not measured"
    return 0
  }
  tracing=1
  local e
  for e in lock_out unlock_in; do
    echo 'comm == "decay" || comm == "budget"' >"$tracefs/events/$group/$e/filter"
  done
  # multifactor's pass starts with its usage decay, before fair_tree_decay: _decay_thread
  # computes the decay factor with pow() and then calls _apply_decay (both static; the plugin is
  # stripped). The plugin's own PLT stub for pow is hit only by its calls: that one, and one
  # per running job in fair_tree_decay. (A probe on assoc_mgr_lock would trap on every job of
  # the pass, and slow the pass it times.)
  if pow=$(plt_offset "$mf" pow) &&
    echo "p:$group/pow_in $mf:$pow" >>"$tracefs/uprobe_events"; then
    echo 'comm == "decay"' >"$tracefs/events/$group/pow_in/filter"
  else
    say "no uprobe on multifactor's pow@plt: its pass is timed from fair_tree_decay's entry"
  fi
  submit_probes_add "$ctld"
  sprio_probes_add "$ctld"
  old_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$tracefs/trace_clock")
  echo mono >"$tracefs/trace_clock"
  echo >"$tracefs/trace"
  echo 1 >"$tracefs/events/$group/enable"
  probes_enable 0 "${submit_events[@]}" "${sprio_events[@]}"
  cat "$tracefs/trace_pipe" >"$work/trace.txt" &
  reader_pid=$!
  say "uprobes on fair_tree_decay, lock_slurmctld, unlock_slurmctld and multifactor's pow@plt"
}

# What slurmctld does with one sbatch, for the report to split the submission RPC: the wait for
# slurmctld's locks (lock_slurmctld, entry to return), job_allocate (creating the job record, its
# priority, whether it is the top priority pending job, a test of the nodes for it), and inside it
# priority_g_set (the priority plugin's own code) and select_nodes (that test: for a batch job a
# test only, whose preemption check walks every job record). On the RPC threads ("srvcn") only,
# and enabled only around the timed submissions: the scheduler threads call select_nodes too, and
# a trap on each of their calls would slow the cycles the quiet window measures.
submit_events=(wait_in wait_out alloc_in alloc_out pset_in pset_out sel_in sel_out)
submit_probes_add() { # SLURMCTLD
  local ctld=$1 lib lock alloc sel pset e
  lib=$(slurmfull_of "$ctld")
  if [[ -z "$lib" ]] || ! lock=$(elf_offset "$ctld" lock_slurmctld) ||
    ! alloc=$(elf_offset "$ctld" job_allocate) ||
    ! sel=$(elf_offset "$ctld" select_nodes) || ! pset=$(elf_offset "$lib" priority_g_set) ||
    ! {
      echo "p:$group/wait_in $ctld:$lock"
      echo "r:$group/wait_out $ctld:$lock"
      echo "p:$group/alloc_in $ctld:$alloc"
      echo "r:$group/alloc_out $ctld:$alloc"
      echo "p:$group/pset_in $lib:$pset"
      echo "r:$group/pset_out $lib:$pset"
      echo "p:$group/sel_in $ctld:$sel"
      echo "r:$group/sel_out $ctld:$sel"
    } >>"$tracefs/uprobe_events"; then
    say "no uprobes on the submission's lock_slurmctld, job_allocate, priority_g_set, select_nodes"
    return 0
  fi
  for e in "${submit_events[@]}"; do
    echo 'comm == "srvcn"' >"$tracefs/events/$group/$e/filter"
  done
}

# sprio's answer as the plugin builds it, under the job read lock:
# priority_g_get_priority_factors_list, entry to return, enabled only around the timed `sprio -l`.
sprio_events=(list_in list_out)
sprio_probes_add() { # SLURMCTLD
  local lib list
  lib=$(slurmfull_of "$1")
  if [[ -z "$lib" ]] || ! list=$(elf_offset "$lib" priority_g_get_priority_factors_list) || ! {
    echo "p:$group/list_in $lib:$list"
    echo "r:$group/list_out $lib:$list"
  } >>"$tracefs/uprobe_events"; then
    say "no uprobes on priority_g_get_priority_factors_list"
  fi
}

probes_enable() { # 1 | 0, EVENT...
  local value=$1 e
  shift
  ((tracing)) || return 0
  for e in "$@"; do
    [[ -f $tracefs/events/$group/$e/enable ]] && echo "$value" >"$tracefs/events/$group/$e/enable"
  done
  return 0
}

tracing_stop() {
  if [[ -n "$reader_pid" ]]; then
    kill "$reader_pid" 2>/dev/null || true
    wait "$reader_pid" 2>/dev/null || true
    reader_pid=""
  fi
  if ((tracing)); then
    echo 0 >"$tracefs/events/$group/enable" 2>/dev/null || true
    local e
    for e in ftd_in ftd_out lock_out unlock_in pow_in "${submit_events[@]}" "${sprio_events[@]}"; do
      echo "-:$group/$e" >>"$tracefs/uprobe_events" 2>/dev/null || true
    done
    [[ -n "$old_clock" ]] && echo "$old_clock" >"$tracefs/trace_clock" 2>/dev/null
    tracing=0
  fi
  if ((mounted_tracefs)); then
    umount "$tracefs" 2>/dev/null || true
    mounted_tracefs=0
  fi
  return 0
}

# PID's resident KiB by mapping, largest first: "KIB NAME", NAME a file's base name or the
# kernel's [anon], [heap], [stack] (anonymous memory without a name counts as [anon]).
rss_by_mapping() { # PID
  awk '/^[0-9a-f]+-[0-9a-f]+ / { n = split(NF >= 6 ? $6 : "[anon]", part, "/"); name = part[n] }
       /^Rss:/ { rss[name] += $2 }
       END { for (name in rss) if (rss[name] > 0) print rss[name], name }' "/proc/$1/smaps" |
    sort -rn
}

# The monotonic clock (the trace's), in seconds.
mono_now() {
  python3 -c 'import time; print(f"{time.monotonic():.6f}")'
}

cleanup() {
  perf_ctld_stop
  tracing_stop
  cluster_stop
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- measurements ------------------------------------------------------------------------------
# NAME_s=S and NAME_min_s=F: the median and the fastest wall time of CMD over client_runs runs,
# in seconds. The machine's slow spells can take any share of a phase's runs; the fastest run
# misses them unless they fill the phase (sprio A/B runs 6 to 9, docs/performance.md). The clock
# is read in the shell itself (wall_ms_each): a $(now_s) after the command would time the fork
# of its subshell too.
time_cmd() { # NAME CMD...
  local name=$1 times
  shift
  times=$(wall_ms_each "$client_runs" "$@" | awk '{ printf "%.6f\n", $1 / 1000 }')
  echo "${name}_s=$(median <<<"$times")"
  echo "${name}_min_s=$(minimum <<<"$times")"
}

# The median CPU time (ms) the command's own process used (user + system), over N runs.
# Most of `sprio -l`'s wall time is the client's: it unpacks, sorts and prints 20,000 rows.
cpu_cmd() { # N CMD...
  local n=$1 i TIMEFORMAT='%3U %3S'
  shift
  for ((i = 0; i < n; i++)); do
    { time "$@" >/dev/null 2>&1; } 2>&1 | cpu_ms
  done | median
}

# yardstick_POINT_ms=Y: the machine's speed at POINT, the median CPU time (ms) of five `gzip -1`
# of the yardstick's input (make_yardstick). Outside every window: the gzip runs would add to it.
yardstick_at() { # POINT
  echo "yardstick_${1}_ms=$(cpu_cmd 5 gzip -1 -c "$work/yardstick.in")"
}

wait_first_pass() { # PLUGIN SINCE_MONO
  local plugin=$1 since=$2 deadline=$((SECONDS + 180))
  while ((SECONDS < deadline)); do
    if [[ "$plugin" == budget ]]; then
      grep -q "priority/budget: pass ranked" "$ctld_log" 2>/dev/null && return 0
    elif ((tracing)); then
      awk -v t="$since" '/ ftd_out:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); if ($i + 0 > t) found = 1 } } END { exit !found }' \
        "$work/trace.txt" && return 0
    else
      sleep 10
      return 0
    fi
    sleep 1
  done
  say "no $plugin pass seen in 180 s"
  return 1
}

phase() { # PLUGIN: multifactor | budget
  local plugin=$1 r="$work/$1.env"
  say "=== $plugin"
  ctld_switch_to "$plugin" "${conf_line[$plugin]}"
  local since t0 t1 ids n pid
  since=$(mono_now)
  echo "${plugin}_start=$since" >>"$work/phases.env"
  ctld_start
  wait_first_pass "$plugin" "$since" || true
  yardstick_at submit >"$r" # before the sleep, which keeps the submissions at submit_at
  # What glibc's allocator runs with, as slurmctld's own environment holds it.
  echo "glibc_tunables=$(tr '\0' '\n' <"/proc/$(_lc_pid slurmctld)/environ" |
    sed -n 's/^GLIBC_TUNABLES=//p')" >>"$r"
  sleep "$(python3 -c 'import sys, time
print(f"{max(0.0, float(sys.argv[1]) + float(sys.argv[2]) - time.monotonic()):.3f}")' "$since" "$submit_at")"
  echo "pending=$(pending_count)" >>"$r"
  # Where the job records start, before the timed submissions add records of their own.
  python3 "$here/job_layout.py" "$(_lc_pid slurmctld)" 2>/dev/null | tr ' ' '\n' |
    sed -n 's/^start_mod_64=/job_start_mod_64=/p; s/^walked_lines_per_record=/job_walked_lines=/p' \
      >>"$r" || true

  # sbatch throughput, then the queue back to what it was. sdiag gives the controller's own
  # time for each submission, without the client and the network around it.
  sdiag -r >/dev/null
  local submit_profiled=0
  if ((profile_submit)) && perf_ctld_start "$work/$plugin-submit.perf" 20000; then
    submit_profiled=1
  fi
  probes_enable 1 "${submit_events[@]}"
  echo "${plugin}_submit_start=$(mono_now)" >>"$work/phases.env"
  times >"$work/times-before" # the clients' own CPU (children_cpu_per_run_ms)
  t0=$(now_s)
  ids=()
  for ((n = 0; n < submit_timed; n++)); do
    ids+=("$(submit_one "$n")")
  done
  t1=$(now_s)
  times >"$work/times-after"
  echo "${plugin}_submit_end=$(mono_now)" >>"$work/phases.env"
  probes_enable 0 "${submit_events[@]}"
  if ((submit_profiled)); then
    perf_ctld_stop
    perf report -i "$work/$plugin-submit.perf" --stdio --no-children --comms srvcn \
      --sort dso,symbol --percent-limit 0.02 2>/dev/null \
      >"$round_out/e2e-$plugin-submit-profile.txt" || true
  fi
  echo "sbatch_per_s=$(awk -v n="$submit_timed" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", n / (b - a) }')" >>"$r"
  echo "rpc_submit_us=$(sdiag_rpc_us REQUEST_SUBMIT_BATCH_JOB)" >>"$r"
  echo "sbatch_client_cpu_ms=$(children_cpu_per_run_ms "$work/times-before" "$work/times-after" "$submit_timed")" >>"$r"
  scancel "${ids[@]}"
  # Their records purged now, before the window: slurmctld's purge thread takes a free malloc
  # arena at its first purge, and the purge itself takes the job write lock; left to MinJobAge's
  # default, both fell on sprio, sshare and the RSS some phases and not others.
  wait_purged "${ids[-1]}" || true

  # The queue the scheduler sorts, for the report's count of its sort's comparisons.
  squeue -h -t PD -o "%i %Q %P %V" >"$work/$plugin-queue.txt"

  # sdiag over a quiet window; the passes in it are timed by the trace and the log.
  yardstick_at quiet >>"$r"
  sdiag -r >/dev/null
  local perf_pid="" tid
  if [[ "$plugin" == budget ]] && ((profile)) && command -v perf >/dev/null; then
    tid=$(thread_tid "$(_lc_pid slurmctld)" budget)
    if [[ -n "$tid" ]]; then
      perf record -q -F 20000 -g -t "$tid" -o "$work/budget.perf" -- sleep "$profile_s" \
        >/dev/null 2>&1 &
      perf_pid=$!
      say "perf samples the budget thread ($tid) for $profile_s s"
    fi
  fi
  local ctld_perf_pid=""
  if ((profile_ctld)) && command -v perf >/dev/null; then
    perf record -q -F 499 -g -p "$(_lc_pid slurmctld)" -o "$work/$plugin-ctld.perf" \
      -- sleep "$quiet" >/dev/null 2>&1 &
    ctld_perf_pid=$!
    say "perf samples all of slurmctld for $quiet s"
  fi
  sleep "$quiet"
  if [[ -n "$ctld_perf_pid" ]]; then
    wait "$ctld_perf_pid" || true
    perf report -i "$work/$plugin-ctld.perf" --stdio --no-children --sort comm,symbol \
      --percent-limit 0.5 -g none 2>/dev/null >"$round_out/e2e-$plugin-ctld-profile.txt" || true
  fi
  if [[ -n "$perf_pid" ]]; then
    wait "$perf_pid" || true
    perf report -i "$work/budget.perf" --stdio --no-children --sort symbol --percent-limit 0.5 \
      2>/dev/null >"$round_out/e2e-budget-profile.txt" || true
  fi
  # The mean cycle with what it is a mean of: how many cycles, how deep into the queue.
  {
    echo "sdiag_main_us=$(sdiag_value main "Mean cycle")"
    echo "sdiag_main_cycles=$(sdiag_value main "Total cycles")"
    echo "sdiag_main_max_us=$(sdiag_value main "Max cycle")"
    echo "sdiag_main_depth=$(sdiag_value main "Mean depth cycle")"
    echo "sdiag_backfill_us=$(sdiag_value backfill "Mean cycle")"
    echo "sdiag_backfill_cycles=$(sdiag_value backfill "Total cycles")"
    echo "sdiag_backfill_max_us=$(sdiag_value backfill "Max cycle")"
    echo "sdiag_backfill_depth=$(sdiag_value backfill "Depth Mean")"
  } >>"$r"

  # The clients' wall time, and the controller's own time answering them (sdiag).
  yardstick_at clients >>"$r"
  sdiag -r >/dev/null
  pid=$(_lc_pid slurmctld)
  {
    echo "sprio_lines=$(sprio -l -h | wc -l)"
    probes_enable 1 "${sprio_events[@]}"
    echo "${plugin}_sprio_start=$(mono_now)" >>"$work/phases.env"
    time_cmd sprio sprio -l
    echo "${plugin}_sprio_end=$(mono_now)" >>"$work/phases.env"
    probes_enable 0 "${sprio_events[@]}"
    echo "sshare_lines=$(sshare -a -l -h | wc -l)"
    time_cmd sshare sshare -a -l
    echo "rpc_sprio_us=$(sdiag_rpc_us REQUEST_PRIORITY_FACTORS)"
    echo "rpc_sshare_us=$(sdiag_rpc_us REQUEST_SHARE_INFO)"
    echo "rss_kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")"
    # After the sdiag and RSS readings, which these runs would add to.
    echo "sprio_cpu_ms=$(cpu_cmd "$client_runs" sprio -l)"
    # Last: gdb stops slurmctld for about a second.
    echo "heap_in_use_mib=$(heap_in_use_mib "$pid" "$lc/log/slurmctld.out")"
  } >>"$r"
  # Where that RSS is: anonymous memory (heap, thread arenas, stacks) against mapped files, and
  # of these the priority plugin with the C++ runtime it brings (priority/budget only).
  rss_by_mapping "$pid" >"$round_out/e2e-$plugin-rss.txt"
  awk '$2 ~ /^\[/ { anon += $1 }
       $2 ~ /^(priority_|libstdc\+\+|libgcc_s)/ { plugin += $1 }
       END { printf "rss_anon_kib=%d\nrss_plugin_kib=%d\n", anon, plugin }' \
    "$round_out/e2e-$plugin-rss.txt" >>"$r"
  yardstick_at end >>"$r"
  if [[ "$plugin" == budget ]]; then
    grep -o "priority/budget: pass ranked [0-9]* jobs in [0-9]* usec, job write lock held [0-9]* usec (longest hold [0-9]* usec), ledger saved in [0-9]* usec, [0-9]* ranked by name" \
      "$ctld_log" | awk '{ print $4, $7, $13, $22, $24 }' >"$work/budget_passes.txt" || true
    grep -o "priority/budget: pass outside the job write lock: .*" "$ctld_log" \
      >"$work/budget_phases.txt" || true
    # How each pass found the jobs submitted since the one before ranked: the timed
    # submissions on the first pass's factors, or by name.
    grep -o "priority/budget: since the pass before, .*" "$ctld_log" \
      >"$work/budget_submissions.txt" || true
  fi
  echo "${plugin}_end=$(mono_now)" >>"$work/phases.env"
  cat "$r" >&2
}

# --- the run -----------------------------------------------------------------------------------
# One round's report, from what its two phases left in $work (each phase rewrites its own files;
# phases.env holds this round's windows of the trace), into ROUND_OUT.
report() { # ROUND_OUT
  local dir=$1
  cp "$work/budget_passes.txt" "$dir/e2e-budget-passes.txt" 2>/dev/null || true
  cp "$work/budget_phases.txt" "$dir/e2e-budget-phases.txt" 2>/dev/null || true
  cp "$work/budget_submissions.txt" "$dir/e2e-budget-submissions.txt" 2>/dev/null || true
  cp "$work/phases.env" "$dir/e2e-phases.env" # its windows of OUT_DIR/e2e-trace.txt
  for plugin in multifactor budget; do
    cp "$work/$plugin-queue.txt" "$dir/e2e-$plugin-queue.txt" 2>/dev/null || true
  done
  local report_args=(--work "$work" --out "$dir" --accounts "$accounts" --jobs "$jobs"
    --quiet "$quiet" --client-runs "$client_runs" --submit-timed "$submit_timed")
  ((smoke)) && report_args+=(--smoke)
  python3 "$here/e2e_report.py" "${report_args[@]}"
}

t_start=$SECONDS
make_yardstick
site_build
if [[ -z "${BENCH_CONF_BUDGET+set}" ]]; then
  match_job_layout "${conf_line[multifactor]}"
  conf_line[budget]=$layout_line
fi
say "budget phases append: ${conf_line[budget]:-nothing}"

tracing_start
for ((round = 1; round <= rounds; round++)); do
  round_out=$out
  if ((rounds > 1)); then
    round_out=$out/round-$round
    mkdir -p "$round_out"
    say "=== round $round of $rounds"
  fi
  : >"$work/phases.env"
  # Every other round runs the plugins the other way round (A B, B A, A B...): a drift of the
  # machine over the run then weighs on both plugins alike.
  round_order=("${order[@]}")
  ((round % 2 == 0)) && round_order=("${order[1]}" "${order[0]}")
  for plugin in "${round_order[@]}"; do
    phase "$plugin"
  done
  report "$round_out"
done
tracing_stop
cp "$work/trace.txt" "$out/e2e-trace.txt" 2>/dev/null || : >"$out/e2e-trace.txt"
if ((rounds > 1)); then
  round_reports=()
  for ((round = 1; round <= rounds; round++)); do
    round_reports+=("$out/round-$round/e2e.json") # in round order: a glob puts 10 before 2
  done
  python3 "$here/e2e_runs.py" "${round_reports[@]}" >"$out/e2e-rounds.md"
  say "done in $((SECONDS - t_start)) s: $out/e2e-rounds.md (each round: $out/round-N/e2e.md)"
else
  say "done in $((SECONDS - t_start)) s: $out/e2e.md"
fi
