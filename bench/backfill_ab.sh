#!/usr/bin/env bash
# backfill_ab.sh BUILD_DIR OUT_DIR [--smoke]: the backfill cycle under priority/budget and
# priority/multifactor, in alternating phases on the site of bench/e2e.sh (docs/performance-log.md,
# "The backfill cycle, phase by phase").
#
# bench/e2e.sh runs each plugin once; its backfill ratio moves from 1.01 to 1.65 between runs.
# This script runs a plan of phases on one queue, each with a label, a plugin and options, so
# that two phases of the same plugin give the noise (A/A) and phases of the two plugins the
# difference (A/B). Each phase restarts slurmctld with its plugin, lets it settle SETTLE seconds
# (the plugin's first pass), resets sdiag, and then over QUIET seconds records:
#   - every backfill cycle's time and start (sdiag's "Last cycle" and "Last cycle when", polled
#     every 2 s), the mean, and how long after the plugin's last pass each cycle began (the
#     pass times from its thread's CPU time, sampled every 0.2 s);
#   - per thread of slurmctld: CPU time, time runnable but waiting for a CPU, and context
#     switches (/proc/PID/task/*/schedstat and status);
#   - the machine's CPU split, steal included (/proc/stat);
#   - with perf: a profile of the backfill thread (2 kHz) and the annotated
#     preempt_p_preemptable, the function where run 10 found the difference;
#   - where the job records sit relative to cache lines (bench/job_layout.py): the layout with
#     the records 32 bytes past a line slows the walk under either plugin (A/B runs 5 to 7).
# A plan entry is "LABEL PLUGIN [from=LABEL] [slurm.conf line]": from=LABEL gives every pending
# job the priority it had in phase LABEL (scontrol update, after SETTLE), so that a plugin can be
# run on the other's queue order; a slurm.conf line such as PriorityCalcPeriod=1440 is appended
# to slurm.conf for that phase only.
# Writes OUT_DIR/backfill_ab.txt (one line a phase) and, per phase LABEL,
# OUT_DIR/backfill_ab-LABEL-{priorities,threads,cpu,profile,annotate,cycles,passes}.txt.
#
# Run it under the cluster lock, as every cluster user on this machine does:
#   flock /tmp/budget-cluster.lock bench/backfill_ab.sh build/perf bench-results
# Knobs (environment): BENCH_ACCOUNTS=500 BENCH_JOBS=20000 BENCH_QUIET=240 BENCH_SETTLE=70
# BENCH_SUBMITTERS=4, AB_PLAN="mf1 multifactor;bu1 budget;mf2 multifactor;bu2 budget".
# A phase's JobCompLoc=/tmp/p... line (unused under jobcomp/none) moves the job records in memory:
# its length shifts what slurmctld allocates before it reads its job state.
# --smoke sets 20 accounts, 200 jobs, QUIET 35 and SETTLE 20 (checks that it runs).
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
site_init backfill_ab.sh ab "$@"

ab_site_knobs
if ((smoke)); then
  quiet=${BENCH_QUIET:-35}
else
  quiet=${BENCH_QUIET:-240}
fi

has_perf=0
command -v perf >/dev/null && has_perf=1

say() { printf '[backfill_ab] %s\n' "$*" >&2; }

cleanup() {
  cluster_stop
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# When the priority plugin's thread (multifactor's decay, priority/budget's budget) ran a pass:
# its CPU time sampled every 0.2 s; a sample that grew by more than 0.3 ms after one that did not
# prints the wall-clock second of that sample. Runs until killed.
pass_watch() { # PID TID
  local stat=/proc/$1/task/$2/schedstat cpu last="" busy=0
  while read -r cpu _ <"$stat"; do
    if [[ -n "$last" ]] && ((cpu - last > 300000)); then
      ((busy)) || echo "${EPOCHREALTIME%.*}"
      busy=1
    else
      busy=0
    fi
    last=$cpu
    sleep 0.2
  done 2>/dev/null
}

# Each cycle of CYCLES ("microseconds start_epoch") as microseconds@seconds since the last pass
# of PASSES that began before it (? when none did).
cycles_since_pass() { # CYCLES PASSES
  awk -v passes="$(paste -sd' ' "$2")" 'BEGIN { n = split(passes, pass, " ") }
       { since = "?"
         for (i = 1; i <= n; i++) if (pass[i] <= $2) since = $2 - pass[i]
         printf "%s%s@%s", (NR > 1 ? "," : ""), $1, since }' "$1"
}

# Every pending job gets the priority it had in phase FROM.
transplant_priorities() { # FROM
  say "every pending job gets its priority of phase $1"
  # shellcheck disable=SC2016  # $0 and $1 are the inner sh's: a job id and its priority
  awk '$2 > 0 { print $1, $2 }' "$out/backfill_ab-$1-priorities.txt" |
    xargs -P 4 -n 2 sh -c 'scontrol update jobid="$0" priority="$1"'
}

ab_phase() { # LABEL PLUGIN [OPTIONS...]
  local label=$1 plugin=$2 from="" more="" option
  shift 2
  for option in "$@"; do
    case "$option" in
      from=*) from=${option#from=} ;;
      *) more+="${more:+$'\n'}$option" ;;
    esac
  done
  [[ "$plugin" == budget || "$plugin" == multifactor ]] || {
    echo "backfill_ab.sh: phase $label: plugin \"$plugin\" is neither budget nor multifactor" >&2
    exit 2
  }
  say "=== $label: priority/$plugin${from:+, the priorities of $from}${more:+, $more}"
  ctld_switch_to "$plugin" "$more"
  cluster_start_ctld
  sleep "$settle"
  [[ -n "$from" ]] && transplant_priorities "$from"
  squeue -h -t PD -o "%i %Q %P" >"$out/backfill_ab-$label-priorities.txt"

  local pid bf_tid prio_tid watch_pid="" perf_pid="" prefix="$out/backfill_ab-$label"
  pid=$(_lc_pid slurmctld)
  bf_tid=$(thread_tid "$pid" bckfl)
  prio_tid=$(thread_tid "$pid" decay budget)
  sdiag -r >/dev/null
  thread_snapshot "$pid" >"$work/threads0"
  grep '^cpu ' /proc/stat >"$work/stat0"
  if ((has_perf)) && [[ -n "$bf_tid" ]]; then
    perf record -q -F 2000 -t "$bf_tid" -o "$work/bf.perf" -- sleep "$quiet" >/dev/null 2>&1 &
    perf_pid=$!
  fi

  : >"$work/passes"
  if [[ -n "$prio_tid" ]]; then
    pass_watch "$pid" "$prio_tid" >"$work/passes" &
    watch_pid=$!
  fi
  local end=$((SECONDS + quiet)) seen="" total snapshot when
  : >"$work/cycles"
  while ((SECONDS < end)); do
    snapshot=$(sdiag)
    total=$(sdiag_field backfill "Total cycles" <<<"$snapshot")
    if [[ -n "$total" && "$total" != 0 && "$total" != "$seen" ]]; then
      when=$(sed -n 's/^[[:space:]]*Last cycle when:.*(\([0-9]*\))$/\1/p' <<<"$snapshot")
      echo "$(sdiag_field backfill "Last cycle" <<<"$snapshot") $when" >>"$work/cycles"
      seen=$total
    fi
    sleep 2
  done

  [[ -n "$perf_pid" ]] && { wait "$perf_pid" || true; }
  [[ -n "$watch_pid" ]] && { kill "$watch_pid" 2>/dev/null; wait "$watch_pid" || true; }
  cp "$work/cycles" "$prefix-cycles.txt"
  cp "$work/passes" "$prefix-passes.txt"
  thread_snapshot "$pid" >"$work/threads1"
  grep '^cpu ' /proc/stat >"$work/stat1"
  thread_delta "$work/threads0" "$work/threads1" >"$prefix-threads.txt"
  cpu_delta "$work/stat0" "$work/stat1" >"$prefix-cpu.txt"
  if [[ -n "$perf_pid" ]]; then
    perf report -i "$work/bf.perf" --stdio --no-children --sort dso,symbol --percent-limit 0.7 \
      2>/dev/null >"$prefix-profile.txt" || true
    perf annotate -i "$work/bf.perf" --stdio -s preempt_p_preemptable 2>/dev/null \
      >"$prefix-annotate.txt" || true
  fi
  local bf_cpu layout
  bf_cpu=$(awk '$2 == "bckfl" { print $3 }' "$prefix-threads.txt")
  layout=$(job_layout_of "$pid")
  printf '%s plugin=%s backfill_mean_us=%s cycles=%s depth=%s try_depth=%s main_mean_us=%s bckfl_cpu_ms=%s bckfl_voluntary_cs=%s passes=%s %s cpu="%s" per_cycle_us_at_s_after_pass=%s\n' \
    "$label" "$plugin" "$(sdiag_value backfill "Mean cycle")" \
    "$(sdiag_value backfill "Total cycles")" "$(sdiag_value backfill "Depth Mean")" \
    "$(sdiag_value backfill "Depth Mean (try depth)")" \
    "$(sdiag_value main "Mean cycle")" "${bf_cpu:-?}" \
    "$(awk '$2 == "bckfl" { print $6 }' "$prefix-threads.txt")" "$(wc -l <"$work/passes")" \
    "$layout" "$(cat "$prefix-cpu.txt")" \
    "$(cycles_since_pass "$work/cycles" "$work/passes")" | tee -a "$out/backfill_ab.txt" >&2
}

# --- the run -----------------------------------------------------------------------------------
t_start=$SECONDS
site_build
: >"$out/backfill_ab.txt"
for entry in "${plan[@]}"; do
  read -r -a words <<<"$entry"
  ((${#words[@]} >= 2)) || {
    echo "backfill_ab.sh: plan entry \"$entry\" is not LABEL PLUGIN [OPTIONS]" >&2
    exit 2
  }
  ab_phase "${words[@]}"
done
say "done in $((SECONDS - t_start)) s: $out/backfill_ab.txt"
