#!/usr/bin/env bash
# sprio_ab.sh BUILD_DIR OUT_DIR [--smoke]: `sprio -l` under priority/multifactor and under one or
# two builds of priority/budget, in alternating phases on the site of bench/e2e.sh
# (docs/performance.md, "sprio's answer: the plugin's part and Slurm's").
#
# bench/e2e.sh times `sprio -l` ten times a plugin, once a round, with 20 minutes between the two
# plugins' phases; this script puts the phases side by side on one queue and repeats them, so
# that two phases of one build give the noise (A/A) and the others the difference (A/B). Each
# phase restarts slurmctld with its plugin, lets it settle SETTLE seconds (its first pass),
# counts sprio's rows, resets sdiag, then runs `sprio -l` RUNS times one after the other and
# records each one's wall time and slurmctld's mean time in the RPC (sdiag,
# REQUEST_PRIORITY_FACTORS: the plugin's list, its packing and sending, and its free), then
# does the same for `sshare -a -l` (REQUEST_SHARE_INFO).
#
# A plan entry is "LABEL PLUGIN [OPTION...]", PLUGIN one of multifactor, budget (BUILD_DIR's) or
# budget=DIR (the priority_budget.so in DIR, say a build of the commit before a change). Options:
#   nodebug     starts a budget phase without DebugFlags=Priority, its one other slurm.conf line
#   fixedmalloc starts slurmctld with GLIBC_TUNABLES=$AB_FIXED_MALLOC (default: trim threshold
#               256 MiB, mmap threshold 32 MiB), which turns off glibc's dynamic thresholds: what
#               an answer frees then stays in the process whatever it freed before
#               (docs/performance-log.md, sprio A/B runs 16 to 19)
# A phase's options follow its plugin in its line (plugin=budget,nodebug), and bench/ab_pairs.py
# pairs only phases without options.
# A budget phase appends the JobCompLoc line that puts its job records at the offset modulo 64
# where multifactor's start (match_job_layout, bench/lib/e2e_site.sh; OUT_DIR/sprio_ab-layout.txt),
# or BENCH_CONF_BUDGET if it is set (empty: nothing): the list's walk over the records is most of
# its cost. A nodebug phase's slurm.conf is a line shorter, and a budget=DIR phase's plugin
# directory another string: either may move them again, and each phase's layout is in its line.
# Writes OUT_DIR/sprio_ab.txt, one line a phase:
#   LABEL plugin=P dir=D (- for multifactor) rows=N bytes=S (of one `sprio -l`'s output) runs=K
#     wall_median_ms=W wall_min_ms=F (the fastest run: it misses the machine's slow spells
#     unless they fill the phase) client_cpu_median_ms=C (the sprio process's own user + system)
#     yardstick_cpu_median_ms=Y (`gzip -1` of the same 2.6 MB before each sprio run: the
#     machine's speed) wall_per_yardstick_median=WY client_cpu_per_yardstick_median=CY (each
#     run's wall and client CPU over the yardstick run just before it; A/B run 9 found the
#     machine's slow spells shorter than a run, so these follow a phase's share of slow spells,
#     not which run a spell hit)
#     rpc_mean_us=R
#     list_build_median_ms=B (the plugin's priority_p_get_priority_factors_list, which builds the
#     answer under the job read lock: uprobes, n/a without them) and the job records' layout
#     (bench/job_layout.py: start offsets mod 64; the walk over them is most of the list's cost)
#     sshare_wall_median_ms=SW sshare_wall_min_ms=SF sshare_rpc_mean_us=SR (`sshare -a -l` run
#     RUNS times after sprio: its wall time and slurmctld's mean time in REQUEST_SHARE_INFO)
#     idle_ctld_cpu_ms=I idle_machine_busy_pct=M idle_steal_pct=S (IDLE seconds after the
#     settle, before any client: slurmctld's CPU time, all threads, the machine's busy share and
#     the share the hypervisor took) and the same three as runs_* over the sprio and sshare runs
# and OUT_DIR/sprio_ab-LABEL-wall.txt, OUT_DIR/sprio_ab-LABEL-sshare-wall.txt (each run's wall
# time, ms), OUT_DIR/sprio_ab.md (bench/ab_pairs.py: the n-th multifactor phase paired with the
# n-th budget phase, pooled), OUT_DIR/sprio_ab-LABEL-{cpu,yardstick}.txt (each sprio run's and each yardstick
# run's user and system CPU, s), OUT_DIR/sprio_ab-LABEL-{idle,runs}-{threads,procs}.txt (those
# windows by slurmctld thread and by process) and OUT_DIR/sprio_ab-LABEL-{sprio,sshare}.txt
# (one answer of each, to compare the plugins' answers) and OUT_DIR/sprio_ab-LABEL-passes.txt
# (priority/budget's DebugFlags=Priority pass lines of the phase; empty for multifactor).
#
# Run it under the cluster lock, as every cluster user on this machine does:
#   flock /tmp/budget-cluster.lock bench/sprio_ab.sh build/perf bench-results
# Knobs (environment): BENCH_ACCOUNTS=500 BENCH_JOBS=20000 BENCH_SETTLE=70 BENCH_SUBMITTERS=4
# AB_RUNS=30, AB_IDLE=20, AB_PLAN="mf1 multifactor;bu1 budget;mf2 multifactor;bu2 budget",
# AB_FIXED_MALLOC (the fixedmalloc option's tunables), AB_PERF=0 and AB_PERF_HZ=4999 (profile_start).
# Keep two multifactor phases out of a row in a plan: a multifactor slurmctld started after one
# faults in again, every other sprio, what the answer before freed (glibc's dynamic malloc
# thresholds; docs/performance-log.md, sprio A/B runs 16 and 17), which weighs on multifactor.
# --smoke sets 20 accounts, 200 jobs, SETTLE 20, IDLE 5 and 3 runs (checks that it runs).
# Stops every daemon it started, also on failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=../tests/integration/lib/cluster.sh
source "$repo/tests/integration/lib/cluster.sh"
# shellcheck source=../tests/integration/lib/budget_fixture.sh
source "$repo/tests/integration/lib/budget_fixture.sh"
# shellcheck source=lib/e2e_site.sh
source "$here/lib/e2e_site.sh"
site_init sprio_ab.sh sprio "$@"

ab_site_knobs
if ((smoke)); then
  runs=${AB_RUNS:-3} idle=${AB_IDLE:-5}
else
  runs=${AB_RUNS:-30} idle=${AB_IDLE:-20}
fi
profile_label=""
fixed_malloc=${AB_FIXED_MALLOC:-glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432}

say() { printf '[sprio_ab] %s\n' "$*" >&2; }

cleanup() {
  perf_ctld_stop
  uprobes_stop
  cluster_stop
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The plugin's own part of each answer: priority_g_get_priority_factors_list, entry to return
# (uprobes on libslurmfull), which builds the list under the job read lock. Empty without
# tracefs or the symbol.
uprobe_group=budget_sprio_ab probing=0

probes_start() {
  local lib
  lib=$(slurmfull_of "$(readlink -f /usr/sbin/slurmctld)")
  if uprobe_pair_add "$lib" priority_g_get_priority_factors_list list; then
    probing=1
  else
    say "no uprobes on priority_g_get_priority_factors_list: its time is not measured"
  fi
}

# A window of the phase, from window_start to window_end LABEL NAME: slurmctld's CPU by thread
# (those alive at both ends) and each process's CPU in
# OUT_DIR/sprio_ab-LABEL-NAME-{threads,procs}.txt; prints "NAME_ctld_cpu_ms=C
# NAME_machine_busy_pct=B NAME_steal_pct=S" for the phase's line.
window_start() {
  thread_snapshot "$(_lc_pid slurmctld)" >"$work/threads0"
  process_snapshot >"$work/procs0"
  grep '^cpu ' /proc/stat >"$work/stat0"
}

window_end() { # LABEL NAME
  local prefix="$out/sprio_ab-$1-$2" pid
  grep '^cpu ' /proc/stat >"$work/stat1" # before the snapshots, which take CPU themselves
  pid=$(_lc_pid slurmctld)
  thread_snapshot "$pid" >"$work/threads1"
  process_snapshot >"$work/procs1"
  thread_delta "$work/threads0" "$work/threads1" >"$prefix-threads.txt"
  process_delta "$work/procs0" "$work/procs1" >"$prefix-procs.txt"
  # The process's own count: it keeps the CPU of the RPC threads that ended in the window.
  printf '%s_ctld_cpu_ms=%s ' "$2" \
    "$(awk -v pid="$pid" '$1 == pid { ms = $3 } END { print ms + 0 }' "$prefix-procs.txt")"
  cpu_delta "$work/stat0" "$work/stat1" |
    awk -v w="$2" '{ printf "%s_machine_busy_pct=%.1f %s_steal_pct=%.1f\n", w, 100 - $6, w, $8 }'
}

# AB_PERF=1: where slurmctld spends its CPU through the sprio runs, sampled by `perf record`
# (cpu-clock, no call graphs: Debian's libraries have no frame pointers), by library and
# function, in OUT_DIR/sprio_ab-LABEL-perf.txt. Sampling costs both plugins the same few
# per cent of the RPC's time.

profile_start() { # LABEL
  ((${AB_PERF:-0})) || return 0
  perf_ctld_start "$work/perf-$1.data" "${AB_PERF_HZ:-4999}" -e cpu-clock || {
    say "AB_PERF=1 needs perf (apt-get install linux-perf)"
    return 0
  }
  profile_label=$1
}

profile_end() {
  [[ -n "$profile_label" ]] || return 0
  perf_ctld_stop
  perf report -i "$work/perf-$profile_label.data" --stdio --sort dso,sym --percent-limit 0.3 \
    2>>"$work/perf.err" | grep -v '^$' >"$out/sprio_ab-$profile_label-perf.txt" || true
  rm -f "$work/perf-$profile_label.data"
  profile_label=""
}

ratio_each() { # lines "A B" -> A / B, a line each
  awk '$2 > 0 { printf "%.3f\n", $1 / $2 }'
}

# yardstick_cpu_median_ms, and the sprio runs' wall and client CPU each divided by the
# yardstick's CPU just before it: medians of per-run ratios, so that a slow stretch inside a
# phase slows both terms of its ratio when it covers both runs (spells shorter than that do not
# pair up: docs/performance.md, A/B runs 8 and 9).
yardstick_fields() { # WALL_FILE CPU_FILE YARDSTICK_FILE
  local stick
  stick=$(cpu_ms <"$3")
  printf 'yardstick_cpu_median_ms=%s wall_per_yardstick_median=%s client_cpu_per_yardstick_median=%s' \
    "$(median <<<"$stick")" \
    "$(paste "$1" <(echo "$stick") | ratio_each | median)" \
    "$(paste <(cpu_ms <"$2") <(echo "$stick") | ratio_each | median)"
}

ab_phase() { # LABEL PLUGIN [OPTION...]
  local label=$1 plugin dir debug_priority=1 more="" option options="" tunables=""
  ab_plan_plugin sprio_ab.sh "$label" "$2"
  plugin=$ab_plugin dir=${ab_plugin_dir:--}
  [[ "$plugin" == budget ]] && more=$budget_conf_line
  for option in "${@:3}"; do
    case $option in
      nodebug) debug_priority=0 ;;
      fixedmalloc) tunables=$fixed_malloc ;;
      *)
        echo "sprio_ab.sh: phase $label: option \"$option\" is not nodebug or fixedmalloc" >&2
        exit 2
        ;;
    esac
    options+=,$option
  done
  say "=== $label: priority/$plugin (from $dir)${options:+, options ${options#,}}"
  [[ "$dir" == - ]] || plugin_dir=$dir # what ctld_switch_to puts first in PluginDir
  ctld_switch_to "$plugin" "$more" "$debug_priority"
  # Only slurmctld gets the tunables: the clients and the slurmds run as in every other phase.
  ctld_tunables=$tunables ctld_start
  sleep "$settle"

  # What runs while nobody asks: a plugin's background work takes the CPU the clients need.
  local idle_use runs_use
  window_start
  sleep "$idle"
  idle_use=$(window_end "$label" idle)

  local rows bytes i t0 t1 layout wall="$out/sprio_ab-$label-wall.txt"
  local cpu="$out/sprio_ab-$label-cpu.txt" yardstick="$out/sprio_ab-$label-yardstick.txt"
  sprio -l >"$out/sprio_ab-$label-sprio.txt"
  rows=$(($(wc -l <"$out/sprio_ab-$label-sprio.txt") - 1)) # less its header
  sshare -a -l >"$out/sprio_ab-$label-sshare.txt"
  bytes=$(wc -c <"$out/sprio_ab-$label-sprio.txt")
  layout=$(job_layout_of "$(_lc_pid slurmctld)")
  sdiag -r >/dev/null
  window_start
  : >"$wall"
  : >"$cpu"
  : >"$yardstick"
  uprobes_enable 1
  profile_start "$label"
  # bash's time gives the CPU the sprio process itself used (user and system): the client's
  # share, which loads its configuration, unpacks, sorts (by job id, its default) and prints.
  # Before each run, the yardstick: the same plugin-free work every time, whose CPU time follows
  # the machine's speed (make_yardstick).
  local TIMEFORMAT='%3U %3S'
  for ((i = 0; i < runs; i++)); do
    { time gzip -1 -c "$work/yardstick.in" >/dev/null; } 2>>"$yardstick"
    t0=$EPOCHREALTIME
    { time sprio -l >/dev/null 2>>"$work/sprio.err"; } 2>>"$cpu"
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }' >>"$wall"
  done
  profile_end
  local build_ms=n/a
  if ((probing)); then
    uprobes_enable 0
    build_ms=$(uprobes_trace | entry_to_return_each list 1000 %.3f | median)
  fi
  # sshare's answer, the same number of times: Slurm copies and packs its association rows
  # under the assoc read lock, and the plugin is asked only for a user row without an effective
  # usage (neither plugin leaves one under fair tree, the benchmark's).
  local share_wall="$out/sprio_ab-$label-sshare-wall.txt"
  wall_ms_each "$runs" sshare -a -l >"$share_wall"
  runs_use=$(window_end "$label" runs)
  # Each phase restarts slurmctld on an emptied log (ctld_switch_to): its passes are kept here,
  # so that two builds' passes on one queue can be compared as well as their answers.
  grep -o "priority/budget: pass .*" "$lc/log/slurmctld.log" >"$out/sprio_ab-$label-passes.txt" ||
    true
  printf '%s plugin=%s%s dir=%s rows=%s bytes=%s runs=%s wall_median_ms=%s wall_min_ms=%s client_cpu_median_ms=%s %s rpc_mean_us=%s list_build_median_ms=%s %s sshare_wall_median_ms=%s sshare_wall_min_ms=%s sshare_rpc_mean_us=%s %s %s\n' \
    "$label" "$plugin" "$options" "$dir" "$rows" "$bytes" "$runs" \
    "$(median <"$wall")" "$(minimum <"$wall")" \
    "$(cpu_ms <"$cpu" | median)" "$(yardstick_fields "$wall" "$cpu" "$yardstick")" \
    "$(sdiag_rpc_us REQUEST_PRIORITY_FACTORS)" "$build_ms" "$layout" \
    "$(median <"$share_wall")" "$(minimum <"$share_wall")" \
    "$(sdiag_rpc_us REQUEST_SHARE_INFO)" "$idle_use" "$runs_use" | tee -a "$out/sprio_ab.txt" >&2
}

t_start=$SECONDS
site_build
budget_phase_line "$out/sprio_ab-layout.txt"
make_yardstick
probes_start
: >"$out/sprio_ab.txt"
for entry in "${plan[@]}"; do
  read -r -a words <<<"$entry"
  ((${#words[@]} >= 2)) || {
    echo "sprio_ab.sh: plan entry \"$entry\" is not LABEL PLUGIN [OPTION...]" >&2
    exit 2
  }
  ab_phase "${words[@]}"
done
python3 "$here/ab_pairs.py" "$out/sprio_ab.txt" wall_median_ms wall_min_ms client_cpu_median_ms \
  rpc_mean_us list_build_median_ms yardstick_cpu_median_ms rpc_mean_us/yardstick_cpu_median_ms \
  sshare_wall_median_ms sshare_rpc_mean_us >"$out/sprio_ab.md" ||
  say "no pairs of a multifactor and a budget phase: no $out/sprio_ab.md"
cat "$out/sprio_ab.md" >&2
say "done in $((SECONDS - t_start)) s: $out/sprio_ab.txt"
