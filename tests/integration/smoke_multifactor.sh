#!/usr/bin/env bash
# smoke_multifactor.sh: the local cluster runs whole-node GPU jobs under priority/multifactor.
#
# Starts a fresh cluster (tests/integration/lib/cluster.sh), creates accounts proj_a/proj_b
# with users alice/bob, submits 6 jobs of --gres=gpu:4 --exclusive on 4 nodes (two waves),
# waits for them, checks in sacct and in the job output that each ran on a whole node with
# its 4 GPUs, prints sprio and sshare, and stops every daemon (also on failure or Ctrl-C).
# Exits 0 when every check passes. Takes about a minute. Root only (it starts daemons).
# Environment: BUDGET_LC and the other knobs of cluster.sh; SMOKE_JOB_SECONDS=20.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib/cluster.sh
source "$here/lib/cluster.sh"
# shellcheck source=SCRIPTDIR/lib/accounts.sh
source "$here/lib/accounts.sh"

checks=0
failures=0
check() {
  local what=$1
  shift
  checks=$((checks + 1))
  if "$@"; then
    echo "ok   $what"
  else
    echo "FAIL $what" >&2
    failures=$((failures + 1))
  fi
}

trap cluster_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

FRESH=1 PRIORITY_TYPE=priority/multifactor cluster_start

accounts_account proj_a fairshare=50
accounts_account proj_b fairshare=50
accounts_user alice proj_a
accounts_user bob proj_b

jobs_dir=${BUDGET_LC:-/tmp/budget-lc}/jobs/smoke-$$
install -d -m 1777 "$jobs_dir"
job_seconds=${SMOKE_JOB_SECONDS:-20}

declare -A job_user=() job_account=()
submit() {
  local user=$1 account=$2 id
  id=$(cluster_as "$user" sbatch --parsable -A "$account" --gres=gpu:4 --exclusive -t 5 \
    --chdir="$jobs_dir" -o "$jobs_dir/%j.out" \
    --wrap "echo \"\$SLURMD_NODENAME \$CUDA_VISIBLE_DEVICES\"; sleep $job_seconds")
  job_user[$id]=$user
  job_account[$id]=$account
}
for _ in 1 2 3; do
  submit alice proj_a
  submit bob proj_b
done
ids=$(printf '%s\n' "${!job_user[@]}" | sort -n | paste -sd,)
echo "submitted jobs $ids"

# The first wave fills the 4 nodes; the scheduler needs a moment (longer on a busy machine).
for _ in $(seq 1 150); do
  [[ "$(squeue -h -t RUNNING -o %i | wc -l)" -eq 4 ]] && break
  sleep 0.2
done
echo "--- squeue"
squeue -o '%.6i %.8u %.8a %.8T %.12Q %R'
echo "--- sprio -l"
sprio -l
check "4 whole-node jobs run and 2 wait for a node" \
  test "$(squeue -h -t RUNNING -o %i | wc -l)/$(squeue -h -t PENDING -o %i | wc -l)" == 4/2

cluster_wait_idle 300

# slurmctld sends job completions to slurmdbd asynchronously.
sacct_rows() {
  sacct -a -X -n -P -j "$ids" -o JobID,User,Account,State,ExitCode,NNodes,AllocTRES
}
all_recorded() {
  [[ "$(sacct_rows | grep -c '|COMPLETED|')" -eq ${#job_user[@]} ]]
}
for _ in $(seq 1 100); do
  all_recorded && break
  sleep 0.3
done
echo "--- sacct"
sacct_rows
check "sacct records all ${#job_user[@]} jobs as COMPLETED" all_recorded

declare -A nodes_used=()
while IFS='|' read -r id user account state exit_code nnodes tres; do
  check "job $id ran as ${job_user[$id]:-?}/${job_account[$id]:-?}, exit 0:0, 1 node" \
    test "$user/$account/$state/$exit_code/$nnodes" == \
    "${job_user[$id]:-?}/${job_account[$id]:-?}/COMPLETED/0:0/1"
  check "job $id had the whole node and its 4 GPUs ($tres)" \
    grep -qE '(^|,)cpu=288(,|$).*gres/gpu=4(,|$)' <<<"$tres"
  out=$(cat "$jobs_dir/$id.out" 2>/dev/null || true)
  check "job $id saw CUDA_VISIBLE_DEVICES=0,1,2,3 (output: $out)" \
    grep -qE '^gh[0-9]+ 0,1,2,3$' <<<"$out"
  [[ -z "$out" ]] || nodes_used[${out%% *}]=1
done < <(sacct_rows)
check "the jobs used all 4 nodes (${!nodes_used[*]})" test "${#nodes_used[@]}" -eq 4

echo "--- sshare -a -l"
sshare -a -l

echo "$((checks - failures)) passed, $failures failed"
((failures == 0))
