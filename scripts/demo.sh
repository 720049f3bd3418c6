#!/usr/bin/env bash
# The main job, on a fresh Debian 12 machine (as root): installs the packages, builds the
# plugin and sbudget, starts a local GH200-shaped cluster (munge, MariaDB, slurmdbd,
# slurmctld with PriorityType=priority/budget, 4 slurmd with 4 GPUs each), loads a demo
# budget with three projects (one behind its linear line, one on it, one ahead), submits
# jobs from all three and shows sprio, sshare and sbudget, then the order the jobs ran in:
# the project behind its schedule first.
#
#   scripts/demo.sh          run the demo; the cluster stays up to play with
#   scripts/demo.sh stop     stop every daemon the demo started
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export BUDGET_LC=${BUDGET_LC:-/tmp/budget-lc}
work=${BUDGET_DEMO_DIR:-/var/tmp/budget-demo}

# shellcheck source=SCRIPTDIR/../tests/integration/lib/cluster.sh
source "$repo/tests/integration/lib/cluster.sh"

if [[ "${1:-}" == stop ]]; then
  cluster_stop
  exit 0
fi

# shellcheck source=SCRIPTDIR/../tests/integration/lib/accounts.sh
source "$repo/tests/integration/lib/accounts.sh"
# shellcheck source=SCRIPTDIR/../tests/integration/lib/budget_fixture.sh
source "$repo/tests/integration/lib/budget_fixture.sh"

banner() { printf '\n\033[1m### %s\033[0m\n' "$*"; }

banner "Installing packages and building (CMake preset ci)"
"$repo/scripts/install-deps.sh"
cmake --preset ci -S "$repo" >/dev/null
cmake --build "$repo/build/ci" -j2 --target priority_budget job_submit_budget sbudget
build=$repo/build/ci
sbudget=$build/src/cli/sbudget

banner "Demo budget: five large projects of 120,000 GPUh over 12 months"
mkdir -p "$work"
chmod 755 "$work"
fixture_dates
fixture_budget_conf "$work/budget.conf"
"$sbudget" check-config "$work/budget.conf"

export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
JobSubmitPlugins=budget"
FRESH=1 cluster_start
for p in behind on ahead close acct; do
  accounts_account "p_$p"
  accounts_user "u_$p" "p_$p"
done
banner "sbudget check-config --accounts: each project has its account in slurmdbd"
"$sbudget" check-config --accounts "$work/budget.conf" | tail -n 1

banner "Past usage: every month on the line; this month p_behind 100 GPUh, p_on 5,000, p_ahead 12,000 of 10,000"
fixture_usage_csv "$work/usage.csv"
cluster_stop_ctld
ledger=$BUDGET_LC/spool/ctld/budget_ledger
rm -f "$ledger" "$ledger.old"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" "$work/usage.csv"
cluster_start_ctld

banner "Jobs: the nodes are busy; p_ahead, then p_on, then p_behind submit two 2-node jobs each"
blocker=$(cluster_as u_acct sbatch --parsable -A p_acct -N4 --exclusive -t 2 -J busy \
  --chdir="$work" -o /dev/null --wrap 'sleep 20')
ids=("$blocker")
for p in ahead on behind; do
  for _ in 1 2; do
    ids+=("$(cluster_as "u_$p" sbatch --parsable -A "p_$p" -N2 --exclusive -t 2 \
      --gres=gpu:4 -J "$p" --chdir="$work" -o /dev/null --wrap 'sleep 20')")
  done
done
sleep 3

banner "squeue"
squeue -o '%.6i %.9u %.9a %.8j %.10Q %.8T %R'
banner "sprio -l   (FAIRSHARE = 10,000,000 x the budget factor)"
sprio -l
banner "sshare -a -l   (RawShares = expected GPUh this month, FairShare = the budget factor)"
sshare -a -l | cut -c1-122
banner "sbudget ledger show"
"$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger"

banner "Waiting for the jobs to run (about 90 s)"
until [[ -z "$(squeue -h -o %i)" ]]; do sleep 2; done
ids_csv=$(IFS=,; echo "${ids[*]}")
sacct -X -j "$ids_csv" -o JobID,JobName%8,Account%9,Start,End,NodeList | sort -k4
echo
echo "The jobs of p_behind (behind its line) ran first, p_ahead's last."
echo "The cluster is still up (SLURM_CONF=$BUDGET_LC/etc/slurm.conf)."
echo "Stop it with: scripts/demo.sh stop"
