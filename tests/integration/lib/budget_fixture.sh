# budget_fixture.sh: a budget.conf and past usage for the plugin scenarios, relative to today.
#
# Source it, then call fixture_dates once. Every project is large (12 months,
# credit 120,000 GPUh, so one month of budget B = 10,000 GPUh and grace 15 %),
# started on the most recent 1 January or 1 July that leaves at least one whole
# month before the current one, so "the previous month" is always a project month.
#
#   fixture_dates            sets FIX_START (YYYY-MM-DD), FIX_MONTH (current project
#                            month, >= 2), FIX_THIS (YYYY-MM), FIX_PREV (YYYY-MM)
#   fixture_budget_conf F [PROJECT...]
#                            writes budget.conf with the partitions normal, debug
#                            (budgeted) and low, and the projects named (default
#                            p_behind, p_on, p_ahead, p_close, p_acct)
#   fixture_usage_csv F      past usage: every earlier month on the line (B each);
#                            this month p_behind 100 GPUh, p_on 5,000, p_ahead 12,000
#   fixture_prev_csv F       usage for the month-close scenario: p_close used 3,000
#                            GPUh in the previous month (minimal 8,500: 5,500 lost,
#                            1,500 rolled over)
# shellcheck shell=bash

FIX_CREDIT=120000
FIX_B=10000

fixture_dates() {
  local y m
  y=$(date +%Y)
  m=$((10#$(date +%m)))
  if ((m == 1)); then
    FIX_START="$((y - 1))-07-01"
  elif ((m <= 7)); then
    FIX_START="$y-01-01"
  else
    FIX_START="$y-07-01"
  fi
  local sy=${FIX_START:0:4} sm=$((10#${FIX_START:5:2}))
  FIX_MONTH=$(((y - sy) * 12 + m - sm + 1))
  FIX_THIS=$(date +%Y-%m)
  FIX_PREV=$(date -d "$(date +%Y-%m-01) -1 day" +%Y-%m)
}

fixture_budget_conf() {
  local p
  (($# > 1)) || set -- "$1" p_behind p_on p_ahead p_close p_acct
  {
    echo "# budget.conf of the integration scenarios (generated)"
    echo "PartitionName=normal Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=debug Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=low Role=low GpuhPerNodeHour=4"
    for p in "${@:2}"; do
      echo "Project=$p Kind=large Credit=$FIX_CREDIT Start=$FIX_START PIs=pi.$p@uni.ch StorageTB=1 StorageInodes=1000000"
    done
  } >"$1"
}

# Calendar months from FIX_START up to (not including) FIX_THIS.
_fixture_past_months() {
  local d=$FIX_START
  while [[ ${d:0:7} != "$FIX_THIS" ]]; do
    echo "${d:0:7}"
    d=$(date -d "$d +1 month" +%Y-%m-%d)
  done
}

fixture_usage_csv() {
  local month p
  {
    echo "account,user,month,partition,gpu_hours"
    for month in $(_fixture_past_months); do
      for p in p_behind p_on p_ahead p_acct; do
        echo "$p,u_${p#p_},$month,budgeted,$FIX_B"
      done
    done
    echo "p_behind,u_behind,$FIX_THIS,budgeted,100"
    echo "p_on,u_on,$FIX_THIS,budgeted,5000"
    echo "p_ahead,u_ahead,$FIX_THIS,budgeted,12000"
  } >"$1"
}

fixture_prev_csv() {
  local month
  {
    echo "account,user,month,partition,gpu_hours"
    for month in $(_fixture_past_months); do
      if [[ $month == "$FIX_PREV" ]]; then
        echo "p_close,u_close,$month,budgeted,3000"
      else
        echo "p_close,u_close,$month,budgeted,$FIX_B"
      fi
    done
  } >"$1"
}

# --- Lifecycle scenarios (lifecycle_scenarios.sh) ------------------------------------------
#
#   fixture_lifecycle_dates    after fixture_dates: sets
#                              LC_PREP_START   p_prep's start (the 1st of next month)
#                              LC_END_LAST     p_end's last day of compute (about two months ago)
#                              LC_END_STORAGE  p_end's last day of readable storage (end + 90 days)
#                              LC_EXT_START    a start one year before FIX_START (p_ext "ended")
#                              LC_EXT_LAST     the last day of compute with that start
#   fixture_lifecycle_conf F   writes budget.conf: CreditUsedUp=redirect, UnbudgetedAccounts=allow,
#                              projects p_act (active, behind its line), p_prep (preparatory),
#                              p_low (credit used up, 0.01 GPUh of low allowance left), p_cap
#                              (credit and low allowance used up: blocked), p_cross (0.01 GPUh
#                              of credit left), p_ext (active), p_end (small, ended)
#   fixture_lifecycle_usage_csv F   the past usage that puts them there

fixture_lifecycle_dates() {
  local first_of_month end
  first_of_month=$(date +%Y-%m-01)
  LC_PREP_START=$(date -d "$first_of_month +1 month" +%Y-%m-%d)
  LC_END_CREATED=$(date -d "$first_of_month -8 month" +%Y-%m-%d)
  end=$(date -d "$LC_END_CREATED +7 month" +%Y-%m-%d) # start = created + 1 month; 6 months
  LC_END_LAST=$(date -d "$end -1 day" +%Y-%m-%d)
  LC_END_STORAGE=$(date -d "$end +89 day" +%Y-%m-%d)
  LC_EXT_START=$(date -d "$FIX_START -1 year" +%Y-%m-%d)
  LC_EXT_LAST=$(date -d "$FIX_START -1 day" +%Y-%m-%d)
}

# fixture_lifecycle_conf FILE [P_EXT_START]: P_EXT_START defaults to FIX_START.
fixture_lifecycle_conf() {
  local y p
  y=$(date +%Y)
  {
    echo "# budget.conf of the lifecycle scenarios (generated)"
    echo "CreditUsedUp=redirect LowPartition=low"
    echo "UnbudgetedAccounts=allow"
    echo "NodeHourPrice=$((y - 2)):2.69,$((y - 1)):2.69,$y:2.69,$((y + 1)):2.69"
    echo "PartitionName=normal Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=debug Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=low Role=low GpuhPerNodeHour=4"
    for p in p_act p_low p_cap p_cross; do
      echo "Project=$p Kind=large Credit=$FIX_CREDIT Start=$FIX_START PIs=pi.$p@uni.ch StorageTB=1 StorageInodes=1000000"
    done
    echo "Project=p_ext Kind=large Credit=$FIX_CREDIT Start=${2:-$FIX_START} PIs=pi.p_ext@uni.ch StorageTB=1 StorageInodes=1000000"
    echo "Project=p_prep Kind=small Credit=6000 Created=$(date +%Y-%m-%d) PIs=pi.p_prep@uni.ch"
    echo "Project=p_end Kind=small Credit=6000 Created=$LC_END_CREATED PIs=pi.p_end@uni.ch"
  } >"$1"
}

fixture_lifecycle_usage_csv() {
  local month p used_up
  # What leaves exactly 0 of the credit after every earlier month on the line.
  used_up=$((FIX_CREDIT - (FIX_MONTH - 1) * FIX_B))
  {
    echo "account,user,month,partition,gpu_hours"
    for month in $(_fixture_past_months); do
      for p in p_act p_low p_cap p_cross p_ext; do
        echo "$p,u_${p#p_},$month,budgeted,$FIX_B"
      done
    done
    echo "p_act,u_act,$FIX_THIS,budgeted,100"
    echo "p_ext,u_ext,$FIX_THIS,budgeted,100"
    echo "p_low,u_low,$FIX_THIS,budgeted,$used_up"
    echo "p_low,u_low,$FIX_THIS,low,$((FIX_B - 1)).99"
    echo "p_cap,u_cap,$FIX_THIS,budgeted,$used_up"
    echo "p_cap,u_cap,$FIX_THIS,low,$FIX_B"
    echo "p_cross,u_cross,$FIX_THIS,budgeted,$((used_up - 1)).99"
  } >"$1"
}
