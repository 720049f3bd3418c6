# budget_fixture.sh: a budget.conf and past usage for the plugin scenarios, relative to today.
#
# Source it, then call fixture_dates once. Every project is large (12 months,
# credit 120,000 GPUh, so one month of budget B = 10,000 GPUh and grace 15 %),
# started on the most recent 1 January or 1 July that leaves at least one whole
# month before the current one, so "the previous month" is always a project month.
#
#   fixture_dates            sets FIX_START (YYYY-MM-DD), FIX_MONTH (current project
#                            month, >= 2), FIX_THIS (YYYY-MM), FIX_PREV (YYYY-MM)
#   fixture_budget_conf F    writes budget.conf with projects p_behind, p_on,
#                            p_ahead, p_close, p_acct
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
  {
    echo "# budget.conf of the integration scenarios (generated)"
    echo "PartitionName=normal Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=debug Role=budgeted GpuhPerNodeHour=4"
    echo "PartitionName=low Role=low GpuhPerNodeHour=4"
    for p in p_behind p_on p_ahead p_close p_acct; do
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
