#!/usr/bin/env bash
# After `make test` has built everything, building again compiles nothing: the sanitizer builds are
# incremental (a second `make test` after a one-line change recompiles only what that line touches).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
for b in "tool:" "asan:" "tsan:--target concurrency_tests"; do
  dir=$build/${b%%:*} extra=${b#*:}
  [ -d "$dir" ] || { echo "FAIL incremental: $dir was not built (run make test)" >&2; exit 1; }
  # shellcheck disable=SC2086
  out=$(cmake --build "$dir" $extra -j 2 2>&1) || { printf '%s\n' "$out" >&2; echo "FAIL incremental: building $dir again failed" >&2; exit 1; }
  if printf '%s\n' "$out" | grep -E "Building (C|CXX) object|Linking" >/dev/null; then
    printf '%s\n' "$out" | grep -E "Building|Linking" | head -n 10 >&2
    echo "FAIL incremental: a second build of $dir compiled again" >&2
    exit 1
  fi
done
echo "ok incremental (tool, asan, tsan rebuild nothing)"
