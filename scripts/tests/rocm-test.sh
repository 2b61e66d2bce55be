#!/usr/bin/env bash
# The parts of scripts/rocm-test.sh that need no AMD GPU: its argument handling, the whole script
# over the SDK emulator and bin/sim-demo (--emulate: every check but rocprofv3's passes, rocprofv3
# skipped; the trace section's own checks where this gorocprof has --sys-trace), its record check failing on a run with a pass missing and on one whose SQ_WAVES differs
# between passes, and both scripts shellcheck-clean where shellcheck is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL rocm-test: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in bin/gorocprof bin/sim-demo lib/gorocprof/rocm-emulator/lib/librocprofiler-sdk.so; do
  [ -e "$f" ] || fail "$f is not built (make all)"
done

# Bad arguments: exit 2 with the usage, before anything runs.
for args in "--bogus" "--sections apps,gpu" "--rocm-root" "--check-run $tmp/none.json"; do
  rc=0
  # shellcheck disable=SC2086 # each case is a word list
  scripts/rocm-test.sh $args >"$tmp/out" 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "'$args' exited $rc, want 2"
  grep -q '^usage: scripts/rocm-test.sh' "$tmp/out" || fail "'$args' printed no usage: $(cat "$tmp/out")"
done

# The whole script over the emulator.
scripts/rocm-test.sh --emulate --out "$tmp/run" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "--emulate failed"; }
for want in '^ok    results: ' '^ok    records: 30 dispatches, passes 0\.\.P-1 once each \(agent 0: 3 passes, agent 1: 3 passes\)' \
  '^ok    passes: Agent 1 \(GPU 0, gfx90a\): 3 passes;Agent 2 \(GPU 1, gfx942\): 3 passes: as recorded$' '^ok    compare: all [0-9]+ values agree$' \
  '^skipped rocprofv3: rocprofv3 is not installed'; do
  grep -qE "$want" "$tmp/out" || { cat "$tmp/out" >&2; fail "--emulate: no line matching $want"; }
done
[ -f "$tmp/run/rocm-test.md" ] || fail "no rocm-test.md"
# The trace section: over the emulator every domain sim-demo calls has records, linked to their calls.
if bin/gorocprof --help 2>&1 | grep -q -- '--sys-trace'; then
  for want in '^ok    trace: hip_api [1-9][0-9]* hsa_api [1-9][0-9]* marker_api 0 memory_copy [1-9][0-9]* kernel_dispatch 30 records; every dispatch and copy has its HIP call$' \
    '^skipped trace-rocprofv3: rocprofv3 is not installed'; do
    grep -qE "$want" "$tmp/out" || { cat "$tmp/out" >&2; fail "--emulate: no line matching $want"; }
  done
else
  grep -q '^skipped trace: this gorocprof has no --sys-trace' "$tmp/out" || fail "--emulate: the trace section neither ran nor said why"
fi

# The record check must fail on a run that lost a pass, and on one whose SQ_WAVES differs by pass.
results=$tmp/run/kernel/run_results.json
python3 - "$results" "$tmp/lost.json" "$tmp/waves.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
recs = doc["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"]
lost = json.loads(json.dumps(doc))
lost["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"] = [
    r for r in recs if not (r["dispatch_data"]["dispatch_info"]["dispatch_id"] == 1 and r["replay_pass"] == 1)]
json.dump(lost, open(sys.argv[2], "w"))
waves = json.loads(json.dumps(doc))
for r in waves["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"]:
    if r["dispatch_data"]["dispatch_info"]["dispatch_id"] == 2 and r["replay_pass"] == 2:
        for v in r["records"]: v["value"] += 1
json.dump(waves, open(sys.argv[3], "w"))
PY
scripts/rocm-test.sh --check-run "$results" >"$tmp/out" || fail "--check-run on the good run: $(cat "$tmp/out")"
if scripts/rocm-test.sh --check-run "$tmp/lost.json" >"$tmp/out"; then fail "--check-run passed a run without pass 1 of dispatch 1"; fi
grep -q '^FAIL records: dispatch 1 (agent [0-9]): passes \[0, 2\], want \[0, 1, 2\]$' "$tmp/out" || fail "lost pass: $(cat "$tmp/out")"
if scripts/rocm-test.sh --check-run "$tmp/waves.json" >"$tmp/out"; then fail "--check-run passed SQ_WAVES differing by pass"; fi
grep -q '^FAIL records: dispatch 2: SQ_WAVES differs across passes' "$tmp/out" || fail "waves: $(cat "$tmp/out")"

if command -v shellcheck >/dev/null; then
  shellcheck scripts/rocm-test.sh scripts/rocm-headers-check.sh scripts/tests/rocm-test.sh scripts/tests/rocm-headers.sh ||
    fail "shellcheck"
else
  echo "rocm-test: shellcheck not installed (apt-get install shellcheck): not checked"
fi
echo "ok rocm-test: arguments, --emulate, the record check on broken runs"
