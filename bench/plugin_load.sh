#!/usr/bin/env bash
# How long a Slurm client takes to load each priority plugin (median of 21 fresh processes).
# Only PriorityFlags=NO_FAIR_TREE makes sshare load the priority plugin at all (for
# priority_g_calc_fs_factor); under fair tree, Slurm 22.05's default, sshare never loads it.
#   bench/plugin_load.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: bench/plugin_load.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
slurm_lib=/usr/lib/x86_64-linux-gnu/slurm-wlm
tool=$(mktemp -d)/plugin_load
trap 'rm -rf "$(dirname "$tool")"' EXIT
# --no-as-needed: the program calls nothing in libslurmfull, yet the plugin needs its symbols.
cc -O2 -o "$tool" "$here/plugin_load.c" -Wl,--no-as-needed -L"$slurm_lib" -lslurmfull \
  -Wl,-rpath,"$slurm_lib"
for plugin in "$slurm_lib/priority_multifactor.so" "$build/src/slurm/priority_budget.so"; do
  for _ in $(seq 21); do "$tool" "$plugin"; done | sort -n | awk -v p="$(basename "$plugin")" \
    '{ v[NR] = $1 } END { printf "%s: %.3f ms (median of %d loads)\n", p, v[(NR + 1) / 2], NR }'
done
