#!/usr/bin/env bash
# Makes sure the tools the build needs exist. As root with apt-get (CI, a fresh Debian machine) it
# installs what is missing; elsewhere it names what to install and fails.
# Usage: ensure-deps.sh go|tool|mpi   (what the build step or test about to run needs; mpi, Open MPI's
# mpirun for scripts/tests/mpi.sh, is no part of the build: without it that test is skipped)
set -euo pipefail

missing=()
need_pkgs=()
# The Go release go.mod names is the oldest that builds the module.
go_needed=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' "$(dirname "$0")/../go.mod")
# version_lt A B: A is an older release than B (dotted numbers).
version_lt() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }
check_go() {
  local go=${GO:-go} have
  if ! command -v "$go" >/dev/null 2>&1; then
    missing+=("go (the Go toolchain, $go_needed or newer: https://go.dev/dl)")
    return
  fi
  have=$(GOTOOLCHAIN=local "$go" env GOVERSION 2>/dev/null | sed 's/^go//')
  version_lt "$have" "$go_needed" || return 0
  # An older go fetches the toolchain go.mod names when GOTOOLCHAIN allows it and the network works.
  if (cd "$(dirname "$0")/.." && "$go" list -m >/dev/null 2>&1); then
    echo "ensure-deps: go $have is older than the $go_needed go.mod needs; using the toolchain it fetched" >&2
    return
  fi
  missing+=("go $go_needed or newer (go.mod needs it; $go is $have, and could not fetch $go_needed: https://go.dev/dl)")
}
case "${1:-all}" in
  go|all) check_go ;;
esac
case "${1:-all}" in
  tool|all)
    command -v cmake >/dev/null 2>&1 || need_pkgs+=(cmake)
    command -v c++ >/dev/null 2>&1 || need_pkgs+=(g++)
    # RE2, the tool's kernel-name filter. A prefix given to CMake (make CMAKE_ARGS=-DRE2_ROOT=DIR, or
    # RE2_ROOT=DIR in the environment) also serves, on a machine without a package manager.
    re2_root=$(printf '%s\n' "${CMAKE_ARGS:-}" | sed -n 's/.*-DRE2_ROOT=\([^ ]*\).*/\1/p')
    re2_root=${re2_root:-${RE2_ROOT:-}}
    if [ -n "$re2_root" ]; then
      [ -e "$re2_root/usr/include/re2/re2.h" ] || [ -e "$re2_root/include/re2/re2.h" ] ||
        missing+=("RE2 under RE2_ROOT=$re2_root (no include/re2/re2.h there: dpkg -x libre2-dev and libre2-9 into it)")
    elif ! { [ -e /usr/include/re2/re2.h ] || pkg-config --exists re2 2>/dev/null; }; then
      need_pkgs+=(libre2-dev)
    fi ;;
esac
case "${1:-all}" in
  mpi) command -v mpirun >/dev/null 2>&1 || need_pkgs+=(openmpi-bin) ;;
esac

if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-deps: installing ${need_pkgs[*]} with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
  else
    missing+=("${need_pkgs[@]} (Debian/Ubuntu: sudo apt-get install ${need_pkgs[*]})")
  fi
fi

if [ ${#missing[@]} -gt 0 ]; then
  needer="the build needs"
  [ "${1:-all}" = mpi ] && needer="the MPI test (scripts/tests/mpi.sh) needs"
  echo "ensure-deps: $needer these, which this machine lacks:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi
