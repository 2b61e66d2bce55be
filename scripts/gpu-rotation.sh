#!/usr/bin/env bash
# Counter rotation (an -i file's pmc_groups with pmc_group_interval) on the CUDA backend: one run of
# cuda-many_launches (built by scripts/gpu-test.sh) where dispatch k of the GPU collects group
# ((k-1)/interval) mod G, checked record by record in results.json: the group, its counters only, no
# empty value, replay_pass 0. Run from the repository root on the GPU machine after gpu-test.sh.
set -uo pipefail
WORK=${GPU_ROTATION_WORK:-/tmp/gorocprof-rotation}
APP=${GPU_ROTATION_APP:-bin/cuda-many_launches}
rm -rf "$WORK" && mkdir -p "$WORK"
cat >"$WORK/rotate.yaml" <<'YAML'
jobs:
  - pmc_groups: [[sm__inst_executed.sum], [sm__warps_launched.sum, smsp__inst_executed_op_global_ld.sum]]
    pmc_group_interval: 2
YAML
t=$(date +%s%N)
bin/gorocprof --quiet -i "$WORK/rotate.yaml" -d "$WORK/out" -o run -- "$APP" >"$WORK/run.txt" 2>&1
rc=$?
ms=$((($(date +%s%N) - t) / 1000000))
python3 - "$WORK/out/run_results.json" "$rc" "$ms" <<'PY'
import json, sys
path, rc, ms = sys.argv[1], int(sys.argv[2]), sys.argv[3]
want = [["sm__inst_executed.sum"], ["sm__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum"]]
try:
    doc = json.load(open(path))["rocprofiler-sdk-tool"][0]
except Exception as e:
    print(f"== rotation: FAIL | rc {rc} | {ms} ms | no results.json: {e}")
    sys.exit(1)
names = {c["id"]["handle"]: c["name"] for c in doc["counters"]}
recs = sorted(doc["callback_records"]["counter_collection"], key=lambda r: r["dispatch_data"]["dispatch_info"]["dispatch_id"])
bad = []
for k, r in enumerate(recs, 1):
    g = ((k - 1) // 2) % len(want)
    got = sorted({names[s["counter_id"]["handle"]] for s in r["records"]})
    empty = [s for s in r["records"] if s["value"] is None]
    if r.get("pmc_group") != g or got != want[g] or empty or r.get("replay_pass") != 0:
        bad.append(f"dispatch {k}: group {r.get('pmc_group')} counters {got} ({len(empty)} empty), want group {g} {want[g]}")
ok = rc == 0 and recs and not bad
print(f"== rotation: {'PASS' if ok else 'FAIL'} | rc {rc} | {ms} ms | {len(recs)} dispatches, {len(bad)} wrong" + (f"; first: {bad[0]}" if bad else ""))
sys.exit(0 if ok else 1)
PY
