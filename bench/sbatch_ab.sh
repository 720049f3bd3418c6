#!/usr/bin/env bash
# sbatch_ab.sh BUILD_DIR OUT_DIR [--smoke]: sbatch under priority/multifactor and priority/budget
# in many short alternating phases on the site of bench/e2e.sh (docs/performance.md, "sbatch:
# many phases").
#
# bench/e2e.sh times 250 submissions a plugin once a round, 20 minutes of other measurements
# apart. Slurm's test of the nodes in each submission (select_nodes, whose preemption check walks
# every job record) takes 0.19 to 0.67 ms from one phase to the next under either plugin, so the
# sbatch line needs many phases of each plugin more than many submissions in one. This script
# runs only the submissions: each phase restarts slurmctld with its plugin on the same queue,
# waits SETTLE seconds (past the plugin's first pass, as e2e.sh's BENCH_SUBMIT_AT), resets
# sdiag, then submits the same SUBMITS jobs one after the other, times each, cancels them and
# waits for their records to be purged. The default plan turns the order every pair (ABBA), so
# that a drift of the machine over the run weighs on both plugins alike.
#
# A plan entry is "LABEL PLUGIN", PLUGIN one of multifactor, budget (BUILD_DIR's) or budget=DIR.
# A budget phase appends a JobCompLoc line to slurm.conf whose length puts its job records at
# the offset modulo 64 where multifactor's start (match_job_layout, in bench/lib/e2e_site.sh: a
# few restarts of slurmctld before the first phase; OUT_DIR/sbatch_ab-layout.txt), or
# BENCH_CONF_BUDGET if it is set (empty: nothing). A budget=DIR phase's plugin directory is
# another string and may move them again: each phase's layout is in its line.
# Writes OUT_DIR/sbatch_ab.txt, one line a phase:
#   LABEL plugin=P dir=D submits=N per_job_ms=T (the submissions' wall time over N, e2e.sh's
#     "sbatch, time per job") wall_median_ms=W client_cpu_ms=C (the CPU time of the clients each
#     submission starts, the sbatch process and the shell's own subshells, over N: code that is
#     the same under both plugins) rpc_mean_us=R (sdiag, REQUEST_SUBMIT_BATCH_JOB)
#     select_median_us=S select_mean_us=M (select_nodes on the RPC threads, uprobes; n/a without
#     them) select_first_us=F select_last_us=L (the medians of the first and the last quarter of
#     the phase's submissions: whether the test's time is the phase's or settles within it)
#     rpc_cpu_us=C rpc_threads=K (the time on a CPU of slurmctld's RPC threads over the
#     submissions, sched_switch events, over N; K threads ran: N, unless another client called.
#     Unlike sdiag's mean it holds no wait for a lock or for a CPU in the guest; where the guest
#     counts no steal time it holds the hypervisor's)
#     yardstick_cpu_median_ms=Y (`gzip -1` of 2.6 MB, five times before the submissions: the
#     machine's speed), heap_in_use_mib=H and rss_mib=M (after the purge of the phase's jobs,
#     with the site's queue alone: the bytes slurmctld's malloc holds in use, from
#     malloc_stats through gdb, n/a without it, and its VmRSS) and the job records' layout
#     (bench/job_layout.py)
# OUT_DIR/sbatch_ab-LABEL-{wall,select}.txt (each submission's wall time in ms and each test of
# the nodes in µs, in order), OUT_DIR/sbatch_ab-LABEL-trace.txt (the phase's tracefs trace) and
# OUT_DIR/sbatch_ab.md: bench/ab_pairs.py's table of the pairs.
#
# Run it under the cluster lock, as every cluster user on this machine does:
#   flock /tmp/budget-cluster.lock bench/sbatch_ab.sh build/perf bench-results
# Knobs (environment): BENCH_ACCOUNTS=500 BENCH_JOBS=20000 BENCH_SUBMITTERS=4 BENCH_SETTLE=15
# AB_SUBMITS=500 AB_PAIRS=8 (the default plan: mf1 bu1, bu2 mf2, mf3 bu3, ...), or AB_PLAN as in
# bench/sprio_ab.sh; BENCH_CONF_BUDGET (above).
# --smoke sets 20 accounts, 200 jobs, 20 submissions and 2 pairs (checks that it runs).
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
site_init sbatch_ab.sh sbatch "$@"

ab_site_knobs
settle=${BENCH_SETTLE:-15}
if ((smoke)); then
  submits=${AB_SUBMITS:-20} pairs=${AB_PAIRS:-2}
else
  submits=${AB_SUBMITS:-500} pairs=${AB_PAIRS:-8}
fi
# Job numbers below submits are the timed jobs, the same in every phase; the queue takes the rest.
submit_timed=$submits
if [[ -z "${AB_PLAN:-}" ]]; then
  plan=()
  for ((k = 1; k <= pairs; k++)); do
    if ((k % 2)); then
      plan+=("mf$k multifactor" "bu$k budget")
    else
      plan+=("bu$k budget" "mf$k multifactor")
    fi
  done
fi

say() { printf '[sbatch_ab] %s\n' "$*" >&2; }

cleanup() {
  uprobes_stop
  cluster_stop
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Slurm's test of the nodes for each submission: select_nodes, entry to return, on the RPC
# threads only ("srvcn"; the scheduler threads call it too) and enabled only while the phase
# submits.
# The RPC threads' time on a CPU: the scheduler's switches into and out of them (their creator
# is the thread named rpcmgr).
uprobe_group=budget_sbatch_ab probing=0 switching=0

probes_start() {
  if uprobe_pair_add "$(readlink -f /usr/sbin/slurmctld)" select_nodes sel srvcn; then
    probing=1
  else
    say "no uprobes on select_nodes: the test of the nodes is not timed"
  fi
  if switches_add srvcn rpcmgr; then
    switching=1
  else
    say "no sched_switch events: the RPC threads' time on a CPU is not measured"
  fi
}

mean() {
  awk '{ s += $1; n++ } END { if (n) printf "%.1f\n", s / n; else print "nan" }'
}

# The median of the first (FIRST=1) or the last quarter of the lines on stdin.
quarter_median() { # FIRST
  local lines
  lines=$(cat)
  local n q
  n=$(grep -c . <<<"$lines" || true)
  q=$(((n + 3) / 4))
  if (($1)); then head -n "$q" <<<"$lines"; else tail -n "$q" <<<"$lines"; fi | median
}

ab_phase() { # LABEL PLUGIN
  local label=$1 plugin dir more=""
  ab_plan_plugin sbatch_ab.sh "$label" "$2"
  plugin=$ab_plugin dir=${ab_plugin_dir:--}
  [[ "$plugin" == budget ]] && more=$budget_conf_line
  say "=== $label: priority/$plugin (from $dir)"
  [[ "$dir" == - ]] || plugin_dir=$dir # what ctld_switch_to puts first in PluginDir
  ctld_switch_to "$plugin" "$more"
  cluster_start_ctld
  sleep "$settle"

  local stick="$work/yardstick.txt" i
  : >"$stick"
  local TIMEFORMAT='%3U %3S'
  for ((i = 0; i < 5; i++)); do
    { time gzip -1 -c "$work/yardstick.in" >/dev/null; } 2>>"$stick"
  done
  local layout wall="$out/sbatch_ab-$label-wall.txt" select="$out/sbatch_ab-$label-select.txt"
  local ids=() t0=() t1=() start end
  layout=$(job_layout_of "$(_lc_pid slurmctld)")
  sdiag -r >/dev/null
  uprobes_enable 1
  # Each submission's start and end, turned into times after the loop: a process started
  # between two submissions costs this machine several ms.
  times >"$work/times-before" # the clients' CPU: children_cpu_per_run_ms
  start=$EPOCHREALTIME
  for ((i = 0; i < submits; i++)); do
    t0+=("$EPOCHREALTIME")
    ids+=("$(submit_one "$i")")
    t1+=("$EPOCHREALTIME")
  done
  end=$EPOCHREALTIME
  times >"$work/times-after"
  paste <(printf '%s\n' "${t0[@]}") <(printf '%s\n' "${t1[@]}") |
    awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >"$wall"
  local rpc select_fields="select_median_us=n/a select_mean_us=n/a select_first_us=n/a select_last_us=n/a"
  local cpu_fields="rpc_cpu_us=n/a rpc_threads=n/a" trace="$out/sbatch_ab-$label-trace.txt" cpu
  uprobes_enable 0 # before sdiag, whose RPC thread is not a submission's
  ((probing || switching)) && uprobes_trace >"$trace"
  rpc=$(sdiag_rpc_us REQUEST_SUBMIT_BATCH_JOB)
  if ((switching)); then
    read -r -a cpu < <(cpu_of_threads srvcn <"$trace")
    cpu_fields="rpc_cpu_us=$(awk -v ms="${cpu[0]}" -v n="$submits" 'BEGIN { printf "%.1f", ms * 1000 / n }')"
    cpu_fields+=" rpc_threads=${cpu[1]}"
  fi
  if ((probing)); then
    entry_to_return_each sel 1e6 %.1f <"$trace" >"$select"
    select_fields="select_median_us=$(median <"$select") select_mean_us=$(mean <"$select")"
    select_fields+=" select_first_us=$(quarter_median 1 <"$select")"
    select_fields+=" select_last_us=$(quarter_median 0 <"$select")"
  fi
  scancel "${ids[@]}"
  wait_purged "${ids[-1]}" || true
  # The site's queue again, as every phase leaves it: what slurmctld's heap holds for it.
  local pid heap rss
  pid=$(_lc_pid slurmctld)
  heap=$(heap_in_use_mib "$pid" "$lc/log/slurmctld.out")
  rss=$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
  printf '%s plugin=%s dir=%s submits=%s per_job_ms=%s wall_median_ms=%s client_cpu_ms=%s rpc_mean_us=%s %s %s yardstick_cpu_median_ms=%s heap_in_use_mib=%s rss_mib=%s %s\n' \
    "$label" "$plugin" "$dir" "$submits" \
    "$(awk -v n="$submits" -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) * 1000 / n }')" \
    "$(median <"$wall")" \
    "$(children_cpu_per_run_ms "$work/times-before" "$work/times-after" "$submits")" \
    "$rpc" "$select_fields" "$cpu_fields" "$(cpu_ms <"$stick" | median)" \
    "$heap" "$rss" \
    "$layout" |
    tee -a "$out/sbatch_ab.txt" >&2
}

t_start=$SECONDS
site_build
budget_phase_line "$out/sbatch_ab-layout.txt"
make_yardstick
probes_start
: >"$out/sbatch_ab.txt"
for entry in "${plan[@]}"; do
  read -r -a words <<<"$entry"
  ((${#words[@]} == 2)) || {
    echo "sbatch_ab.sh: plan entry \"$entry\" is not LABEL PLUGIN" >&2
    exit 2
  }
  ab_phase "${words[@]}"
done
python3 "$here/ab_pairs.py" "$out/sbatch_ab.txt" per_job_ms wall_median_ms client_cpu_ms rpc_mean_us \
  rpc_cpu_us select_median_us select_mean_us yardstick_cpu_median_ms \
  rpc_cpu_us/yardstick_cpu_median_ms per_job_ms/yardstick_cpu_median_ms \
  client_cpu_ms/yardstick_cpu_median_ms heap_in_use_mib rss_mib \
  >"$out/sbatch_ab.md"
cat "$out/sbatch_ab.md" >&2
say "done in $((SECONDS - t_start)) s: $out/sbatch_ab.txt, $out/sbatch_ab.md"
