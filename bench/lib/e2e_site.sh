# shellcheck shell=bash
# bench/lib/e2e_site.sh: the site the end-to-end benchmarks run on (bench/e2e.sh,
# bench/backfill_ab.sh and bench/sprio_ab.sh), sourced after tests/integration/lib/cluster.sh and
# budget_fixture.sh, and the helpers they share (uprobe offsets, sdiag's numbers, a median).
#
# ACCOUNTS accounts (each with root and one user of its own), a budget.conf with one project per
# account and past usage (sbudget ledger import), the 4 nodes kept busy by long jobs and JOBS
# pending jobs (one record each: pending array tasks would share one), and slurmctld restarted
# with one priority plugin or the other on that same queue.
#
# The sourcing script calls site_init first, then sets accounts, jobs, submit_timed (job numbers
# below it are left to the script's own timed submissions), submitters, nice_spread (0: every
# job nice 0), and defines say().

# The command line both scripts take, BUILD_DIR OUT_DIR [--smoke], and what follows from it:
# sets build, out, smoke, plugin_dir, sbudget, lc, ledger and work (a fresh directory slurmctld
# can read, /tmp/budget-bench-TAG.*; the caller removes it).
site_init() { # SCRIPT TAG ARGS...
  local script=$1 tag=$2
  shift 2
  [[ $# -ge 2 ]] && build=$(cd "$1" && pwd) || {
    echo "usage: $script BUILD_DIR OUT_DIR [--smoke]" >&2
    exit 2
  }
  mkdir -p "$2"
  out=$(cd "$2" && pwd)
  smoke=0
  [[ "${3:-}" == --smoke ]] && smoke=1
  plugin_dir=$build/src/slurm
  [[ -f "$plugin_dir/priority_budget.so" ]] || {
    echo "$script: no $plugin_dir/priority_budget.so: configure with -DBUDGET_BUILD_PLUGIN=ON" >&2
    exit 1
  }
  sbudget=$build/src/cli/sbudget
  lc=${BUDGET_LC:-/tmp/budget-lc}
  ledger=$lc/spool/ctld/budget_ledger
  work=$(mktemp -d "/tmp/budget-bench-$tag.XXXXXX")
  chmod 755 "$work"
}

# The knobs both A/B scripts (bench/backfill_ab.sh, bench/sprio_ab.sh) share, after site_init:
# the site's size (small with --smoke), SETTLE seconds after each restart of slurmctld, and the
# plan of phases (AB_PLAN, "LABEL PLUGIN ..." entries separated by ";").
ab_site_knobs() {
  if ((smoke)); then
    accounts=${BENCH_ACCOUNTS:-20} jobs=${BENCH_JOBS:-200} settle=${BENCH_SETTLE:-20}
  else
    accounts=${BENCH_ACCOUNTS:-500} jobs=${BENCH_JOBS:-20000} settle=${BENCH_SETTLE:-70}
  fi
  submitters=${BENCH_SUBMITTERS:-4}
  submit_timed=0 nice_spread=1
  IFS=';' read -r -a plan <<<"${AB_PLAN:-mf1 multifactor;bu1 budget;mf2 multifactor;bu2 budget}"
}

# A plan entry's PLUGIN: multifactor, budget (the build's priority_budget.so) or budget=DIR (the
# one in DIR, say a build of the commit before a change). Sets ab_plugin (multifactor or budget)
# and ab_plugin_dir: DIR's absolute path, the build's plugin directory for budget, empty for
# multifactor (the script decides which plugin directory a multifactor phase keeps). Exits 2
# on any other PLUGIN, or a DIR without priority_budget.so.
ab_plan_plugin() { # SCRIPT LABEL PLUGIN
  local script=$1 label=$2
  ab_plugin=${3%%=*} ab_plugin_dir=""
  case $3 in
    multifactor) ;;
    budget) ab_plugin_dir=$build/src/slurm ;;
    budget=*) ab_plugin_dir=$(cd "${3#budget=}" 2>/dev/null && pwd) || ab_plugin_dir=${3#budget=} ;;
    *)
      echo "$script: phase $label: plugin \"$3\" is not multifactor, budget or budget=DIR" >&2
      exit 2
      ;;
  esac
  [[ -z "$ab_plugin_dir" || -f "$ab_plugin_dir/priority_budget.so" ]] || {
    echo "$script: phase $label: no $ab_plugin_dir/priority_budget.so" >&2
    exit 2
  }
}

account_name() { printf 'p%04d' "$1"; }

make_budget_conf() {
  local i
  {
    echo "# budget.conf of the e2e benchmark (bench/e2e.sh): one project per account"
    echo "PartitionName=normal Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=debug Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=low Role=low GpuhPerNodeHour=4"
    for ((i = 0; i < accounts; i++)); do
      echo "Project=$(account_name "$i") Kind=large Credit=$((24000 + (i % 37) * 12000)) Start=$FIX_START PIs=pi$i@uni.example.ch StorageTB=1 StorageInodes=1000000"
    done
  } >"$work/budget.conf"
}

# Past usage: every earlier month at 30 % to 130 % of the project's monthly budget, and part
# of the current month, so the projects spread over the behind and ahead bands.
make_usage_csv() {
  local i month pct credit
  local -a pattern=(30 60 80 90 100 110 130 20 70 95)
  {
    echo "account,user,month,partition,gpu_hours"
    for ((i = 0; i < accounts; i++)); do
      credit=$((24000 + (i % 37) * 12000))
      pct=${pattern[$((i % 10))]}
      for month in $(_fixture_past_months); do
        echo "$(account_name "$i"),$(printf 'u%04d' "$i"),$month,budgeted,$((credit / 12 * pct / 100))"
      done
      echo "$(account_name "$i"),$(printf 'u%04d' "$i"),$FIX_THIS,budgeted,$((credit / 12 * pct / 200))"
    done
  } >"$work/usage.csv"
}

# sacctmgr with many names at once: far faster than one call per account.
make_accounts() {
  local i names=() users=()
  for ((i = 0; i < accounts; i++)); do
    names+=("$(account_name "$i")")
  done
  local chunk=100 k list
  for ((k = 0; k < accounts; k += chunk)); do
    list=$(
      IFS=,
      echo "${names[*]:k:chunk}"
    )
    sacctmgr -i add account "$list" >/dev/null
    sacctmgr -i add user root account="$list" >/dev/null
  done
  for ((i = 0; i < accounts; i++)); do
    sacctmgr -i add user "$(printf 'u%04d' "$i")" account="$(account_name "$i")" >/dev/null
  done
  _lc_wait_for 60 "slurmctld to know every account" slurmctld \
    bash -c "scontrol -o show assoc_mgr accounts=$(account_name $((accounts - 1))) users=root flags=assoc | grep -q 'UserName=root('"
  users=$(sshare -a -h | wc -l)
  say "$accounts accounts, $users sshare rows"
}

# One pending job: a whole node for an hour, in normal (90 %) or low, with a nice value in
# 0..9999 drawn from a fixed hash of its number. Without it multifactor, which has no usage
# history here, gives the 20,000 jobs about 130 distinct priorities and breaks the ties by job
# id, so the scheduler's sort of its queue reads job records almost in memory order, which the
# budget plugin's 1,500 levels do not: a difference in the scheduler cycles that no real queue
# has (runs 5 and 6 in docs/performance-log.md). Both plugins get the same nice values.
submit_one() {
  local i=$1 part=normal
  ((i % 10 == 9)) && part=low
  sbatch --parsable -A "$(account_name $((i % accounts)))" -p "$part" -N1 --exclusive -t 60 \
    --nice="$(nice_of "$i")" -o /dev/null --chdir="$work" --wrap true
}

# A fixed 0..9999 for job number $1: an integer hash (multiply, xor-shift), so that nice values
# follow no pattern in submission order. BENCH_NICE=0 gives every job 0, as before run 6.
nice_of() {
  ((nice_spread)) || { echo 0; return; }
  local h=$((($1 * 2654435761 + 1) & 0xffffffff))
  h=$(((h ^ (h >> 15)) * 2246822519 & 0xffffffff))
  echo $(((h ^ (h >> 13)) % 10000))
}

submit_range() {
  local from=$1 to=$2 i
  for ((i = from; i < to; i++)); do
    submit_one "$i" >/dev/null || { sleep 1; submit_one "$i" >/dev/null; }
  done
}

pending_count() {
  squeue -h -t PD -o %i | wc -l
}

# Waits (at most 90 s) until slurmctld has purged the record of finished job ID; the jobs
# cancelled with it go in the same purge.
wait_purged() { # ID
  local t0=$SECONDS
  _lc_wait_for 90 "the purge of job $1" slurmctld job_purged "$1" || return 1
  say "job $1 purged after $((SECONDS - t0)) s"
}

job_purged() { # ID: slurmctld answers that it has no such job
  local answer
  answer=$(scontrol -o show job "$1" 2>&1) || true
  [[ "$answer" == *"Invalid job id specified"* ]]
}

thread_tid() { # PID NAME...: the id of PID's first thread named one of NAMEs (empty if none)
  local pid=$1
  shift
  ps -L -o tid=,comm= -p "$pid" | awk -v names=" $* " 'index(names, " " $2 " ") { print $1; exit }'
}

# Where PID's job records sit relative to cache lines (bench/job_layout.py, one line), or
# "job layout unknown" (not root, or not Slurm 22.05.8's job_record_t).
job_layout_of() { # PID
  python3 "$(dirname "${BASH_SOURCE[0]}")/../job_layout.py" "$1" 2>/dev/null || echo "job layout unknown"
}

# The offset modulo 64 at which most of PID's job records start (empty if unknown).
job_start_offset() { # PID
  job_layout_of "$1" | tr ' ' '\n' | sed -n 's/^start_mod_64=//p' | tr ',' '\n' |
    sort -t: -k2,2 -g | tail -n 1 | cut -d: -f1
}

# Sets layout_line: the slurm.conf line a priority/budget phase appends so that its job records
# start at the offset modulo 64 that multifactor's do. Where they start follows the length of
# the strings slurmctld allocates before it reads its job state (its slurm.conf, the paths of
# this checkout and of the run's work directory), and Slurm's preemption walk reads 3 cache
# lines a record at one offset and 4 at another, under either plugin (docs/performance-log.md,
# "sbatch A/B run 1"). Restarts slurmctld with multifactor, then with priority/budget and a
# JobCompLoc line (unused under jobcomp/none) of each length of BENCH_LAYOUT_PADS in turn until
# the offsets agree: two to seventeen restarts, some 25 s each with 20,000 jobs. The offset does
# not follow the length in steps: on one machine 0, 8, 16, 24, 32 and 40 characters gave 0, 48,
# 48, 32, 32 and 0. Without a layout (not root), or if no length agrees, the line of earlier
# runs, whose length matched on the machine of runs 15 to 49.
match_job_layout() { # [MULTIFACTOR_LINE: the multifactor phases' own slurm.conf line]
  local want got pad line
  layout_line=JobCompLoc=/tmp/pppppppppppppppp
  ctld_switch_to multifactor "${1:-}"
  ctld_start
  want=$(job_start_offset "$(_lc_pid slurmctld)")
  [[ -n "$want" ]] || { say "job layout unknown: budget phases append $layout_line"; return 0; }
  for pad in ${BENCH_LAYOUT_PADS:-16 0 4 8 12 20 24 28 32 36 40 44 48 52 56 60}; do
    line=""
    ((pad)) && line=JobCompLoc=/tmp/$(printf "%${pad}s" "" | tr ' ' p)
    ctld_switch_to budget "$line"
    ctld_start
    got=$(job_start_offset "$(_lc_pid slurmctld)")
    say "job records at offset $got mod 64 under priority/budget with ${line:-no line} (multifactor: $want)"
    [[ "$got" == "$want" ]] && { layout_line=$line; return 0; }
  done
  say "no JobCompLoc length puts the job records at offset $want: budget phases append $layout_line"
}

# Starts slurmctld, with GLIBC_TUNABLES=$ctld_tunables when the script sets it (bench/e2e.sh's
# BENCH_GLIBC_TUNABLES): where the job records start depends on the allocator too, so the
# layout is matched under the allocator the phases run with.
ctld_start() {
  if [[ -n "${ctld_tunables:-}" ]]; then
    GLIBC_TUNABLES=$ctld_tunables cluster_start_ctld
  else
    cluster_start_ctld
  fi
}

# The slurm.conf line every budget phase of an A/B script appends: BENCH_CONF_BUDGET if it is
# set (empty: nothing), else match_job_layout's. Sets budget_conf_line and writes it to FILE.
budget_phase_line() { # FILE
  if [[ -n "${BENCH_CONF_BUDGET+set}" ]]; then
    budget_conf_line=$BENCH_CONF_BUDGET
  else
    match_job_layout ""
    budget_conf_line=$layout_line
  fi
  echo "budget phases append: ${budget_conf_line:-nothing}" >"$1"
}

slurmfull_of() { # SLURMCTLD: the path of the libslurmfull it loads
  ldd "$1" | awk '$1 ~ /^libslurmfull/ { print $3 }'
}

# Uprobes on one function at a time, for the A/B scripts (bench/sprio_ab.sh, bench/sbatch_ab.sh):
# NAME_in at its entry and NAME_out at its return, in the tracefs group uprobe_group (the script
# sets it). uprobe_pair_add mounts tracefs if it is not mounted (uprobes_stop unmounts it
# again), and returns 1, adding nothing, when it cannot probe: not root, no tracefs, no such
# symbol. THREAD limits both events to the threads of that name.
uprobe_tracefs=/sys/kernel/tracing uprobe_names=() uprobe_mounted=0 uprobe_switches=0

uprobe_mount() {
  [[ -d $uprobe_tracefs/events ]] ||
    { mount -t tracefs nodev "$uprobe_tracefs" 2>/dev/null && uprobe_mounted=1; }
}

uprobe_pair_add() { # FILE SYMBOL NAME [THREAD]
  local file=$1 symbol=$2 name=$3 thread=${4:-} offset
  uprobe_mount
  [[ -w $uprobe_tracefs/uprobe_events ]] && offset=$(elf_offset "$file" "$symbol") && {
    echo "p:$uprobe_group/${name}_in $file:$offset"
    echo "r:$uprobe_group/${name}_out $file:$offset"
  } >>"$uprobe_tracefs/uprobe_events" 2>/dev/null || return 1
  uprobe_names+=("${name}_in" "${name}_out")
  if [[ -n "$thread" ]]; then
    echo "comm == \"$thread\"" >"$uprobe_tracefs/events/$uprobe_group/${name}_in/filter"
    echo "comm == \"$thread\"" >"$uprobe_tracefs/events/$uprobe_group/${name}_out/filter"
  fi
}

# The time on a CPU of the threads named THREAD, for threads that live too short for /proc to
# be read after them (slurmctld's RPC threads, "srvcn", live one connection each): the
# scheduler's switches into and out of them, sched_switch events that start and stop with the
# group's uprobes. A new thread runs under its creator's name, PARENT, until it renames itself,
# so the switches of PARENT's name are traced too (cpu_of_threads). Returns 1 when it cannot
# trace.
switches_add() { # THREAD PARENT
  local filter="prev_comm == \"$1\" || next_comm == \"$1\""
  filter+=" || prev_comm == \"$2\" || next_comm == \"$2\""
  uprobe_mount
  echo "$filter" 2>/dev/null >"$uprobe_tracefs/events/sched/sched_switch/filter" || return 1
  uprobe_switches=1
}

# Starts (1) or stops (0) every event of the group, the trace emptied before a start.
uprobes_enable() { # 1 | 0
  ((${#uprobe_names[@]} || uprobe_switches)) || return 0
  (($1)) && echo >"$uprobe_tracefs/trace"
  ((${#uprobe_names[@]} == 0)) || echo "$1" >"$uprobe_tracefs/events/$uprobe_group/enable"
  ((uprobe_switches == 0)) || echo "$1" >"$uprobe_tracefs/events/sched/sched_switch/enable"
}

uprobes_trace() {
  cat "$uprobe_tracefs/trace"
}

# Removes every event uprobe_pair_add added and unmounts tracefs if it mounted it.
uprobes_stop() {
  local name
  if ((${#uprobe_names[@]})); then
    echo 0 >"$uprobe_tracefs/events/$uprobe_group/enable" 2>/dev/null || true
    for name in "${uprobe_names[@]}"; do
      echo "-:$uprobe_group/$name" >>"$uprobe_tracefs/uprobe_events" 2>/dev/null || true
    done
    uprobe_names=()
  fi
  if ((uprobe_switches)); then
    echo 0 >"$uprobe_tracefs/events/sched/sched_switch/enable" 2>/dev/null || true
    echo 0 >"$uprobe_tracefs/events/sched/sched_switch/filter" 2>/dev/null || true
    uprobe_switches=0
  fi
  if ((uprobe_mounted)); then
    umount "$uprobe_tracefs" 2>/dev/null || true
    uprobe_mounted=0
  fi
  return 0
}

# Each call's time, in the trace's order, from NAME_in to the next NAME_out of one thread, in
# seconds times SCALE (1000: ms, 1e6: µs), printed with FORMAT.
entry_to_return_each() { # NAME SCALE FORMAT
  awk -v name="$1" -v scale="$2" -v format="$3\n" '
    { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1); break }
      if (index($0, " " name "_in:")) start[$1] = t
      else if (index($0, " " name "_out:") && ($1 in start)) {
        printf format, (t - start[$1]) * scale; delete start[$1]
      } }'
}

# From the trace of switches_add's events on stdin, "MS THREADS": the milliseconds on a CPU of
# the threads named THREAD and how many of them ran. A stretch on a CPU counts when its thread
# leaves the CPU under THREAD's name, so a new thread's first stretch, begun under its creator's
# name, counts too. Says so on stderr when the trace buffer lost events.
cpu_of_threads() { # THREAD
  awk -v name="$1" '
    /^# entries-in-buffer\/entries-written:/ {
      split($3, e, "/")
      if (e[1] != e[2]) printf "cpu_of_threads: the trace lost %d events\n", e[2] - e[1] > "/dev/stderr"
    }
    / sched_switch: / {
      t = ""; prev = ""; pid = ""; next_pid = ""
      for (i = 1; i <= NF; i++) {
        if (t == "" && $i ~ /^[0-9]+\.[0-9]+:$/) t = substr($i, 1, length($i) - 1)
        else if ($i ~ /^prev_comm=/) prev = substr($i, 11)
        else if ($i ~ /^prev_pid=/) pid = substr($i, 10)
        else if ($i ~ /^next_pid=/) next_pid = substr($i, 10)
      }
      if (pid in on) {
        if (prev == name) { ms += (t - on[pid]) * 1000; ran[pid] = 1 }
        delete on[pid]
      }
      on[next_pid] = t
    }
    END { printf "%.3f %d\n", ms, length(ran) }'
}

# The file offset of a symbol of an ELF file, from its LOAD segments.
elf_offset() {
  local file=$1 symbol=$2 addr
  addr=$(nm -D --defined-only "$file" 2>/dev/null | awk -v s="$symbol" '$3 == s { print $1; exit }')
  [[ -n "$addr" ]] || return 1
  addr_offset "$file" "$addr"
}

# The file offset of virtual address ADDR (hex, no 0x) of an ELF file.
addr_offset() {
  local file=$1 addr=$2
  readelf -lW "$file" | awk -v a="$((16#$addr))" '
    $1 == "LOAD" {
      off = strtonum($2); va = strtonum($3); sz = strtonum($6)
      if (a >= va && a < va + sz) { printf "0x%x\n", a - va + off; found = 1; exit }
    }
    END { if (!found) exit 1 }'
}

# One line a thread of process PID: tid, name, then from schedstat the nanoseconds on a CPU,
# the nanoseconds runnable but waiting for one and the time slices, then the voluntary and
# involuntary context switches.
thread_snapshot() { # PID
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s %s %s %s\n' "${t##*/}" "$(cat "$t/comm")" "$(cat "$t/schedstat")" \
      "$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status")" \
      "$(awk '/^nonvoluntary_ctxt_switches/ { print $2 }' "$t/status")"
  done 2>/dev/null
}

# What each thread did between two snapshots, busiest first: tid, name, milliseconds on a CPU,
# milliseconds waiting for one, time slices, voluntary and involuntary context switches.
thread_delta() { # BEFORE AFTER
  echo "# tid name cpu_ms runq_wait_ms slices voluntary_cs involuntary_cs"
  join <(sort "$1") <(sort "$2") |
    awk '{ printf "%s %s %.1f %.1f %d %d %d\n", $1, $2, ($9 - $3) / 1e6, ($10 - $4) / 1e6,
             $11 - $5, $12 - $6, $13 - $7 }' |
    sort -k3,3 -g -r | column -t
}

# The machine's CPU split between two /proc/stat "cpu" lines.
cpu_delta() { # BEFORE AFTER
  paste "$1" "$2" | awk '{
    n = NF / 2; total = 0
    for (i = 2; i <= n; i++) { d[i] = $(i + n) - $i; total += d[i] }
    printf "user %.1f%% system %.1f%% idle %.1f%% steal %.1f%%\n",
      100 * (d[2] + d[3]) / total, 100 * d[4] / total, 100 * d[5] / total, 100 * d[9] / total
  }'
}

# One line a process of the machine: pid, name, CPU time (user + system, clock ticks). A process
# that ends during the walk is left out.
process_snapshot() {
  local p
  for p in /proc/[0-9]*; do
    awk -v pid="${p##*/}" '{ sub(/^.*\) /, ""); print pid, $12 + $13 }' "$p/stat" 2>/dev/null |
      { read -r pid ticks && printf '%s %s %s\n' "$pid" "$(tr ' ' '_' <"$p/comm")" "$ticks"; } ||
      true
  done 2>/dev/null
}

# What each process used between two snapshots, busiest first (ms on a CPU); those under 10 ms
# are left out.
process_delta() { # BEFORE AFTER
  local hz
  hz=$(getconf CLK_TCK)
  echo "# pid name cpu_ms"
  join <(sort "$1") <(sort "$2") |
    awk -v hz="$hz" '{ ms = ($5 - $3) * 1000 / hz; if (ms >= 10) printf "%s %s %.0f\n", $1, $2, ms }' |
    sort -k3,3 -g -r | column -t
}

# perf record on slurmctld, in the background, into FILE at HZ samples a second (more perf record
# options after HZ), until perf_ctld_stop; perf's own messages go to $work/perf.err. Returns 1,
# sampling nothing, without perf. The callers keep their own `perf report` options, and their
# cleanup calls perf_ctld_stop so that no perf outlives them.
perf_ctld_pid=""
perf_ctld_start() { # FILE HZ [PERF_RECORD_OPTION...]
  command -v perf >/dev/null || return 1
  perf record -q -F "$2" "${@:3}" -p "$(_lc_pid slurmctld)" -o "$1" >/dev/null \
    2>>"$work/perf.err" &
  perf_ctld_pid=$!
  sleep 2 # perf attaches to every thread before what it samples starts
}

# Stops perf_ctld_start's perf; SIGINT has it write FILE whole before it exits.
perf_ctld_stop() {
  [[ -n "$perf_ctld_pid" ]] || return 0
  kill -INT "$perf_ctld_pid" 2>/dev/null || true
  wait "$perf_ctld_pid" || true
  perf_ctld_pid=""
}

# Each of N runs of CMD (its output dropped): its wall time in ms, one a line.
wall_ms_each() { # N CMD...
  local n=$1 i t0 t1
  shift
  for ((i = 0; i < n; i++)); do
    t0=$EPOCHREALTIME
    "$@" >/dev/null
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
  done
}

sdiag_rpc_us() { # MESSAGE_TYPE: slurmctld's mean time handling it since `sdiag -r` (usec)
  sdiag | awk -v want="$1" '
    /^Remote Procedure Call statistics by message type/ { s = 1; next }
    /^Remote Procedure Call statistics by user/ { s = 0 }
    s && $1 == want {
      for (i = 2; i <= NF; i++) if ($i ~ /^ave_time:/) { sub(/^ave_time:/, "", $i); print $i; exit }
    }'
}

# The bytes slurmctld's heap holds in use, in MiB (glibc's malloc_stats, "Total (incl. mmap)":
# every arena and the mmapped chunks), or "n/a" (no gdb, not root). RSS follows how much each
# malloc arena once took and keeps; this is what is allocated now. gdb stops slurmctld for about
# a second and has its first thread call malloc_stats, which prints to the process's stderr,
# the file ERR (for slurmctld, cluster.sh's log/slurmctld.out). Call it with slurmctld idle:
# malloc_stats takes each arena's lock, and a thread stopped inside malloc would hold one.
heap_in_use_mib() { # PID ERR
  local pid=$1 err=$2 from
  command -v gdb >/dev/null && [[ -f "$err" ]] || { echo n/a; return 0; }
  from=$(($(stat -c %s "$err") + 1))
  timeout 60 gdb -p "$pid" -batch -nx -ex 'set unwindonsignal on' \
    -ex 'call (void) malloc_stats()' >/dev/null 2>&1 || { echo n/a; return 0; }
  tail -c "+$from" "$err" | awk '
    /^Total \(incl\. mmap\):/ { total = 1; next }
    total && /^in use bytes/ { printf "%.2f\n", $NF / 1048576; found = 1; exit }
    END { if (!found) print "n/a" }'
}

# The yardstick's input: 2.6 MB of numbers, which `gzip -1` packs in about 30 ms of CPU. In A/B
# run 8 every process took up to 1.5 times its CPU time for the same work over a whole phase
# (slurmctld, the sprio client, the script's shell, kernel threads) with no steal time reported:
# the machine's speed drifts, and a phase's times are read against it.
make_yardstick() { # in $work: bench/{e2e,sprio_ab,sbatch_ab}.sh time gzip -1 of it
  seq 1 400000 >"$work/yardstick.in"
}

# The median of the numbers on stdin, one a line ("nan" without any).
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

minimum() {
  sort -g | head -n 1
}

# FILE, the output of bash's `times` -> the CPU time (ms, user + system) of every child that shell
# had waited for, their own children included (RUSAGE_CHILDREN). `times` must run in the shell
# itself (`times >FILE`): in a pipeline or $(...) it reads a subshell's, which starts from zero.
children_cpu_ms() { # FILE
  awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); ms += (t[1] * 60 + t[2]) * 1000 } }
       END { printf "%.1f\n", ms }' "$1"
}

# The children's CPU (ms) between two `times` outputs, over N: per submission, for the scripts
# that time N of them.
children_cpu_per_run_ms() { # BEFORE_FILE AFTER_FILE N
  awk -v a="$(children_cpu_ms "$1")" -v b="$(children_cpu_ms "$2")" -v n="$3" \
    'BEGIN { printf "%.3f\n", (b - a) / n }'
}

# Lines "USER SYS" (seconds, from bash's `time` with TIMEFORMAT='%3U %3S') -> the process's
# CPU time, their sum, in ms, a line each.
cpu_ms() {
  awk '{ printf "%.3f\n", ($1 + $2) * 1000 }'
}

sdiag_value() { # SECTION (main | backfill) LABEL ("Mean cycle", "Total cycles", ...)
  sdiag | sdiag_field "$@"
}

sdiag_field() { # SECTION LABEL: sdiag_value from sdiag's output on stdin
  awk -v want="$1" -v label="$2" '
    /^Main schedule statistics/ { s = "main" }
    /^Backfilling stats/ { s = "backfill" }
    /^(Latency for|Remote Procedure Call|Pending RPC)/ { s = "" }
    s == want {
      line = $0; sub(/^[ \t]+/, "", line)
      if (index(line, label ":") == 1) {
        sub(/^[^:]*:[ \t]*/, "", line); split(line, v, /[ \t]/); print v[1]; exit
      }
    }'
}


# The site from nothing: the cluster started fresh, the accounts, the busy nodes and the queue.
site_build() {
  local n k from to per t0 pids=()
  fixture_dates
  make_budget_conf
  export EXTRA_PLUGIN_DIR=$plugin_dir
  export EXTRA_SLURM_CONF="MaxJobCount=200000"
  FRESH=1 cluster_start
  make_accounts

  say "keeping the 4 nodes busy"
  for ((n = 0; n < 4; n++)); do
    sbatch -Q -A "$(account_name "$n")" -p normal -N1 --exclusive -t 600 -o /dev/null \
      --chdir="$work" --wrap 'sleep 36000' >/dev/null
  done
  _lc_wait_for 60 "the nodes to be busy" slurmctld \
    bash -c '[[ $(squeue -h -t R -o %i | wc -l) -eq 4 ]]'

  say "queueing $jobs pending jobs ($submitters submitters)"
  t0=$SECONDS
  per=$(((jobs + submitters - 1) / submitters))
  for ((k = 0; k < submitters; k++)); do
    from=$((submit_timed + k * per))
    to=$((submit_timed + (k + 1) * per))
    ((to > submit_timed + jobs)) && to=$((submit_timed + jobs))
    submit_range "$from" "$to" &
    pids+=($!)
  done
  for n in "${pids[@]}"; do
    wait "$n"
  done
  say "$(pending_count) pending jobs after $((SECONDS - t0)) s"
}

# slurmctld stopped and set up to start with priority/PLUGIN on the site's queue, MORE lines
# appended to its slurm.conf; the caller starts it (cluster_start_ctld). Log level verbose for
# both (log_flag lines are verbose). DebugFlags=Priority makes multifactor log every job of every
# pass: only the budget plugin, whose only Priority line in a pass is its timing, runs with it,
# unless DEBUG_PRIORITY is 0 (to compare a budget phase without it).
# Once priority/budget has run on the site (its ledger exists), multifactor starts without the
# RawUsage (GPU-seconds) it published as its usage history; priority/budget finds the past usage
# in its ledger. MinJobAge=2 purges a finished job's record within about 10 s (slurmctld then
# purges every max(10, MinJobAge) s), so that a phase can wait for the purge of the jobs it
# cancelled (wait_purged) instead of having it fall, MinJobAge's default 300 s later, on whatever
# the phase measures then.
ctld_switch_to() { # PLUGIN [MORE [DEBUG_PRIORITY (1: default, 0)]]
  local plugin=$1 more=${2:-} debug_priority=${3:-1}
  export PRIORITY_TYPE=priority/$plugin
  export EXTRA_PLUGIN_DIR=$plugin_dir
  EXTRA_SLURM_CONF="MaxJobCount=200000
MinJobAge=2
SlurmctldDebug=verbose
PriorityParameters=budget_conf=$work/budget.conf"
  [[ "$plugin" == budget && "$debug_priority" == 1 ]] && EXTRA_SLURM_CONF+=$'\nDebugFlags=Priority'
  [[ -n "$more" ]] && EXTRA_SLURM_CONF+=$'\n'"$more"
  export EXTRA_SLURM_CONF
  cluster_stop_ctld
  if [[ "$plugin" == multifactor && -f "$ledger" ]]; then
    rm -f "$lc/spool/ctld/assoc_usage" "$lc/spool/ctld/assoc_usage.old"
  fi
  if [[ "$plugin" == budget && -x "$sbudget" && ! -f "$ledger" ]]; then
    make_usage_csv
    "$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" "$work/usage.csv" \
      >/dev/null
    say "past usage imported into the ledger"
  fi
  : >"$lc/log/slurmctld.log"
}
