#!/usr/bin/env bash
# `sbudget ledger import` run as root gives the ledger files it wrote to the owner of their
# directory (StateSaveLocation belongs to SlurmUser), so that slurmctld can read them; here the
# directory belongs to nobody. It never follows a link to change a file elsewhere. Needs root
# (chown): exits 77, which ctest reports as skipped, otherwise.
#
# usage: ledger_import_owner_test.sh SBUDGET   (run from tests/cli/, as ctest does)
set -euo pipefail
sbudget=$1
if [[ $(id -u) != 0 ]]; then
  echo "skipped: needs root to change owners"
  exit 77
fi

# shellcheck source=SCRIPTDIR/equal_checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/equal_checks.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Imports CSV into LEDGER at AT; sets code, out (stdout) and err (stderr).
import() { # LEDGER AT CSV
  code=0
  "$sbudget" ledger import --config "$work/budget.conf" --ledger "$1" --at "$2" "$3" \
    >"$work/stdout" 2>"$work/stderr" || code=$?
  out=$(cat "$work/stdout")
  err=$(cat "$work/stderr")
}

# Everything nobody needs to read is in a directory it can enter; the state directory is
# nobody's, mode 0700, as slurmctld's StateSaveLocation is SlurmUser's.
chmod 755 "$work"
cp data/ledger_import.conf "$work/budget.conf"
chmod 644 "$work/budget.conf"
cp "$sbudget" "$work/sbudget"
slurm_user=nobody
slurm_group=$(id -gn nobody)
state=$work/state
mkdir "$state"
chown "$slurm_user:$slurm_group" "$state"
chmod 700 "$state"
ledger=$state/budget_ledger
printf 'account,user,month,partition,gpu_hours\nchem,carol,2026-03,budgeted,1.5\n' >"$work/march.csv"
printf 'account,user,month,partition,gpu_hours\nchem,carol,2026-04,budgeted,2\n' >"$work/april.csv"
printf 'account,user,month,partition,gpu_hours\nchem,carol,2026-05,budgeted,3\n' >"$work/may.csv"

# The first import: a new ledger, given to nobody.
import "$ledger" @1775001600 "$work/march.csv"
check "first import: exit 0" "$code" 0
check "first import: the summary says who got the file" "$out" \
  "imported 1 rows into $ledger (usage accounted up to 2026-04-01T00:00:00 UTC, @1775001600); budget_ledger given to $slurm_user:$slurm_group, the owner of $state"
check "first import: owner and mode" "$(stat -c '%U:%G %a' "$ledger")" \
  "$slurm_user:$slurm_group 600"
check "first import: no staging file left" "$(ls "$state")" "budget_ledger"

# A ledger a root import left before this fix: both it (kept as .old) and the new file move.
chown root:root "$ledger"
import "$ledger" @1777593600 "$work/april.csv"
check "second import: exit 0" "$code" 0
check "second import: both files named" "${out#*; }" \
  "budget_ledger and budget_ledger.old given to $slurm_user:$slurm_group, the owner of $state"
check "second import: the ledger's owner" "$(stat -c '%U:%G %a' "$ledger")" \
  "$slurm_user:$slurm_group 600"
check "second import: the previous copy's owner" "$(stat -c '%U:%G %a' "$ledger.old")" \
  "$slurm_user:$slurm_group 600"

# SlurmUser can now read both: the plugin loads them as its own user.
check "nobody reads the ledger" \
  "$(setpriv --reuid="$slurm_user" --regid="$slurm_group" --clear-groups \
    "$work/sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" \
    --at @1777593600 --json >/dev/null 2>&1 && echo readable)" readable
check "nobody reads the previous copy" \
  "$(setpriv --reuid="$slurm_user" --regid="$slurm_group" --clear-groups \
    head -c 19 "$ledger.old")" "slurm-budget-ledger"

# Files already nobody's are left as they are, and not named.
import "$ledger" @1780272000 "$work/may.csv"
check "third import: budget_ledger only (the .old was nobody's)" "${out#*; }" \
  "budget_ledger given to $slurm_user:$slurm_group, the owner of $state"

# A directory of root's (SlurmUser=root, or a copy): nothing changes, nothing is said.
mkdir "$work/root-state"
import "$work/root-state/budget_ledger" @1775001600 "$work/march.csv"
check "directory of root's: exit 0" "$code" 0
check "directory of root's: the summary alone" "$out" \
  "imported 1 rows into $work/root-state/budget_ledger (usage accounted up to 2026-04-01T00:00:00 UTC, @1775001600)"
check "directory of root's: the file stays root's" \
  "$(stat -c '%U:%G' "$work/root-state/budget_ledger")" "root:root"

# nobody owns the directory, so it could put a link there to a file of root's: never followed.
# The link's target is a valid ledger, so the import loads it as the previous copy.
link_state=$work/link-state
mkdir "$link_state"
cp "$work/root-state/budget_ledger" "$work/victim"
ln -s "$work/victim" "$link_state/budget_ledger.old"
chown "$slurm_user:$slurm_group" "$link_state"
import "$link_state/budget_ledger" @1777593600 "$work/april.csv"
check "a link of root's as .old: exit 1" "$code" 1
check "a link of root's as .old: the error names it" "$(tail -n 1 <<<"$err")" \
  "sbudget: error: $link_state/budget_ledger written, but owner of $link_state/budget_ledger.old not changed: not a regular file with one link, as a ledger is; look at it, and remove it if it is not a ledger"
check "a link of root's as .old: its target stays root's" "$(stat -c '%U:%G' "$work/victim")" \
  "root:root"
# The same link, nobody's: not root's, so left alone, and the import succeeds.
rm "$link_state/budget_ledger"
chown -h "$slurm_user:$slurm_group" "$link_state/budget_ledger.old"
import "$link_state/budget_ledger" @1777593600 "$work/april.csv"
check "a link of nobody's as .old: exit 0" "$code" 0
check "a link of nobody's as .old: only the new ledger named" "${out#*; }" \
  "budget_ledger given to $slurm_user:$slurm_group, the owner of $link_state"
check "a link of nobody's as .old: its target stays root's" "$(stat -c '%U:%G' "$work/victim")" \
  "root:root"

checks_done
