#!/usr/bin/env bash
# `make demo` on a built tree says what it builds in a few lines (one per step) before the demo's own
# output, instead of make's and cmake's progress noise.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(make --no-print-directory demo 2>&1) || { echo "$out" >&2; echo "FAIL make-output: make demo failed" >&2; exit 1; }
before=$(printf '%s\n' "$out" | sed -n '/profile bin\/sim-demo/q;p' | wc -l)
if [ "$before" -gt 8 ]; then
  printf '%s\n' "$out" | head -n 20 >&2
  echo "FAIL make-output: $before lines before the demo, want at most 8" >&2
  exit 1
fi
printf '%s\n' "$out" | grep -q "GOROCPROF KERNEL SUMMARY" || { printf '%s\n' "$out" | tail -n 30 >&2; echo "FAIL make-output: no summary" >&2; exit 1; }
echo "ok make-output ($before lines before the demo)"
