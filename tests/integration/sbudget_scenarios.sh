#!/usr/bin/env bash
# sbudget_scenarios.sh BUILD_DIR: sbudget's user verbs against a real cluster running priority/budget.
#
# Starts munge, MariaDB, slurmdbd, slurmctld (PriorityType=priority/budget from BUILD_DIR,
# PrivateData=jobs,usage) and 4 slurmd, with a fresh ledger: every GPU-second comes from jobs
# run here. Users: u_sa1 and u_sa2 (project p_sa), u_sb (p_sb), u_coord (a user of p_sb and
# coordinator of p_sa), u_op (Operator), u_blk (an account without a budget). Then checks:
#   1. agreement: once the jobs have ended and a plugin pass has saved the ledger, `sbudget -A P
#      --json` (slurmdbd's job records billed by the core) equals the plugin's ledger (`sbudget
#      ledger show --json`) to the GPU-second, for the month, the project and every user; and
#      `sbudget --ledger` reads the same from the ledger file;
#   2. who sees what: `sbudget` alone shows the caller's projects; PrivateData refuses another
#      project to a plain user (one line, exit 1) and --all to a non-operator; operators and
#      coordinators see it, with every user; a plain user sees the other users as "(others)";
#   3. plot: a valid SVG whose series (cumulative usage, each month's expected, minimal, used)
#      are the JSON's;
#   4. why: for a pending job behind another, the job ahead, the project's budget state, and
#      what would change its position; PrivateData limits what a user sees;
#   5. check-config and simulate run for a plain user on a login-node setup (Slurm client only).
# Stops every daemon it started, also on failure. Exits 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: sbudget_scenarios.sh BUILD_DIR}" && pwd)
# shellcheck source=SCRIPTDIR/lib/scenario.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenario.sh"
scenario_scratch sbudget
install -d -m 1777 "$work/out"
scenario_traps

# --- helpers of this script ----------------------------------------------------------------

# A field (jq path) of `sbudget -A PROJECT --json [ARGS...]` run as root.
view_field() {
  local project=$1 path=$2
  shift 2
  "$sbudget" -A "$project" --json "$@" | jq -r ".[0]$path"
}

# SVG JSON: equal to the GPU-second, two GPUh amounts differ by less than half a GPU-second;
# where the JSON has null (a month without a minimal), the SVG's attribute is empty.
same_gpuh() {
  if [[ "$2" == null ]]; then
    [[ -z "$1" ]] && return 0
    echo "  ($1 != null)" >&2
    return 1
  fi
  awk_true "(($1) - ($2))^2 < (0.5 / 3600)^2" || {
    echo "  ($1 != $2)" >&2
    return 1
  }
}

# Two space-separated lists of GPUh amounts, equal in length and each to the GPU-second.
same_series() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    n = split(a, x, " "); m = split(b, y, " ")
    if (n != m) exit 1
    for (i = 1; i <= n; i++) if ((x[i] - y[i])^2 >= (0.5 / 3600)^2) exit 1
  }'
}

# 1234567 -> 1,234,567
grouped() {
  sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"
}

# Runs CMD as USER; stdout, stderr and the exit code go to $work/out.{stdout,stderr,code}.
run_as() {
  local user=$1
  shift
  local code=0
  cluster_as "$user" "$@" >"$work/out.stdout" 2>"$work/out.stderr" || code=$?
  echo "$code" >"$work/out.code"
}

out_code() { cat "$work/out.code"; }
out_has() { grep -qF -- "$1" "$work/out.$2" || { cat "$work/out.$2" >&2; return 1; }; }
out_lacks() { ! grep -qF -- "$1" "$work/out.$2"; }

# An attribute of the SVG elements matching the XPath.
svg_attr() {
  xmllint --xpath "string($2)" "$1"
}

# --- setup ------------------------------------------------------------------------------------

fixture_dates
{
  echo "# budget.conf of the sbudget scenarios (generated)"
  echo "PartitionName=normal Role=budgeted GpuhPerNodeHour=4"
  echo "PartitionName=debug Role=budgeted GpuhPerNodeHour=4"
  echo "PartitionName=low Role=low GpuhPerNodeHour=4"
  for p in p_sa p_sb; do
    echo "Project=$p Kind=large Credit=$FIX_CREDIT Start=$FIX_START PIs=pi.$p@uni.ch StorageTB=1 StorageInodes=1000000"
  done
} >"$work/budget.conf"
chmod 644 "$work/budget.conf"
export PRIORITY_TYPE=priority/budget
export EXTRA_PLUGIN_DIR=$build/src/slurm
export EXTRA_SLURM_CONF="PriorityParameters=budget_conf=$work/budget.conf
PrivateData=jobs,usage"

section "start: the plugin loads with a fresh ledger; users, coordinator, operator"
FRESH=1 cluster_start
accounts_account p_sa
accounts_account p_sb
accounts_account nobudget
accounts_user u_sa1 p_sa
accounts_user u_sa2 p_sa
accounts_user u_sb p_sb
accounts_user u_coord p_sb
accounts_user u_op p_sb
accounts_user u_blk nobudget
sacctmgr -i add coordinator account=p_sa names=u_coord >/dev/null
sacctmgr -i modify user u_op set adminlevel=Operator >/dev/null
cluster_stop_ctld
rm -f "$ledger" "$ledger.old"
cluster_start_ctld

section "1. sbudget (slurmdbd's job records) agrees with the plugin's ledger"
jobs=()
jobs+=("$(cluster_as u_sa1 sbatch --parsable -A p_sa -N2 --exclusive -t 2 --chdir="$work/out" \
  -o /dev/null --wrap 'sleep 20')")
jobs+=("$(cluster_as u_sa2 sbatch --parsable -A p_sa -N1 --exclusive -t 2 --chdir="$work/out" \
  -o /dev/null --wrap 'sleep 13')")
jobs+=("$(cluster_as u_sb sbatch --parsable -A p_sb -N1 --exclusive -t 2 --chdir="$work/out" \
  -o /dev/null --wrap 'sleep 7')")
wait_for 120 "the jobs to finish" jobs_done "${jobs[@]}"
ask_for_pass_and_save "a plugin pass to save the ledger"
sacct -X -j "$(IFS=,; echo "${jobs[*]}")" -o JobID,Account,User,NNodes,Start,End,ElapsedRaw
"$sbudget" ledger show --config "$work/budget.conf" --ledger "$ledger" --users
"$sbudget" --all --users
for p in p_sa p_sb; do
  plugin=$(ledger_json_field "$p" used_this_month)
  mine=$(view_field "$p" .this_month.used)
  check "$p: used this month, sacct $mine GPUh = ledger $plugin GPUh" same_gpuh "$mine" "$plugin"
  check "$p: remaining, sacct = ledger" \
    same_gpuh "$(view_field "$p" .remaining)" "$(ledger_json_field "$p" remaining)"
  check "$p: --ledger reads the same month from the ledger file" \
    same_gpuh "$(view_field "$p" .this_month.used --ledger "$ledger")" "$plugin"
  for u in $(ledger_json_field "$p" users | jq -r 'keys[]'); do
    total=$(ledger_json_field "$p" users | jq -r --arg u "$u" '.[$u]')
    mine=$("$sbudget" -A "$p" --json --users |
      jq -r --arg u "$u" '.[0].users[] | select(.user == $u) | .charged + .low + .preparatory')
    check "$p: user $u, sacct $mine GPUh = ledger $total GPUh" same_gpuh "$mine" "$total"
  done
done
elapsed=$(sacct -n -X -P -j "${jobs[0]}" -o ElapsedRaw)
check "the 2-node job alone is 2 x 4 x ${elapsed} s in u_sa1's usage" \
  same_gpuh "$(view_field p_sa '.users[] | select(.user == "u_sa1") | .this_month' --users)" \
  "8 * $elapsed / 3600"

section "2. who sees what (PrivateData=jobs,usage)"
run_as u_sa1 "$sbudget"
cat "$work/out.stdout"
check "u_sa1: sbudget alone shows p_sa" out_has "p_sa" stdout
check "... and not p_sb" out_lacks "p_sb" stdout
check "... with its month table" out_has "month  calendar" stdout
run_as u_sa1 "$sbudget" -A p_sb
check "u_sa1: -A p_sb is refused with exit 1" test "$(out_code)" = 1
check "... in one line naming the project, the user and PrivateData" \
  test "$(cat "$work/out.stderr")" = \
  "sbudget: error: project p_sb: u_sa1 is not one of its users or coordinators, and PrivateData=jobs,usage shows a project only to those and to operators"
check "... and prints nothing on stdout" test ! -s "$work/out.stdout"
run_as u_sb "$sbudget" --all
check "u_sb: --all is refused with exit 1" test "$(out_code)" = 1
check "... saying it is for operators" out_has "--all is for operators and administrators" stderr
run_as u_op "$sbudget" --all --json
check "u_op (Operator): --all shows both projects" \
  test "$(jq -r '[.[].project] | join(",")' "$work/out.stdout")" = "p_sa,p_sb"
run_as u_coord "$sbudget" --json --users
check "u_coord: sbudget alone shows p_sa (coordinated) and p_sb (member)" \
  test "$(jq -r '[.[].project] | join(",")' "$work/out.stdout")" = "p_sa,p_sb"
check "... and, as coordinator, every user of p_sa" \
  test "$(jq -r '.[0].users | map(.user) | join(",")' "$work/out.stdout")" = "u_sa1,u_sa2"
run_as u_sa1 "$sbudget" -A p_sa --users --json
check "u_sa1 (PrivateData=usage): their own usage and the others' summed up" \
  test "$(jq -r '.[0].users | map(.user) | join(",")' "$work/out.stdout")" = "u_sa1,(others)"
check "... the sum is u_sa2's usage" same_gpuh \
  "$(jq -r '.[0].users[1].charged' "$work/out.stdout")" \
  "$(view_field p_sa '.users[] | select(.user == "u_sa2") | .charged' --users)"

section "3. plot: a valid SVG whose series are the JSON's"
run_as u_sa1 "$sbudget" plot -A p_sa -o "$work/out/p_sa.svg"
check "u_sa1: plot writes the file" test "$(out_code)" = 0 -a -s "$work/out/p_sa.svg"
check "it is well-formed XML" xmllint --noout "$work/out/p_sa.svg"
check "its root element is an SVG 1.1 <svg>" test \
  "$(svg_attr "$work/out/p_sa.svg" "name(/*)")/$(svg_attr "$work/out/p_sa.svg" "/*/@version")" = svg/1.1
"$sbudget" -A p_sa --json >"$work/p_sa.json"
used_series=$(svg_attr "$work/out/p_sa.svg" "//*[@id='used']/@data-gpuh")
json_series=$(jq -r '[0] + ([.[0].history[].used] | [foreach .[] as $u (0; . + $u)]) | map(tostring) | join(" ")' "$work/p_sa.json")
check "cumulative usage in the SVG ($used_series) = the JSON history's ($json_series)" \
  same_series "$used_series" "$json_series"
months=$(jq '.[0].history | length' "$work/p_sa.json")
for ((i = 1; i <= months; i++)); do
  for field in expected minimal used; do
    svg_value=$(svg_attr "$work/out/p_sa.svg" "(//*[@class='month'])[$i]/@data-$field")
    json_value=$(jq -r ".[0].history[$((i - 1))].$field" "$work/p_sa.json")
    check "month $i: $field in the SVG ($svg_value) = JSON ($json_value)" \
      same_gpuh "$svg_value" "$json_value"
  done
done
check "the ideal line ends at the credit" test \
  "$(svg_attr "$work/out/p_sa.svg" "//*[@id='ideal']/@data-gpuh" | awk '{ print $NF }')" = "$FIX_CREDIT"

section "4. why: a pending job, the job ahead of it, its project's budget"
blocker=$(cluster_as u_blk sbatch --parsable -A nobudget -N4 --exclusive -t 5 \
  --chdir="$work/out" -o /dev/null --wrap 'sleep 300')
wait_for 60 "the blocker runs" job_state_is "$blocker" RUNNING
first=$(cluster_as u_sb sbatch --parsable -A p_sb -N4 --exclusive -t 1 --chdir="$work/out" \
  -o /dev/null --wrap 'sleep 1')
sleep 1
second=$(cluster_as u_sa1 sbatch --parsable -A p_sa -N4 --exclusive -t 1 --chdir="$work/out" \
  -o /dev/null --wrap 'sleep 1')
sleep 2
sprio -l
"$sbudget" why "$second" | tee "$work/why_root.txt"
check "root: why names the job, its user and account" \
  grep -q "^job $second (user u_sa1, account p_sa) has waited" "$work/why_root.txt"
check "... the project's budget state" grep -q "^project p_sa: active, month $FIX_MONTH of 12" \
  "$work/why_root.txt"
check "... its priority as sprio gives it" grep -q \
  "priority in partition normal: $(grouped "$(sprio -h -j "$second" -o %Y | tr -d ' ')")" \
  "$work/why_root.txt"
check "... p_sb's job (less usage: higher FAIRSHARE) ahead of it, in the behind band" \
  grep -qE "^ +$first +p_sb +u_sb .* behind " "$work/why_root.txt"
check "... and what would change its position" \
  grep -q "^  - job $first (p_sb) is the nearest ahead in normal" "$work/why_root.txt"
run_as u_sa1 "$sbudget" why "$second"
cat "$work/out.stdout"
check "u_sa1: why on their own job works" test "$(out_code)" = 0
check "... PrivateData=jobs hides p_sb's job from them, and why says so" \
  out_has "PrivateData=jobs,usage: only the jobs you may see are listed" stdout
check "... so no job they can see is ahead" \
  out_has "no pending job you can see in normal has a higher priority" stdout
run_as u_sb "$sbudget" why "$second"
check "u_sb: why on u_sa1's job fails: not in the queue for them (exit 1)" \
  test "$(out_code)" = 1
check "... saying so in one line" out_has "sbudget: error: job $second is not in the queue" stderr
run_as u_blk "$sbudget" why "$blocker"
check "u_blk: their running job is not waiting" test "$(out_code)/$(cat "$work/out.stdout")" = \
  "0/job $blocker (user u_blk, account nobudget) is RUNNING, not waiting."
scancel "$first" "$second" "$blocker"

section "5. the other verbs for a plain user"
run_as u_sa1 "$sbudget" check-config "$work/budget.conf"
check "check-config: OK, 3 partitions, 2 projects" \
  out_has "budget.conf: OK, 3 partitions, 2 projects" stdout
run_as u_sa1 "$sbudget" simulate --credit 6000 --months 6 --usage 750,1250,200
check "simulate: the published example loses 300 in month 3, 500 rolled over" \
  grep -qE '^ +3 .* 200 +300 +500 ' "$work/out.stdout"

summary
