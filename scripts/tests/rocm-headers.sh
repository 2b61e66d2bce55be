#!/usr/bin/env bash
# scripts/rocm-headers-check.sh without the real SDK (CI has none; docs/rocm.md says how to run it
# against the real headers): its arguments; the check of the emulator's headers against themselves
# (tool/rocm and the ABI test compile, no name differs); and against a copy whose counters.h no
# longer includes deprecated/counters.h, where it must name the function that copy hides.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL rocm-headers: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
emu=tool/rocm-emulator/include

for args in "" "$tmp" "-I $tmp/none $emu" "--bogus $emu"; do
  rc=0
  # shellcheck disable=SC2086 # each case is a word list
  scripts/rocm-headers-check.sh $args >"$tmp/out" 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "'$args' exited $rc, want 2: $(cat "$tmp/out")"
done

scripts/rocm-headers-check.sh "$emu" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "the emulator against itself"; }
grep -q '^   ok     tool/rocm/tool.cpp$' "$tmp/out" || fail "tool.cpp not checked: $(cat "$tmp/out")"
grep -q '^rocm-headers-check: ok$' "$tmp/out" || fail "no ok line"

cp -r "$emu" "$tmp/real"
sed -i '/deprecated\/counters.h/d' "$tmp/real/rocprofiler-sdk/counters.h"
if scripts/rocm-headers-check.sh "$tmp/real" >"$tmp/out" 2>&1; then fail "a tree hiding a function passed"; fi
grep -q '^   FAILED counters.h: visible through the emulator' "$tmp/out" || fail "counters.h not named: $(cat "$tmp/out")"
grep -q '^          rocprofiler_query_counter_instance_count$' "$tmp/out" || fail "the hidden function not named: $(cat "$tmp/out")"
echo "ok rocm-headers: arguments, the emulator against itself, a tree with another include graph"
