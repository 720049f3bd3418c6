#!/usr/bin/env bash
# `sbudget check-config` refuses a budget.conf the plugin would refuse (file_trust.hpp): group-
# or world-writable; an owner other than root and the user running it is a warning (slurmctld
# takes it when that owner is its SlurmUser). git keeps no mode but 644 and
# 755, so the files are made here, in a temporary directory.
#
# usage: check_config_trust_test.sh SBUDGET   (run from tests/cli/, as ctest does)
set -euo pipefail
sbudget=$1

# shellcheck source=SCRIPTDIR/equal_checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/equal_checks.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# No slurm.conf to compare the partitions with: not this machine's.
export SLURM_CONF=$work/no-slurm.conf
# Runs check-config on FILE; sets code, out (stdout) and err (stderr).
check_config() { # FILE
  code=0
  "$sbudget" check-config "$1" >"$work/stdout" 2>"$work/stderr" || code=$?
  out=$(cat "$work/stdout")
  err=$(cat "$work/stderr")
}

conf=$work/budget.conf
cp data/check_config_minimal.conf "$conf"

chmod 0644 "$conf"
check_config "$conf"
check "mode 0644: accepted, exit 0" "$code" 0
check "mode 0644: the summary" "$(head -n 1 <<<"$out")" "$conf: OK, 0 partitions, 1 project"
check "mode 0644: nothing on stderr" "$err" ""

chmod 0664 "$conf"
check_config "$conf"
check "mode 0664: exit 1" "$code" 1
check "mode 0664: the plugin's message, with sbudget's prefix" "$err" \
  "sbudget: error: refusing budget.conf $conf: mode 0664 lets group members write it; run: chmod go-w $conf"
check "mode 0664: no summary" "$out" ""

chmod 0646 "$conf"
check_config "$conf"
check "mode 0646: other users" "$err" \
  "sbudget: error: refusing budget.conf $conf: mode 0646 lets other users write it; run: chmod go-w $conf"

# A refused file with content errors: both are reported, the file's mode first.
broken=$work/broken.conf
cp data/check_config_broken.conf "$broken"
chmod 0666 "$broken"
check_config "$broken"
check "broken and mode 0666: exit 1" "$code" 1
check "broken and mode 0666: the mode first" "$(head -n 1 <<<"$err")" \
  "sbudget: error: refusing budget.conf $broken: mode 0666 lets group members and other users write it; run: chmod go-w $broken"
check "broken and mode 0666: then the content errors" "$(sed -n 2p <<<"$err")" \
  "$broken:4: CreditUsedUp: already set on line 3; set it once"

# The owner: root or the user running check-config (slurmctld: SlurmUser), as in the plugin.
if [[ $(id -u) == 0 ]]; then
  chmod 0644 "$conf"
  chown nobody "$conf"
  nobody_uid=$(id -u nobody)
  check_config "$conf"
  # slurmctld takes it if nobody is its SlurmUser, which check-config cannot know: a warning.
  check "owned by nobody, checked by root: exit 0" "$code" 0
  check "owned by nobody, checked by root: the summary" "$(head -n 1 <<<"$out")" \
    "$conf: OK, 0 partitions, 1 project"
  check "owned by nobody, checked by root: the owner named in a warning" "$err" \
    "sbudget: warning: budget.conf $conf is owned by uid $nobody_uid, not root: slurmctld loads it only if uid $nobody_uid is its SlurmUser (owned by root, any SlurmUser loads it)"
  # A foreign owner and a writable mode: the mode is refused whoever SlurmUser is.
  chmod 0664 "$conf"
  check_config "$conf"
  check "owned by nobody, mode 0664: exit 1" "$code" 1
  check "owned by nobody, mode 0664: refused" "$(head -c 31 <<<"$err")" "sbudget: error: refusing budget"
else
  echo "skipped: the owner checks need root"
fi

checks_done
