#!/usr/bin/env bash
# cluster_stop.sh BUILD_DIR: stopping the local cluster leaves no job running.
#
# slurmstepd and a job's processes are not children of slurmd: a job that the stop does not
# cancel keeps running after every daemon is gone, on a machine that has to be left clean.
# Starts a fresh cluster under priority/multifactor (the stop does not depend on the priority
# plugin) with MinJobAge=2, the benchmark's setting, so that slurmctld purges records while the
# stop cancels. Then checks:
#   1. with every node busy and jobs pending behind them, cluster_stop leaves no process of any
#      job: neither of the running ones nor of pending ones that the scheduler starts on the
#      nodes the cancel frees;
#   2. when the slurmds stop while a job is still running (nothing cancelled it), the stop's last
#      resort kills that job's slurmstepd and processes, and says so.
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: cluster_stop.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch cluster-stop
scenario_traps

export PRIORITY_TYPE=priority/multifactor
export EXTRA_SLURM_CONF="MinJobAge=2"
pending_n=${CLUSTER_STOP_PENDING:-50}
# Every job's process runs as argv[0] $marker: what is left of the jobs is found by it.
marker=budget-stop-$$
killed_said="SIGKILL to what the jobs left running"

start_cluster() {
  FRESH=1 cluster_start
  accounts_account p_stop
  accounts_user root p_stop
}

printf '#!/bin/bash\nexec -a %s sleep 36000\n' "$marker" >"$work/job.sh"

submit() { # COUNT: jobs of one whole node each that run until cancelled
  local i
  for ((i = 0; i < $1; i++)); do
    sbatch -Q -A p_stop -N1 --exclusive -t 600 -o /dev/null "$work/job.sh" >/dev/null
  done
}

running_count() { squeue -h -t running -o %i | wc -l; }
running_are() { (($(running_count) == $1)); }
job_processes() { pgrep -a -f "^$marker" || true; }
processes_are() { (($(job_processes | wc -l) == $1)); }
jobs_left_nothing() {
  local left
  left=$(job_processes)
  [[ -z "$left" ]] || printf 'left running:\n%s\n' "$left" >&2
  [[ -z "$left" ]]
}

section "cluster_stop with 4 jobs running and $pending_n pending"
start_cluster
submit 4
wait_for 60 "the 4 jobs to run" running_are 4
wait_for 30 "their processes to start" processes_are 4
submit "$pending_n"
check "the 4 jobs run and $pending_n are pending" \
  test "$(running_count) $(squeue -h -t pending -o %i | wc -l)" = "4 $pending_n"
cluster_stop 2>"$work/stop1.err"
cat "$work/stop1.err" >&2
check "no process of any job is left" jobs_left_nothing
check "the cancel reached every job: nothing was left to kill" \
  test "$(grep -c "$killed_said" "$work/stop1.err")" = 0

section "the slurmds stop while a job runs"
start_cluster
submit 1
wait_for 60 "the job to run" running_are 1
wait_for 30 "its process to start" processes_are 1
# slurmctld too: with it gone, the stop has nothing to cancel through.
mapfile -t slurmds < <(_lc_recorded | grep '^slurmd-')
_lc_stop_daemons "${slurmds[@]}" slurmctld
check "the job outlives the slurmds and slurmctld" processes_are 1
cluster_stop 2>"$work/stop2.err"
cat "$work/stop2.err" >&2
check "the stop killed what the job left running" jobs_left_nothing
check "and said so" grep -q "$killed_said" "$work/stop2.err"

summary
