#!/usr/bin/env bash
# run-all.sh BUILD_DIR: every integration scenario against a real local cluster, in turn.
# Each script starts the daemons it needs and stops them, also on failure.
set -uo pipefail
build=$(cd "${1:?usage: run-all.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# One cluster at a time on this machine (fixed ports, one MariaDB): wait for any other.
exec 9>/tmp/budget-cluster.lock
flock 9

failed=()
for test in plugin_scenarios lifecycle_scenarios sbudget_scenarios replay_order package_install \
  slurm_user_scenarios month_boundary cluster_stop; do
  echo "##### $test"
  started=$SECONDS
  if ! "$here/$test.sh" "$build"; then
    failed+=("$test")
  fi
  echo "##### $test: $((SECONDS - started)) s"
done
if ((${#failed[@]})); then
  echo "integration tests failed: ${failed[*]}" >&2
  exit 1
fi
echo "integration tests passed"
