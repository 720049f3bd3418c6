#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the local cluster need.
# Idempotent: a machine that already has them only pays for a dpkg query.
set -euo pipefail

build_packages=(
  build-essential cmake pkg-config git ca-certificates
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  clang-format clang-tidy dpkg-dev
  clang libclang-rt-14-dev python3
)
cluster_packages=(
  munge slurmctld slurmd slurmdbd slurm-client mariadb-server jq man-db
  libfaketime # a slurmctld that crosses a month boundary in a few minutes (month_boundary.sh)
)

want=("${build_packages[@]}")
if [[ "${BUDGET_WITH_CLUSTER:-1}" == 1 ]]; then
  want+=("${cluster_packages[@]}")
fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# The Slurm source (for the plugin's internal headers) comes from the same archive
# as the binaries: add a deb-src twin of every configured deb source.
ensure_deb_src() {
  local src=/etc/apt/sources.list.d/debian.sources
  local twin=/etc/apt/sources.list.d/budget-deb-src.sources
  [[ -f "$twin" ]] && return 0
  if grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return 0
  fi
  if [[ -f "$src" ]]; then
    sed -E 's/^Types:.*/Types: deb-src/' "$src" >"$twin"
  elif [[ -f /etc/apt/sources.list ]]; then
    sed -nE 's/^deb (.*)/deb-src \1/p' /etc/apt/sources.list >"/etc/apt/sources.list.d/budget-deb-src.list"
  fi
  need_update=1
}

need_update=0
if [[ "${BUDGET_WITH_CLUSTER:-1}" == 1 ]]; then
  ensure_deb_src
fi

if ((${#missing[@]} > 0)) || ((need_update)); then
  apt-get update -qq
fi
if ((${#missing[@]} > 0)); then
  # Keep init scripts from starting munge/mariadb behind our back: the cluster
  # harness starts every daemon itself and tracks it by PID.
  [[ -e /usr/sbin/policy-rc.d ]] || printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
