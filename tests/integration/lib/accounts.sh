# accounts.sh: idempotent Linux users and Slurm accounts, users and QOS for integration tests.
# Source it after cluster.sh and call these once the cluster is up (they use $SLURM_CONF):
#   accounts_qos high priority=100
#   accounts_account proj_a fairshare=40
#   accounts_user alice proj_a qos=normal,high defaultqos=normal
#
# Functions (each may be run again with the same or new properties; returns non-zero on
# failure, after printing the sacctmgr error):
#   accounts_linux_user NAME...          creates Linux users (useradd -M, shell /bin/bash)
#   accounts_qos NAME [KEY=VALUE...]     adds the QOS, or sets the properties on the existing one
#   accounts_account NAME [KEY=VALUE...] adds the account (e.g. fairshare=40 parent=root), or
#                                        sets the properties on the existing one
#   accounts_user USER ACCOUNT [KEY=VALUE...]
#                                        creates the Linux user and the USER/ACCOUNT association
#                                        (properties as for `sacctmgr add user`, e.g.
#                                        fairshare=1 qos=normal,high defaultqos=normal), or sets
#                                        them on the existing association; then waits until
#                                        slurmctld knows it, so a job can be submitted at once
# shellcheck shell=bash
set -euo pipefail

accounts_linux_user() {
  local name
  for name in "$@"; do
    id -u "$name" >/dev/null 2>&1 && continue
    useradd -M -s /bin/bash "$name" || {
      echo "[accounts] useradd $name failed" >&2
      return 1
    }
  done
}

# Runs `sacctmgr -i ARGS`; "Nothing new added/modified" counts as success (already so).
_accounts_sacctmgr() {
  local out rc=0
  out=$(sacctmgr -i "$@" 2>&1) || rc=$?
  if ((rc != 0)) && ! grep -q 'Nothing \(new \)\?\(added\|modified\)' <<<"$out"; then
    echo "[accounts] sacctmgr $* failed (rc $rc):" >&2
    echo "$out" >&2
    return 1
  fi
  return 0
}

accounts_qos() {
  local name=$1
  shift
  if [[ -z "$(sacctmgr -n -P show qos "$name" format=name)" ]]; then
    _accounts_sacctmgr add qos "$name" "$@"
  elif (($# > 0)); then
    _accounts_sacctmgr modify qos where name="$name" set "$@"
  fi
}

accounts_account() {
  local name=$1
  shift
  if [[ -z "$(sacctmgr -n -P show account "$name" format=account)" ]]; then
    _accounts_sacctmgr add account "$name" "$@"
  elif (($# > 0)); then
    _accounts_sacctmgr modify account where name="$name" set "$@"
  fi
}

accounts_user() {
  local user=$1 account=$2
  shift 2
  accounts_linux_user "$user" || return 1
  if [[ -z "$(sacctmgr -n -P show assoc where user="$user" account="$account" format=user)" ]]; then
    _accounts_sacctmgr add user "$user" account="$account" "$@" || return 1
  elif (($# > 0)); then
    _accounts_sacctmgr modify user where name="$user" account="$account" set "$@" || return 1
  fi
  _accounts_wait_assoc "$user" "$account"
}

# slurmdbd pushes new associations to slurmctld asynchronously; a job submitted before they
# arrive is rejected ("Invalid account or account/partition combination").
_accounts_wait_assoc() {
  local user=$1 account=$2 i
  for ((i = 0; i < 100; i++)); do
    if scontrol -o show assoc_mgr users="$user" accounts="$account" flags=assoc 2>/dev/null |
      grep -q "UserName=$user("; then
      return 0
    fi
    sleep 0.1
  done
  echo "[accounts] slurmctld does not know $user/$account after 10 s" >&2
  return 1
}
