#!/usr/bin/env bash
# Diagnostic: runs one CUDA test app under kernel replay with each Range Profiler strategy knob
# (GOROCPROF_CUDA_EAGER_PROFILER, GOROCPROF_CUDA_REENABLE_ON_SWITCH) and prints, per variant, how
# many counter values came back empty. Usage: rp_variants.sh APP AGENT_NAME (from the repo root,
# after scripts/gpu-test.sh built lib/ and bin/).
set -u
app=${1:-saxpy}
agent=${2:-NVIDIA H200}
for eager in 1 0; do
    for reenable in 0 1; do
        d=/tmp/gorocprof-rp-$eager-$reenable
        rm -rf "$d" && mkdir -p "$d/records"
        python3 - "$d/plan.json" "$agent" <<'PY'
import json, sys
g = ["sm__inst_executed.sum,sm__warps_launched.sum", "sm__inst_executed.sum,smsp__inst_executed_op_global_ld.sum",
     "sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum"]
json.dump({"version": 1, "backend": "cuda", "replay_mode": "kernel", "application_pass": -1, "kernel_trace": True,
           "filters": {"include_regex": "", "exclude_regex": "", "name_kind": "demangled", "iteration_ranges": []},
           "agents": [{"index": 0, "name": sys.argv[2], "passes": [{"group": i, "counters": [{"name": m, "block": "", "event": 0}
                       for m in s.split(",")]} for i, s in enumerate(g)]}]}, open(sys.argv[1], "w"))
PY
        GOROCPROF_CUDA_EAGER_PROFILER=$eager GOROCPROF_CUDA_REENABLE_ON_SWITCH=$reenable GOROCPROF_CONTRACT=1 \
            GOROCPROF_RUN_DIR=$d GOROCPROF_PLAN=$d/plan.json CUDA_INJECTION64_PATH=$PWD/lib/gorocprof/libgorocprof_tool_cuda.so \
            ./bin/cuda-$app >/dev/null 2>"$d/stderr"
        python3 - "$d" "$eager" "$reenable" <<'PY'
import glob, json, sys
vals, empty, warn = 0, 0, []
for f in glob.glob(sys.argv[1] + "/records/*.ndjson"):
    for l in open(f):
        r = json.loads(l)
        if r["t"] == "dispatch":
            for c in r.get("counters") or []:
                for v in c["values"]:
                    vals += 1
                    empty += v is None
        if r["t"] in ("warning", "fatal"):
            warn.append(r["message"][:160])
print("eager=%s reenable=%s: %d of %d values empty; %s" % (sys.argv[2], sys.argv[3], empty, vals, warn[:2]))
PY
    done
done
