#!/usr/bin/env bash
# package_install.sh BUILD_DIR [DIR | DEB DEB]: the two Debian packages, slurm-budget (the plugins)
# and slurm-budget-client (sbudget), installed, and slurmctld loading the plugins from Slurm's
# stock PluginDir.
#
# Builds the .debs in BUILD_DIR (`cmake --build BUILD_DIR --target package`) unless they are
# given: as a directory holding both, or as the two files. Checks:
#   0. the .debs (dpkg-deb -f/-c): exactly the two packages (no slurm-budget-Unspecified: every
#      install() names its component), at one version with the release "1+slurm<slurmctld's
#      version>", in files named <package>_<version>_<arch>.deb; slurm-budget-client Depends on
#      no Slurm package (so a login node can install it without slurmctld) and Recommends
#      slurm-client; slurm-budget Depends on the installed slurmctld's and on the client's exact
#      versions; sbudget is in the client only, the plugins in slurm-budget only;
#   1. the packages installed, the client first and alone: the same Depends; dpkg says who owns
#      sbudget and the plugins; the plugins are in the directory of Slurm's own plugins and export
#      exactly the loader's symbols; /usr/bin/sbudget runs, -V names the package's version, and
#      it accepts the packaged example budget.conf; man finds every man page, which renders
#      without warnings;
#   2. a cluster (munge, MariaDB, slurmdbd, slurmctld, 4 slurmd) with PriorityType=priority/budget,
#      JobSubmitPlugins=budget and PluginDir = the stock directory alone: slurmctld's log says it
#      loaded both plugins from there, stamped with its own version, and they are in its memory
#      map; after `/usr/bin/sbudget ledger import`, sprio's FAIRSHARE puts the project behind its
#      line in the behind band and the one ahead in the ahead band, sshare's RawShares is the
#      expected GPUh of the month, and job_submit/budget refuses an account without a budget;
#   3. `dpkg --purge slurm-budget slurm-budget-client` removes every file they installed.
# Stops every daemon it started and removes the packages, also on failure, so the machine is left
# as it was. Needs root and the cluster lock: run-all.sh takes it; alone, run
#   flock /tmp/budget-cluster.lock tests/integration/package_install.sh build/ci
# Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: package_install.sh BUILD_DIR [DIR | DEB DEB]}" && pwd)
shift
given=("$@")
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

plugins_pkg=slurm-budget
client_pkg=slurm-budget-client
packages=("$plugins_pkg" "$client_pkg")
doc=/usr/share/doc/$plugins_pkg
client_doc=/usr/share/doc/$client_pkg
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
((${#given[@]} <= 2)) || die "usage: package_install.sh BUILD_DIR [DIR | DEB DEB]"
# dpkg's status of a package ("ii"), empty when dpkg does not know it (or only its name).
dpkg_status() {
  local status
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) || true
  status=${status// /} # the abbreviation is padded to three columns
  [[ "$status" == un* ]] || echo "$status"
}
for p in "${packages[@]}"; do
  status=$(dpkg_status "$p")
  [[ -z "$status" ]] ||
    die "$p is already on this machine (dpkg status '$status'); this test would remove it"
done
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
# Packaging.cmake's release suffix: 1:22.05.8-4+deb12u3 -> +slurm22.05.8.4+deb12u3.
slurm_tag=${slurmctld_version#*:}
slurm_tag=${slurm_tag//-/.}

work=$(mktemp -d /tmp/budget-package.XXXXXX)
chmod 755 "$work"
installed=0
cleanup() {
  cluster_stop
  if ((installed)); then
    dpkg --purge "${packages[@]}" >/dev/null ||
      echo "package_install.sh: dpkg --purge ${packages[*]} failed" >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

section "build: the .debs"
if ((${#given[@]} == 0)); then
  rm -f "$build"/"$plugins_pkg"*.deb
  # One build of the folder at a time: scripts/test.sh builds the rest of it beside the scenarios.
  if ! flock "$build/.build.lock" cmake --build "$build" -j2 --target package \
    >"$work/package.log" 2>&1; then
    tail -n 30 "$work/package.log" >&2
    die "cmake --build $build --target package failed (configure with -DBUDGET_BUILD_PLUGIN=ON)"
  fi
  given=("$build")
fi
if ((${#given[@]} == 1)); then
  [[ -d "${given[0]}" ]] || die "not a directory: ${given[0]} (give a directory or both .debs)"
  mapfile -t debs < <(find "${given[0]}" -maxdepth 1 -name "${plugins_pkg}*.deb" | sort)
else
  debs=("${given[@]}")
fi
# The .deb of each package, by the name in its control file.
declare -A deb_of
for f in "${debs[@]}"; do
  [[ -f "$f" ]] || die "no such package file: $f"
  name=$(dpkg-deb -f "$f" Package) || die "$f is not a Debian package"
  [[ -z "${deb_of[$name]:-}" ]] || die "two .debs of $name: ${deb_of[$name]} and $f"
  deb_of[$name]=$f
done
echo "${debs[@]}"
for p in "${packages[@]}"; do
  [[ -n "${deb_of[$p]:-}" ]] || die "no .deb of $p among: ${debs[*]:-(none)}"
done
plugins_deb=${deb_of[$plugins_pkg]}
client_deb=${deb_of[$client_pkg]}

section "0. the .debs"
# TEXT (the last argument) has no match of the extended regex PATTERN (grep options before it).
lacks() { ! grep -qE "${@:1:$#-1}" <<<"${!#}"; }
# TEXT (the first argument) lists every package that follows, as a whole word.
names_all() {
  local text=$1 name
  shift
  for name in "$@"; do
    grep -qE "(^|[ ,])${name//+/\\+}([ ,]|$)" <<<"$text" || return 1
  done
}
quiet() { "$@" >/dev/null; }
check "exactly two packages, $plugins_pkg and $client_pkg (got: ${!deb_of[*]})" \
  test "${#deb_of[@]}" = 2
version=$(dpkg-deb -f "$client_deb" Version)
arch=$(dpkg --print-architecture)
for p in "${packages[@]}"; do
  f=${deb_of[$p]}
  dpkg-deb -f "$f" Package Version Architecture Depends Recommends Enhances Replaces
  dpkg-deb -c "$f" | awk '{ print $1, $3, $6 }'
  check "$p: version $version, the client's" test "$(dpkg-deb -f "$f" Version)" = "$version"
  check "$p: the file is named ${p}_${version}_$arch.deb" \
    test "${f##*/}" = "${p}_${version}_$arch.deb"
done
check "the release is 1+slurm$slurm_tag" test "${version#*-}" = "1+slurm$slurm_tag"
client_depends=$(dpkg-deb -f "$client_deb" Depends Pre-Depends)
plugins_depends=$(dpkg-deb -f "$plugins_deb" Depends)
check "$client_pkg Depends on no Slurm package (no slurmctld): a login node can install it" \
  lacks -i slurm "$client_depends"
check "$client_pkg Depends on sbudget's libraries (libc6, libstdc++6, libfmt9, zlib1g)" \
  names_all "$client_depends" libc6 libstdc++6 libfmt9 zlib1g
check "$client_pkg Recommends slurm-client (sacct, sacctmgr, scontrol, sprio, squeue)" \
  test "$(dpkg-deb -f "$client_deb" Recommends)" = slurm-client
check "$plugins_pkg Depends pins slurmctld (= $slurmctld_version)" \
  grep -qF -- "slurmctld (= $slurmctld_version)" <<<"$plugins_depends"
check "$plugins_pkg Depends pins $client_pkg (= $version)" \
  grep -qF -- "$client_pkg (= $version)" <<<"$plugins_depends"
# Paths in a .deb, as absolute paths (dpkg-deb -c prints ./usr/...).
contents() { dpkg-deb -c "$1" | awk '{ print substr($6, 2) }'; }
client_files=$(contents "$client_deb")
plugins_files=$(contents "$plugins_deb")
check "$sbudget is in $client_pkg" grep -qx "$sbudget" <<<"$client_files"
check "$sbudget is not in $plugins_pkg" lacks '/sbudget$' "$plugins_files"
check "the plugins are in $plugins_pkg" \
  test "$(grep -c '_budget\.so$' <<<"$plugins_files")" = 2
check "no plugin is in $client_pkg" lacks '\.so$' "$client_files"

section "1. the packages, installed (the client first, alone)"
installed=1
dpkg -i "$client_deb"
check "$client_pkg installs alone: dpkg status ii" test "$(dpkg_status "$client_pkg")" = ii
check "sbudget runs without $plugins_pkg" \
  quiet "$sbudget" simulate --credit 6000 --months 6
check "sbudget -V names the package's version, before its release (${version%%-*})" \
  test "$("$sbudget" -V)" = "sbudget ${version%%-*}"
dpkg -i "$plugins_deb"
check "$plugins_pkg installed: dpkg status ii" test "$(dpkg_status "$plugins_pkg")" = ii
depends=$(dpkg-query -W -f='${Depends}' "$plugins_pkg")
echo "$plugins_pkg Depends: $depends"
check "$plugins_pkg Depends pins the installed slurmctld exactly: slurmctld (= $slurmctld_version)" \
  grep -qF -- "slurmctld (= $slurmctld_version)" <<<"$depends"
check "$plugins_pkg Depends pins the installed client exactly: $client_pkg (= $version)" \
  grep -qF -- "$client_pkg (= $(dpkg-query -W -f='${Version}' "$client_pkg"))" <<<"$depends"
depends=$(dpkg-query -W -f='${Depends}' "$client_pkg")
echo "$client_pkg Depends: $depends"
check "$client_pkg Depends names no slurmctld" lacks slurmctld "$depends"
client_want=("$sbudget" /usr/share/man/man1/sbudget.1.gz /usr/share/man/man5/budget.conf.5.gz
  "$client_doc/user-guide.md" "$client_doc/user-guide-plot.svg")
plugins_want=("$stock/priority_budget.so" "$stock/job_submit_budget.so"
  /usr/share/man/man8/priority_budget.8.gz "$doc/README.md" "$doc/admin-guide.md"
  "$doc/examples/budget.conf" "$doc/examples/slurm.conf.example")
owner() { dpkg -S "$1" 2>/dev/null | sed 's/: .*//'; }
for f in "${client_want[@]}"; do
  check "$f belongs to $client_pkg" test "$(owner "$f")" = "$client_pkg"
done
for f in "${plugins_want[@]}"; do
  check "$f belongs to $plugins_pkg" test "$(owner "$f")" = "$plugins_pkg"
done
# Every file of both packages, for the purge check (directories such as /usr/bin are shared).
dpkg -L "${packages[@]}" | sort -u >"$work/installed"
check "priority_budget.so exports exactly the priority loader's symbols" \
  "$repo/tests/plugin/check_exports.sh" "$stock/priority_budget.so"
check "job_submit_budget.so exports exactly the job_submit loader's symbols" \
  "$repo/tests/plugin/check_exports.sh" "$stock/job_submit_budget.so" job_submit job_modify
check "every library of sbudget is found" \
  bash -c "! ldd $sbudget | grep -q 'not found'"
check "sbudget accepts the packaged example budget.conf" \
  "$sbudget" check-config "$doc/examples/budget.conf"
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
  done < <(grep '^/usr/share/man/man./.*\.gz$' "$work/installed")
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
dpkg --purge "${packages[@]}"
installed=0
for p in "${packages[@]}"; do
  check "dpkg no longer knows $p" test -z "$(dpkg_status "$p")"
done
# What is left: any file of theirs, and their own directories.
left=()
while read -r f; do
  if [[ -L "$f" || (-e "$f" && ! -d "$f") ]]; then left+=("$f"); fi
done <"$work/installed"
for d in "$doc" "$client_doc"; do
  [[ ! -e "$d" ]] || left+=("$d")
done
check "every installed file is gone${left[*]:+ (left: ${left[*]})}" test "${#left[@]}" = 0

summary
