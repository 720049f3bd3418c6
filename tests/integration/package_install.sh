#!/usr/bin/env bash
# package_install.sh BUILD_DIR [DEB]: the Debian package, installed, and slurmctld loading the
# plugins from Slurm's stock PluginDir.
#
# Builds the .deb in BUILD_DIR (`cmake --build BUILD_DIR --target package`) unless DEB is given,
# installs it with dpkg, then checks:
#   1. the package: Depends pins the installed slurmctld's exact version; the plugins are in the
#      directory of Slurm's own plugins and export exactly the loader's symbols; /usr/bin/sbudget
#      runs and accepts the packaged example budget.conf; man finds every man page, which
#      renders without warnings;
#   2. a cluster (munge, MariaDB, slurmdbd, slurmctld, 4 slurmd) with PriorityType=priority/budget,
#      JobSubmitPlugins=budget and PluginDir = the stock directory alone: slurmctld's log says it
#      loaded both plugins from there, stamped with its own version, and they are in its memory
#      map; after `/usr/bin/sbudget ledger import`, sprio's FAIRSHARE puts the project behind its
#      line in the behind band and the one ahead in the ahead band, sshare's RawShares is the
#      expected GPUh of the month, and job_submit/budget refuses an account without a budget;
#   3. `dpkg --purge slurm-budget` removes every file it installed.
# Stops every daemon it started and removes the package, also on failure, so the machine is left
# as it was. Needs root and the cluster lock: run-all.sh takes it; alone, run
#   flock /tmp/budget-cluster.lock tests/integration/package_install.sh build/ci
# Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: package_install.sh BUILD_DIR [DEB]}" && pwd)
deb=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/lib/cluster.sh
source "$here/lib/cluster.sh"
# shellcheck source=SCRIPTDIR/lib/accounts.sh
source "$here/lib/accounts.sh"
# shellcheck source=SCRIPTDIR/lib/budget_fixture.sh
source "$here/lib/budget_fixture.sh"
# shellcheck source=SCRIPTDIR/lib/checks.sh
source "$here/lib/checks.sh"

package=slurm-budget
sbudget=/usr/bin/sbudget
lc=${BUDGET_LC:-/tmp/budget-lc}
ledger=$lc/spool/ctld/budget_ledger
ctld_log=$lc/log/slurmctld.log
weight_fs=10000000 # PriorityWeightFairshare of cluster.sh

# --- Preconditions: never disturb an installation that is not ours -------------------------
die() {
  echo "package_install.sh: $*" >&2
  exit 1
}
((EUID == 0)) || die "needs root (dpkg -i)"
if status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null) &&
  [[ "$status" != un* && -n "$status" ]]; then
  die "$package is already on this machine (dpkg status '$status'); this test would remove it"
fi
stock=$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | grep -m1 '/libslurmfull\.so$' || true)
[[ -n "$stock" ]] || die "Slurm's plugins are not installed (run scripts/install-deps.sh)"
stock=${stock%/*}
for so in priority_budget.so job_submit_budget.so; do
  [[ ! -e "$stock/$so" ]] || die "$stock/$so exists but no package owns it; move it away first"
done
slurmctld_version=$(dpkg-query -W -f='${Version}' slurmctld)
upstream=${slurmctld_version#*:}
upstream=${upstream%-*}
IFS=. read -r major minor micro <<<"$upstream"
slurm_number=$(printf '0x%x' $(((major << 16) + (minor << 8) + micro)))

work=$(mktemp -d /tmp/budget-package.XXXXXX)
chmod 755 "$work"
installed=0
cleanup() {
  cluster_stop
  if ((installed)); then
    dpkg --purge "$package" >/dev/null || echo "package_install.sh: dpkg --purge $package failed" >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

section "build: the .deb"
if [[ -z "$deb" ]]; then
  rm -f "$build"/"$package"_*.deb
  if ! cmake --build "$build" -j2 --target package >"$work/package.log" 2>&1; then
    tail -n 30 "$work/package.log" >&2
    die "cmake --build $build --target package failed (configure with -DBUDGET_BUILD_PLUGIN=ON)"
  fi
  deb=$(find "$build" -maxdepth 1 -name "${package}_*.deb" -print -quit)
  [[ -n "$deb" ]] || die "cpack wrote no ${package}_*.deb into $build"
fi
[[ -f "$deb" ]] || die "no such package: $deb"
echo "$deb"
dpkg-deb -c "$deb" | awk '{ print $1, $3, $6 }'

section "1. the package, installed"
installed=1
dpkg -i "$deb"
depends=$(dpkg-query -W -f='${Depends}' "$package")
echo "Depends: $depends"
check "Depends pins the installed slurmctld exactly: slurmctld (= $slurmctld_version)" \
  grep -qF -- "slurmctld (= $slurmctld_version)" <<<"$depends"
files=$(dpkg -L "$package")
want=("$stock/priority_budget.so" "$stock/job_submit_budget.so" /usr/bin/sbudget
  /usr/share/man/man5/budget.conf.5.gz /usr/share/man/man8/priority_budget.8.gz
  /usr/share/man/man1/sbudget.1.gz "/usr/share/doc/$package/user-guide.md"
  "/usr/share/doc/$package/user-guide-plot.svg"
  "/usr/share/doc/$package/examples/budget.conf" "/usr/share/doc/$package/examples/slurm.conf.example")
for f in "${want[@]}"; do
  check "installs $f" grep -qx "$f" <<<"$files"
done
check "priority_budget.so exports exactly the priority loader's symbols" \
  "$repo/tests/plugin/check_exports.sh" "$stock/priority_budget.so"
check "job_submit_budget.so exports exactly the job_submit loader's symbols" \
  "$repo/tests/plugin/check_exports.sh" "$stock/job_submit_budget.so" job_submit job_modify
check "every library of sbudget is found" \
  bash -c "! ldd $sbudget | grep -q 'not found'"
check "sbudget accepts the packaged example budget.conf" \
  "$sbudget" check-config "/usr/share/doc/$package/examples/budget.conf"
man_clean() {
  local out
  out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null)
  [[ -z "$out" ]] || {
    echo "$out" >&2
    return 1
  }
}
if command -v man >/dev/null; then
  while read -r page; do
    name=${page##*/}
    name=${name%.gz}
    # A link (job_submit_budget.8.gz -> priority_budget.8.gz) is found as the page it names.
    check "man -w finds ${name%.*}(${name##*.}) at $page" \
      test "$(man -w "${name##*.}" "${name%.*}" 2>/dev/null)" = "$(readlink -f "$page")"
    check "${name%.*}(${name##*.}) renders without warnings" man_clean "$page"
  done < <(grep '^/usr/share/man/man./.*\.gz$' <<<"$files")
else
  echo "skip the man checks: man is not installed (apt-get install man-db)"
fi

section "2. slurmctld loads the plugins from the stock PluginDir"
fixture_dates
fixture_budget_conf "$work/budget.conf"
echo "UnbudgetedAccounts=reject" >>"$work/budget.conf"
export PRIORITY_TYPE=priority/budget
unset EXTRA_PLUGIN_DIR
# debug3: Slurm's loader then logs the path and the version of each plugin it loads.
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
JobSubmitPlugins=budget
SlurmctldDebug=debug3"
FRESH=1 cluster_start
for p in behind ahead acct; do
  accounts_account "p_$p"
  accounts_user "u_$p" "p_$p"
done
accounts_account nobudget
accounts_user u_none nobudget
check "slurm.conf's PluginDir is the stock directory alone" \
  grep -qx "PluginDir=$stock" "$SLURM_CONF"

# Past usage through the packaged sbudget, while slurmctld is down (docs/admin-import.md).
cluster_stop_ctld
fixture_usage_csv "$work/usage.csv"
rm -f "$ledger" "$ledger.old"
"$sbudget" ledger import --config "$work/budget.conf" --ledger "$ledger" "$work/usage.csv"
: >"$ctld_log"
cluster_start_ctld
grep -E "Trying to load plugin $stock/(priority|job_submit)_budget\.so|type:(priority|job_submit)/budget|(priority|job_submit)/budget: (budgets from|lifecycle checks)" \
  "$ctld_log" | sed 's/^\[[^]]*\] //' || true
for plugin in priority job_submit; do
  check "the log: $plugin/budget loaded from $stock/${plugin}_budget.so" \
    grep -qF "Trying to load plugin $stock/${plugin}_budget.so" "$ctld_log"
  check "the log: $plugin/budget carries slurmctld's version $slurm_number" \
    grep -qF "type:$plugin/budget version:$slurm_number" "$ctld_log"
  check "slurmctld's memory maps $stock/${plugin}_budget.so" \
    grep -qF "$stock/${plugin}_budget.so" "/proc/$(<"$lc/run/slurmctld.pid")/maps"
done
check "the log: priority/budget started with the test's budget.conf and ledger" \
  grep -qF "priority/budget: budgets from $work/budget.conf, ledger in $ledger" "$ctld_log"
check "the log: job_submit/budget started" \
  grep -qF "job_submit/budget: lifecycle checks from $work/budget.conf" "$ctld_log"

blocker=$(cluster_as u_acct sbatch --parsable -A p_acct -N4 --exclusive -t 5 \
  --chdir="$work" -o /dev/null --wrap 'sleep 300')
wait_for 60 "the blocker runs" job_state_is "$blocker" RUNNING
behind=$(cluster_as u_behind sbatch --parsable -A p_behind -N4 --exclusive -t 1 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1')
ahead=$(cluster_as u_ahead sbatch --parsable -A p_ahead -N4 --exclusive -t 1 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1')
refused=$(cluster_as u_none sbatch --parsable -A nobudget -N1 -t 1 \
  --chdir="$work" -o /dev/null --wrap 'sleep 1' 2>&1) && rc=0 || rc=$?
echo "$refused"
check "job_submit/budget refuses an account without a budget (sbatch exit $rc)" test "$rc" != 0
check "... and sbatch prints why" grep -qF "has no GPU-hour budget" <<<"$refused"
sleep 2
sprio -l
sshare -a -l | cut -c1-110
fs_behind=$(sprio_field "$behind" FAIRSHARE)
fs_ahead=$(sprio_field "$ahead" FAIRSHARE)
check "sprio: p_behind's FAIRSHARE ($fs_behind) is in the behind band (> 0.6 x weight)" \
  awk_true "$fs_behind > 0.6 * $weight_fs"
check "sprio: p_ahead's FAIRSHARE ($fs_ahead) is in the ahead band (0.4..0.6 x weight)" \
  awk_true "$fs_ahead > 0.4 * $weight_fs && $fs_ahead <= 0.6 * $weight_fs"
check "sprio: PRIORITY of p_behind's job equals squeue's %Q" \
  test "$(sprio_field "$behind" PRIORITY)" = "$(squeue -h -j "$behind" -o %Q)"
check "sshare: p_ahead RawShares = its expected 10,000 GPUh this month" \
  test "$(sshare_field p_ahead '' RawShares)" = 10000
scancel "$blocker" "$behind" "$ahead"

section "3. dpkg --purge leaves nothing behind"
cluster_stop
dpkg --purge "$package"
installed=0
check "dpkg no longer knows $package" \
  bash -c "! dpkg-query -W -f='\${db:Status-Abbrev}' $package 2>/dev/null | grep -q '^[^u]'"
left=()
for f in "${want[@]}"; do
  [[ ! -e "$f" ]] || left+=("$f")
done
check "every installed file is gone${left[*]:+ (left: ${left[*]})}" test "${#left[@]}" = 0

summary
