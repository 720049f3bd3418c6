# scenario.sh: the opening every cluster scenario shares: its libraries, the usual paths, a scratch folder.
#
# Set `build` (the build folder, absolute), then source this file. It sources
# cluster.sh, accounts.sh, budget_fixture.sh and checks.sh, and sets
#   here      tests/integration
#   sbudget   the sbudget of the build
#   lc        the local cluster's root (BUDGET_LC, default /tmp/budget-lc)
#   ledger    the plugin's ledger in the cluster's StateSaveLocation
#   ctld_log  slurmctld's log
#
#   scenario_scratch NAME     makes $work, a fresh world-readable folder /tmp/budget-NAME.XXXXXX
#                             (slurmctld, running as SlurmUser, reads budget.conf from it)
#   scenario_traps            on exit calls the script's scenario_cleanup function if it has
#                             one, stops the cluster and removes $work, whatever the exit
#                             status; INT and TERM exit 130 and 143 through it
# shellcheck shell=bash

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=SCRIPTDIR/cluster.sh
source "$here/lib/cluster.sh"
# shellcheck source=SCRIPTDIR/accounts.sh
source "$here/lib/accounts.sh"
# shellcheck source=SCRIPTDIR/budget_fixture.sh
source "$here/lib/budget_fixture.sh"
# shellcheck source=SCRIPTDIR/checks.sh
source "$here/lib/checks.sh"

: "${build:?set build to the build folder before sourcing scenario.sh}"
# shellcheck disable=SC2034  # for the scripts that source this file
{
  sbudget=$build/src/cli/sbudget
  lc=${BUDGET_LC:-/tmp/budget-lc}
  ledger=$lc/spool/ctld/budget_ledger
  ctld_log=$lc/log/slurmctld.log
}
work=

scenario_scratch() {
  work=$(mktemp -d "/tmp/budget-$1.XXXXXX")
  chmod 755 "$work"
}

_scenario_exit() {
  if declare -F scenario_cleanup >/dev/null; then
    scenario_cleanup || true
  fi
  cluster_stop
  [[ -z $work ]] || rm -rf "$work"
}

scenario_traps() {
  trap _scenario_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
