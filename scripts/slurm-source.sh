#!/usr/bin/env bash
# Fetches, unpacks and headers-only configures the Slurm source matching the installed slurmctld.
#
# Usage:
#   slurm-source.sh fetch CACHE_DIR [VERSION]
#       VERSION is a full Debian version (e.g. 22.05.8-4+deb12u3) of the source package that
#       built slurmctld; it defaults to the installed one. Downloads the source package with
#       apt-get into CACHE_DIR (skipped when the .orig tarball is already there), unpacks the
#       pristine .orig tarball into CACHE_DIR/slurm-UPSTREAM (skipped when present) and
#       configures it (see below). Prints the tree's absolute path as the last stdout line.
#   slurm-source.sh configure TREE
#       Generates only config.h and slurm/slurm_version.h in TREE (about 30 s on 2 cores);
#       skipped when both exist. No Makefiles, no make: a plugin needs only the headers.
#
# Progress goes to stderr. Exits non-zero with a message when a step fails. The caller (cmake/
# SlurmSource.cmake) compares the generated version with the installed one.
set -euo pipefail

die() {
  echo "slurm-source.sh: $*" >&2
  exit 1
}

# Prints the source package name and full version that built the installed slurmctld.
installed_source() {
  local v
  v=$(dpkg-query -W -f='${source:Package} ${Version}' slurmctld 2>/dev/null) ||
    die "slurmctld is not installed (run scripts/install-deps.sh)"
  echo "$v"
}

# Strips the epoch and the Debian revision: 1:22.05.8-4+deb12u3 -> 22.05.8.
upstream_of() {
  local v=${1#*:}
  echo "${v%-*}"
}

configure_tree() {
  local tree=$1
  [[ -x "$tree/configure" ]] || die "$tree has no configure script"
  if [[ -f "$tree/config.h" && -f "$tree/slurm/slurm_version.h" ]]; then
    return 0
  fi
  echo "slurm-source.sh: configuring the headers of $tree (about 30 s)" >&2
  local log=$tree/budget-configure.log
  # --no-create skips the ~300 Makefiles and libtool; config.status then writes just the two
  # generated headers the plugin includes.
  if ! (cd "$tree" &&
    ./configure --quiet --no-create --no-recursion --disable-debug &&
    ./config.status --quiet config.h slurm/slurm_version.h) >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    die "configure failed in $tree (full log: $log)"
  fi
}

fetch() {
  local cache=$1 installed
  installed=$(installed_source)
  local package=${installed% *} version=${2:-${installed#* }}
  local upstream
  upstream=$(upstream_of "$version")
  mkdir -p "$cache"
  cache=$(cd "$cache" && pwd)

  # Two configures of the same build folder must not unpack into each other.
  exec 9>"$cache/.lock"
  flock 9

  local -a orig=("$cache/${package}_${upstream}".orig.tar.*)
  if [[ ! -f "${orig[0]}" ]]; then
    echo "slurm-source.sh: downloading ${package}=${version}" >&2
    local dl=$cache/download.tmp
    rm -rf "$dl"
    mkdir "$dl"
    # The sandbox user (_apt) cannot write into a root-owned build folder; apt verifies the
    # files against the signed Sources index either way.
    (cd "$dl" && apt-get source --download-only -qq -o APT::Sandbox::User=root \
      "${package}=${version}") >&2 ||
      die "apt-get source ${package}=${version} failed (is a deb-src entry configured?" \
        "scripts/install-deps.sh adds one)"
    mv "$dl"/* "$cache"/
    rmdir "$dl"
    orig=("$cache/${package}_${upstream}".orig.tar.*)
    [[ -f "${orig[0]}" ]] || die "no ${package}_${upstream}.orig tarball in the download"
  fi

  local tree=$cache/slurm-$upstream
  if [[ ! -x "$tree/configure" ]]; then
    echo "slurm-source.sh: unpacking $(basename "${orig[0]}")" >&2
    local tmp=$cache/unpack.tmp
    rm -rf "$tmp" "$tree"
    mkdir "$tmp"
    tar -xf "${orig[0]}" -C "$tmp"
    local -a top=("$tmp"/*)
    if ((${#top[@]} != 1)) || [[ ! -d "${top[0]}" ]]; then
      die "${orig[0]} does not hold exactly one top-level directory"
    fi
    mv "${top[0]}" "$tree"
    rmdir "$tmp"
  fi

  configure_tree "$tree"
  echo "$tree"
}

case "${1:-}" in
  fetch)
    (($# >= 2 && $# <= 3)) || die "usage: slurm-source.sh fetch CACHE_DIR [VERSION]"
    fetch "$2" "${3:-}"
    ;;
  configure)
    (($# == 2)) || die "usage: slurm-source.sh configure TREE"
    configure_tree "$2"
    ;;
  *)
    die "usage: slurm-source.sh fetch CACHE_DIR [VERSION] | configure TREE"
    ;;
esac
