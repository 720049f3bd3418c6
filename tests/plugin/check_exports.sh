#!/usr/bin/env bash
# Checks that a plugin exports exactly the dynamic symbols Slurm's loader looks up.
# Usage: check_exports.sh PATH_TO_priority_budget.so
#        check_exports.sh PATH_TO_PLUGIN.so API_SYMBOL...   (e.g. job_submit job_modify)
# plugin_name, plugin_type, plugin_version, init and fini are always expected; the API symbols
# default to the six priority_p_* functions.
# Anything more (a C++ symbol, a fallback global such as job_list) could interpose on or be
# interposed by slurmctld's own symbols; anything less and the loader rejects the plugin.
set -euo pipefail

(($# >= 1)) || {
  echo "usage: $0 PATH_TO_PLUGIN.so [API_SYMBOL...]" >&2
  exit 2
}
so=$1
shift
api=("$@")
if ((${#api[@]} == 0)); then
  api=(priority_p_set priority_p_reconfig priority_p_set_assoc_usage
    priority_p_calc_fs_factor priority_p_get_priority_factors_list priority_p_job_end)
fi

expected=$(printf '%s\n' plugin_name plugin_type plugin_version init fini "${api[@]}" | sort)
actual=$(nm -D --defined-only --format=posix "$so" | awk '{ print $1 }' | sort)

if [[ "$actual" != "$expected" ]]; then
  echo "FAIL: $so exports the wrong dynamic symbols (- missing, + unexpected):" >&2
  diff <(echo "$expected") <(echo "$actual") | sed -n 's/^</ -/p; s/^>/ +/p' >&2 || true
  exit 1
fi
echo "OK: $so exports exactly the $(wc -l <<<"$expected") plugin symbols"
