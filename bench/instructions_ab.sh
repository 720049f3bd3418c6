#!/usr/bin/env bash
# instructions_ab.sh BUILD_DIR OUT_DIR [--smoke]: the instructions slurmctld executes for each
# line of bench/e2e.sh under priority/multifactor and under priority/budget, counted by
# callgrind, in alternating phases on the site of bench/e2e.sh (docs/performance.md,
# "Instructions: the lines without the machine's drift").
#
# Time on this machine drifts by up to 1.5 between two phases of one plugin (A/B run 8), and the
# lines where the plugin's share is small (sprio, sbatch, the scheduler cycles) sit within that
# drift of 1.0. An instruction count does not drift: the same work gives the same count in any
# phase. It does not see cache misses or lock waits, so it stands beside the times, not instead of
# them. Each phase restarts slurmctld with its plugin under valgrind --tool=callgrind (one
# file per thread), lets it settle SETTLE seconds, and then counts, each window opened by
# `callgrind_control --zero` and closed by `--dump`:
#   idle    IDLE seconds with no client but sdiag: the priority plugin's thread a pass (the
#           passes are the calls into fair_tree_decay or _calc_pass), the main scheduler's and
#           the backfill thread's a cycle (sdiag's cycle counts over the window)
#   submit  SUBMITS plain sbatch, one after the other: slurmctld_req (the RPC's handling after its
#           message is read) a job, and the calls into job_allocate and priority_g_set
#   sprio   RUNS `sprio -l`: slurmctld_req a run, the calls into
#           priority_g_get_priority_factors_list; and one `sprio -l` client under callgrind
#   sshare  RUNS `sshare -a -l`: slurmctld_req a run
# (a slurmd's registration in a window would add to slurmctld_req's calls: the report gives them)
# then cancels its sbatch jobs and waits for their purge, so that every phase has the same queue.
# Threads are told apart by what they ran (bench/callgrind_window.py): Debian's slurmctld is
# stripped, and only its exported functions have names.
#
# A plan entry is "LABEL PLUGIN", PLUGIN multifactor, budget or budget=DIR (the
# priority_budget.so in DIR, say a build of the commit before a change). Writes
# OUT_DIR/instructions_ab.txt (one line a phase), OUT_DIR/instructions_ab.md
# (bench/instructions_report.py: Ir a unit, budget / multifactor) and
# OUT_DIR/instructions_ab-LABEL-WINDOW.json (each window's count by thread and function).
#
# Run it under the cluster lock, as every cluster user on this machine does:
#   flock /tmp/budget-cluster.lock bench/instructions_ab.sh build/perf bench-results
# AB_KEEP_DUMPS=1 keeps each window's callgrind files in OUT_DIR/dumps-LABEL-WINDOW/ (for
# callgrind_annotate; some 10 MB a window). AB_CALLGRIND_OPTIONS adds options to slurmctld's
# callgrind: "--cache-sim=yes" also counts each window's simulated cache misses (D1mr, DLmr...):
# each window's JSON then gives every event of the functions it names ("events"), and
# callgrind_annotate reads them from the kept dumps (the report still gives instructions).
# Knobs (environment): BENCH_ACCOUNTS=500 BENCH_JOBS=20000 BENCH_SETTLE=150 BENCH_SUBMITTERS=4,
# AB_IDLE=150 AB_SUBMITS=40 AB_RUNS=3, AB_PLAN="mf1 multifactor;bu1 budget;mf2 multifactor;bu2 budget".
# --smoke sets 20 accounts, 200 jobs, SETTLE 60, IDLE 70, 5 submissions, 1 run and the plan
# "mf1 multifactor;bu1 budget" (checks that it runs). Needs valgrind.
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
site_init instructions_ab.sh instr "$@"
build_plugin_dir=$plugin_dir

if ! command -v valgrind >/dev/null || ! command -v callgrind_control >/dev/null; then
  echo "instructions_ab.sh: needs valgrind and callgrind_control (apt-get install valgrind)" >&2
  exit 1
fi
ab_site_knobs
if ((smoke)); then
  settle=${BENCH_SETTLE:-60} idle=${AB_IDLE:-70} submits=${AB_SUBMITS:-5} runs=${AB_RUNS:-1}
  IFS=';' read -r -a plan <<<"${AB_PLAN:-mf1 multifactor;bu1 budget}"
else
  settle=${BENCH_SETTLE:-150} idle=${AB_IDLE:-150} submits=${AB_SUBMITS:-40} runs=${AB_RUNS:-3}
fi
# Under callgrind slurmctld runs some 50 times slower: reading 20,000 jobs' state at start, and
# saving it at stop, take minutes (a SIGKILL would lose the last dump, so the grace is long).
export CTLD_START_TIMEOUT=900 BUDGET_LC_GRACE=900

say() { printf '[instructions_ab] %s\n' "$*" >&2; }

cleanup() {
  cluster_stop
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The functions whose calls each window reports, by name (exported by slurmctld or
# libslurmfull; the plugins' own for the passes).
functions=(--function slurmctld_req --function job_allocate --function priority_g_set
  --function priority_g_get_priority_factors_list --function fair_tree_decay
  --function _calc_pass)

# Closes the window opened by the last `callgrind_control --zero`: dumps, and writes the dump's
# per-thread files, read by callgrind_window.py, to OUT_DIR/instructions_ab-LABEL-NAME.json.
window_dump() { # LABEL NAME
  local pid before after
  pid=$(_lc_pid slurmctld)
  before=$(ls "$work"/cg-"$1".* 2>/dev/null | sort)
  callgrind_control --dump="$2" "$pid" >/dev/null
  # The per-thread files of the dump just taken: those that were not there before.
  mapfile -t after < <(comm -13 <(echo "$before") <(ls "$work"/cg-"$1".* | sort))
  ((${#after[@]} > 0)) || {
    say "callgrind wrote no file for window $2"
    return 1
  }
  python3 "$here/callgrind_window.py" "${functions[@]}" "${after[@]}" \
    >"$out/instructions_ab-$1-$2.json"
  if [[ -n "${AB_KEEP_DUMPS:-}" ]]; then
    mkdir -p "$out/dumps-$1-$2"
    mv "${after[@]}" "$out/dumps-$1-$2/"
  else
    rm -f "${after[@]}"
  fi
}

window_zero() {
  callgrind_control --zero "$(_lc_pid slurmctld)" >/dev/null
}

ab_phase() { # LABEL PLUGIN
  local label=$1 plugin n ids=() main_cycles bf_cycles client_ir
  ab_plan_plugin instructions_ab.sh "$label" "$2"
  plugin=$ab_plugin
  say "=== $label: priority/$plugin under callgrind${2#"$plugin"}"
  # What ctld_switch_to puts first in PluginDir; a multifactor phase takes the build's.
  plugin_dir=${ab_plugin_dir:-$build_plugin_dir}
  ctld_switch_to "$plugin" "" 0
  export CTLD_VALGRIND="--tool=callgrind --separate-threads=yes --callgrind-out-file=$work/cg-$label.%p ${AB_CALLGRIND_OPTIONS:-}"
  cluster_start_ctld
  sleep "$settle"

  sdiag -r >/dev/null
  window_zero
  sleep "$idle"
  window_dump "$label" idle
  main_cycles=$(sdiag_value main "Total cycles")
  bf_cycles=$(sdiag_value backfill "Total cycles")

  window_zero
  for ((n = jobs; n < jobs + submits; n++)); do
    ids+=("$(submit_one "$n")")
  done
  sleep 2 # the last RPC thread's cleanup after its answer
  window_dump "$label" submit

  window_zero
  for ((n = 0; n < runs; n++)); do
    sprio -l >/dev/null
  done
  sleep 2
  window_dump "$label" sprio

  window_zero
  for ((n = 0; n < runs; n++)); do
    sshare -a -l >/dev/null
  done
  sleep 2
  window_dump "$label" sshare

  # The client's own share of `sprio -l`: it unpacks, sorts and prints what the plugin sent.
  valgrind --tool=callgrind --callgrind-out-file="$work/client-$label.out" sprio -l \
    >"$out/instructions_ab-$label-sprio.txt" 2>/dev/null
  client_ir=$(awk '/^totals:/ { print $2 }' "$work/client-$label.out")

  scancel "${ids[@]}"
  wait_purged "${ids[-1]}" || true
  cluster_stop_ctld
  unset CTLD_VALGRIND
  rm -f "$work"/cg-"$label".*

  printf '%s plugin=%s rows=%s idle_s=%s main_cycles=%s backfill_cycles=%s submits=%s runs=%s sprio_client_ir=%s\n' \
    "$label" "$plugin" "$(($(wc -l <"$out/instructions_ab-$label-sprio.txt") - 1))" "$idle" \
    "$main_cycles" "$bf_cycles" "$submits" "$runs" "$client_ir" | tee -a "$out/instructions_ab.txt" >&2
}

t_start=$SECONDS
site_build
: >"$out/instructions_ab.txt"
for entry in "${plan[@]}"; do
  read -r -a words <<<"$entry"
  ((${#words[@]} == 2)) || {
    echo "instructions_ab.sh: plan entry \"$entry\" is not LABEL PLUGIN" >&2
    exit 2
  }
  ab_phase "${words[@]}"
done
python3 "$here/instructions_report.py" "$out" | tee "$out/instructions_ab.md"
say "done in $((SECONDS - t_start)) s: $out/instructions_ab.md"
