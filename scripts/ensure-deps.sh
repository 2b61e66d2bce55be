#!/usr/bin/env bash
# Makes sure the tools the build needs exist. As root with apt-get (CI, a fresh Debian machine) it
# installs what is missing; elsewhere it names what to install and fails.
# Usage: ensure-deps.sh go|tool   (what the build step about to run needs)
set -euo pipefail

missing=()
need_pkgs=()
case "${1:-all}" in
  go|all)
    command -v go >/dev/null 2>&1 || missing+=("go (the Go toolchain, 1.24 or newer: https://go.dev/dl)") ;;
esac
case "${1:-all}" in
  tool|all)
    command -v cmake >/dev/null 2>&1 || need_pkgs+=(cmake)
    command -v c++ >/dev/null 2>&1 || need_pkgs+=(g++) ;;
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
  echo "ensure-deps: the build needs these, which this machine lacks:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi
