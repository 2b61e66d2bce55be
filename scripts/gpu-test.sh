#!/usr/bin/env bash
# The CUDA backend's proof on a real GPU (an H200 here). Run from the repository root on the GPU
# machine: builds the tool library there, records the device's catalog, then runs each CUDA test app
# unprofiled, under gorocprof's kernel replay (3 counter groups) and under Nsight Compute, checks
# the records (passes 0..P-1 once per dispatch, identical deterministic values across passes, equal
# to ncu's), compares a PyTorch training step and a PyTorch CUDA graph's replays bit for bit, checks the
# records' durations against gpu__time_duration.sum, and prints a results table last.
#
# Uses bin/gorocprof (cross-built beforehand) when present; the record-level checks drive the tool
# library directly (plan.json + environment, docs/record-format.md) so they run without it too.
# Writes $OUT/gpu-test.md (the table), $OUT/gpu-test.log, $OUT/h200-agents.json, $OUT/h200-metrics.json.
set -uo pipefail

ROOT=$(pwd)
OUT=${OUT:-$ROOT/out/gpu-test}
WORK=${GPU_TEST_WORK:-/tmp/gorocprof-gpu-test}
JOBS=${JOBS:-$(nproc)}
APPS=${GPU_TEST_APPS:-"inplace saxpy device_counter many_launches streams malloc_async vmm indirect module_unload graphs timing threads"}
# What to run: apps (record-level checks, ncu, front end), torch (bitwise PyTorch check), compare
# (gorocprof compare: kernel replay against application replay on CUDA test apps).
# switch (ten single-metric groups whose union needs two hardware passes: measured in union runs, or in union
# sessions or configurations changing between passes under GOROCPROF_CUDA_UNION_RUNS=0).
# timing (the records' durations against gpu__time_duration.sum, kernels of 10 us and up); cache (DRAM and L2
# reads against ncu's under --cache-control all and none, within 5%); threads (tests/threads.cu: other threads'
# copies, memsets and frees during replay windows, results equal to an unprofiled run's); coldstart (a first
# run with an empty query cache, split into the helper's calls, the app's CUDA start and the tool's);
# cachecost (GOROCPROF_CUDA_TIMING=1 under --cache-control all and none: what the flush costs per pass);
# guards (tests/guards.cu: a kernel named like NCCL's runs once per launch, declined; a 300 ms kernel under
# GOROCPROF_CUDA_REPLAY_TIMEOUT=0.05 is given up on, the app finishes with one run's results); graphwhole
# (tests/graphs.cu under --graph-profiling graph: one dispatch per graph launch, values against ncu's);
# availability (a counter availability that cannot be kept between processes is one warning, whether the
# Range Profiler was enabled at context creation or at the first launch, and costs no counter).
# trace (tests/trace.cu: the runtime and driver calls, copies, memsets and NVTX markers it made, each once, traced
# alone and under kernel replay with the same lines, dispatches correlated with their launch calls; against nsys
# where it makes a report; through bin/gorocprof --sys-trace when the front end has it).
SECTIONS=${GPU_TEST_SECTIONS:-"coldstart apps threads torch compare switch timing cache cachecost guards graphwhole availability trace"}
# inplace is not among them: none of its kernels runs 10 us, the shortest compared.
TIMING_APPS=${GPU_TEST_TIMING_APPS:-"timing"}
CACHE_APPS=${GPU_TEST_CACHE_APPS:-"inplace saxpy"}
SWITCH_APPS=${GPU_TEST_SWITCH_APPS:-"saxpy device_counter"}
COMPARE_APPS=${GPU_TEST_COMPARE_APPS:-"saxpy many_launches"}
CACHECOST_APPS=${GPU_TEST_CACHECOST_APPS:-"saxpy many_launches"}
COLD_APP=${GPU_TEST_COLD_APP:-saxpy}
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT"
rm -rf "$WORK" && mkdir -p "$WORK"
LOG=$OUT/gpu-test.log
: >"$LOG"
export PYTHONUNBUFFERED=1

G0=sm__inst_executed.sum,sm__warps_launched.sum
G1=sm__inst_executed.sum,smsp__inst_executed_op_global_ld.sum
G2=sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum
ALL=sm__inst_executed.sum,sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum
PASSES=3
TOOL=$ROOT/lib/gorocprof/libgorocprof_tool_cuda.so
QUERY=$ROOT/lib/gorocprof/gorocprof-query-cuda

say() { echo "== $*" | tee -a "$LOG"; }
# query_passes GROUP: the hardware passes gorocprof-query-cuda says GROUP (comma-separated metrics) needs.
query_passes() { "$QUERY" passes --agent 0 "$1" 2>>"$LOG" | python3 -c 'import json,sys; print(json.load(sys.stdin)["passes"])'; }
# ncu_csv METRICS CSV CMD...: CMD under ncu's kernel replay, raw values of METRICS written to CSV
# ($NCU_CACHE, when set, is its --cache-control).
ncu_csv() {
    local metrics=$1 csv=$2
    shift 2
    ncu --csv --page raw --clock-control none ${NCU_CACHE:+--cache-control $NCU_CACHE} --print-kernel-base mangled \
        --metrics "$metrics" --log-file "$csv" "$@"
}
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# ---- build -----------------------------------------------------------------------------------
build() {
    if [ -n "${GPU_TEST_TARGETS:-}" ]; then
        # Only what the chosen sections run (a shorter device call): the tool library, the query helper and
        # the named apps, copied where the install would put them.
        say "building $GPU_TEST_TARGETS (cmake -S tool -B build/gpu)"
        local t
        t="gorocprof_tool_cuda gorocprof-query-cuda gorocprof_regex"
        for a in $GPU_TEST_TARGETS; do t="$t cuda-$a"; done
        cmake -S tool -B build/gpu -DCMAKE_BUILD_TYPE=Release >>"$LOG" 2>&1 &&
            cmake --build build/gpu -j"$JOBS" --target $t >>"$LOG" 2>&1 || return 1
        mkdir -p lib/gorocprof bin
        cp build/gpu/cuda/libgorocprof_tool_cuda.so build/gpu/cuda/gorocprof-query-cuda lib/gorocprof/ || return 1
        find build/gpu -name 'libgorocprof_regex.so' -exec cp {} lib/gorocprof/ \;
        for a in $GPU_TEST_TARGETS; do cp build/gpu/cuda/tests/cuda-$a bin/ || return 1; done
        return 0
    fi
    say "building the tool library (cmake -S tool -B build/gpu)"
    if cmake -S tool -B build/gpu -DCMAKE_BUILD_TYPE=Release >>"$LOG" 2>&1 &&
        cmake --build build/gpu -j"$JOBS" >>"$LOG" 2>&1 &&
        cmake --install build/gpu --prefix "$ROOT" >>"$LOG" 2>&1; then
        return 0
    fi
    say "the whole tool tree did not build; building the CUDA backend alone (tool/cuda/standalone)"
    local b=build/gpu-cuda t
    cmake -S tool/cuda/standalone -B $b -DCMAKE_BUILD_TYPE=Release >>"$LOG" 2>&1 || return 1
    t="gorocprof_tool_cuda gorocprof-query-cuda"
    for a in $APPS trace; do t="$t cuda-$a"; done
    cmake --build $b -j"$JOBS" --target $t -- -k >>"$LOG" 2>&1 || return 1
    mkdir -p lib/gorocprof bin
    cp $b/cuda/libgorocprof_tool_cuda.so $b/cuda/gorocprof-query-cuda lib/gorocprof/ &&
        for a in $APPS trace; do cp $b/cuda/tests/cuda-$a bin/ || return 1; done
}
if ! build; then
    say "BUILD FAILED (last lines of the log follow)"
    grep -E "error|Error" "$LOG" | grep -v "^--" | head -60
    exit 1
fi

FAILED=0  # the script's exit status: 1 when any check below fails

# ---- host unit tests of the backend's bookkeeping (built with it when the testkit is there) ------
UNIT="not built (standalone CUDA build)"  # tool/cudahost, label cuda-unit
if [ -z "${GPU_TEST_TARGETS:-}" ] && [ -d build/gpu ] && ctest --test-dir build/gpu -N -L cuda-unit 2>/dev/null | grep -q 'Total Tests: [1-9]'; then
    say "host unit tests of the CUDA backend (ctest -L cuda-unit)"
    if ctest --test-dir build/gpu -L cuda-unit --output-on-failure >>"$LOG" 2>&1; then
        UNIT="pass"
    else
        UNIT="FAIL (see gpu-test.log)"
        FAILED=1
    fi
    say "unit tests: $UNIT"
fi

# ---- coldstart: a first run with an empty query cache, before anything here asks the helper -------------
# The front end's run with GOROCPROF_QUERY_CACHE at an empty directory (GOROCPROF_QUERY_TRACE=1 prints each
# helper call and planning phase), the same run again (warm), then each part alone: the helper's calls,
# the app unprofiled (its own CUDA start), the app under the tool library without the front end, and ncu.
if want coldstart && [ -x "$ROOT/bin/gorocprof" ]; then
    exe=$ROOT/bin/cuda-$COLD_APP
    cache=$WORK/cold-cache
    rm -rf "$cache" && mkdir -p "$cache"
    # cold-before: bin/gorocprof-before (a build of the front end that lists the whole catalog on a cold
    # cache), when carried, on a cache of its own, between the first cold run and a second one.
    for run in cold cold-before cold-again warm; do
        front=$ROOT/bin/gorocprof
        case $run in
        cold-before) front=$ROOT/bin/gorocprof-before; [ -x "$front" ] || continue; c=$WORK/cold-cache-before ;;
        cold-again) c=$WORK/cold-cache-again ;;
        *) c=$cache ;;
        esac
        mkdir -p "$c"
        t=$(date +%s%N)
        GOROCPROF_QUERY_CACHE=$c GOROCPROF_QUERY_TRACE=1 "$front" --pmc sm__inst_executed.sum \
            -d "$WORK/cold-$run" -o "$COLD_APP" -- "$exe" >"$WORK/cold-$run.txt" 2>&1
        say "coldstart $COLD_APP $run: rc $? / $(ms_since $t) ms"
        grep -E "query helper|planning" "$WORK/cold-$run.txt" | tee -a "$LOG"
    done
    for q in "agents" "agents --only sm__inst_executed.sum --passes sm__inst_executed.sum" "metrics --agent 0" \
        "metrics --agent 0 --only sm__inst_executed.sum --passes sm__inst_executed.sum" \
        "passes --agent 0 sm__inst_executed.sum"; do
        t=$(date +%s%N)
        "$QUERY" $q >/dev/null 2>>"$LOG"
        say "coldstart helper $q: rc $? / $(ms_since $t) ms"
    done
    t=$(date +%s%N)
    "$exe" >/dev/null 2>&1
    say "coldstart $COLD_APP unprofiled: rc $? / $(ms_since $t) ms"
    t=$(date +%s%N)
    ncu_csv sm__inst_executed.sum "$WORK/cold.ncu.csv" "$exe" >/dev/null 2>&1
    say "coldstart ncu --metrics sm__inst_executed.sum: rc $? / $(ms_since $t) ms"
fi

# ---- device and catalog ----------------------------------------------------------------------
say "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee -a "$LOG"
NCU_VERSION=$(ncu --version 2>/dev/null | tail -1)
"$QUERY" agents >"$OUT/h200-agents.json" 2>>"$LOG" || say "query agents failed"
AGENT_NAME=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["agents"][0]["name"])' "$OUT/h200-agents.json")
say "agent 0 is \"$AGENT_NAME\""
t=$(date +%s%N)
"$QUERY" metrics --agent 0 >"$WORK/metrics-full.json" 2>>"$LOG" || say "query metrics failed"
say "gorocprof-query-cuda metrics took $(ms_since $t) ms"
python3 - "$WORK/metrics-full.json" "$OUT/h200-metrics.json" <<'PY' | tee -a "$LOG"
import json, sys
doc = json.load(open(sys.argv[1]))
full = len(doc["metrics"])
keep = (".sum", ".avg", ".max")  # the roll-ups people ask for; the fixture stays under 2 MB
metrics = [m for m in doc["metrics"] if m["name"].endswith(keep)]
out = '{"version":%d,"agent":%d,"chip":%s,"trimmed_from":%d,"kept_suffixes":%s,"metrics":[\n' % (
    doc["version"], doc["agent"], json.dumps(doc["chip"]), full, json.dumps(list(keep)))
out += ",\n".join(json.dumps(m, separators=(",", ":")) for m in metrics) + "\n]}\n"
open(sys.argv[2], "w").write(out)
print("catalog: %d metrics on %s, %d kept in the fixture (%d bytes)" % (full, doc.get("chip"), len(metrics), len(out)))
PY
# metrics --only (a run's lookup) against the whole catalog: every 500th metric and two names the chip lacks,
# each answered as the catalog lists it, the unknown ones missing, and the sets' pass counts as `passes` says.
LOOKUP="lookup: not run"
if python3 - "$WORK/metrics-full.json" "$QUERY" <<'PY' >"$WORK/lookup.txt" 2>&1; then LOOKUP="lookup: pass"; else LOOKUP="lookup: FAIL"; FAILED=1; fi
import json, subprocess, sys, time
full = {m["name"]: m for m in json.load(open(sys.argv[1]))["metrics"]}
names = sorted(full)[::500] + ["sm__inst_executed.summ", "no_such__metric.sum"]
sets = [["sm__inst_executed.sum", "sm__warps_launched.sum"], ["dram__bytes_read.sum", "lts__t_sectors_op_read.sum"]]
args = [sys.argv[2], "metrics", "--agent", "0", "--only", ",".join(names)]
for s in sets:
    args += ["--passes", ",".join(s)]
t = time.time()
r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
ms = (time.time() - t) * 1000
bad = [m["name"] for m in r["metrics"] if full.get(m["name"]) != m]
found = [m["name"] for m in r["metrics"]]
want_found = [n for n in names if n in full]
want_passes = []
for s in sets:
    p = json.loads(subprocess.run([sys.argv[2], "passes", "--agent", "0", ",".join(s)], check=True, capture_output=True, text=True).stdout)
    want_passes.append({"metrics": s, "passes": p["passes"]})
ok = not bad and found == want_found and r["missing"] == [n for n in names if n not in full] and r["passes"] == want_passes
# The agents call with the same options answers the same lookup for agent 0.
a = json.loads(subprocess.run([sys.argv[2], "agents"] + args[4:], check=True, capture_output=True, text=True).stdout)
same = a.get("catalogs", [None])[0] == r and len(a["agents"]) >= 1
ok = ok and same
print("lookup of %d names in %.0f ms: %d found, missing %s, passes %s, %d differing from the catalog, agents --only %s%s" % (
    len(names), ms, len(found), r["missing"], r["passes"], len(bad), "the same" if same else "DIFFERENT", "" if ok else " -> FAIL"))
sys.exit(0 if ok else 1)
PY
say "$LOOKUP: $(tail -1 "$WORK/lookup.txt")"
PASSES_Q=""
for g in $G0 $G1 $G2 $ALL; do
    n=$(query_passes "$g")
    PASSES_Q="$PASSES_Q $g=$n"
done
say "passes per group:$PASSES_Q"

plan() { # plan PATH [GROUP...]: plan.json for kernel replay of the groups (default the three) on agent 0
    local path=$1; shift
    [ $# -gt 0 ] || set -- "$G0" "$G1" "$G2"
    python3 - "$path" "$AGENT_NAME" "$@" <<'PY'
import json, sys
path, agent = sys.argv[1], sys.argv[2]
passes = [{"group": i, "counters": [{"name": m, "block": "", "event": 0} for m in g.split(",")]}
          for i, g in enumerate(sys.argv[3:])]
json.dump({"version": 1, "backend": "cuda", "replay_mode": "kernel", "application_pass": -1,
           "kernel_trace": True,
           "filters": {"include_regex": "", "exclude_regex": "", "name_kind": "demangled", "iteration_ranges": []},
           "agents": [{"index": 0, "name": agent, "passes": passes}]}, open(path, "w"))
PY
}

run_replay() { # run_replay DIR CMD... : the command under the tool library, kernel replay (groups: $REPLAY_GROUPS or the three)
    local dir=$1; shift
    mkdir -p "$dir/records" && plan "$dir/plan.json" ${REPLAY_GROUPS:-}
    env GOROCPROF_CONTRACT=1 GOROCPROF_RUN_DIR="$dir" GOROCPROF_PLAN="$dir/plan.json" GOROCPROF_LOG_LEVEL=warning \
        CUDA_INJECTION64_PATH="$TOOL" "$@"
}

# check_cli RESULTS_JSON: the front end's results.json holds passes 0..P-1 once per dispatch, every
# value present.
check_cli() {
    python3 - "$1" "$PASSES" <<'PY' 2>&1 | tail -1
import json, sys, collections
try:
    doc = json.load(open(sys.argv[1]))["rocprofiler-sdk-tool"][0]
except Exception as e:
    print("no results.json (%s)" % type(e).__name__); sys.exit(0)
want = set(range(int(sys.argv[2])))
passes = collections.defaultdict(list)
bad = 0
for r in doc["callback_records"]["counter_collection"]:
    passes[r["dispatch_data"]["dispatch_info"]["dispatch_id"]].append(r.get("replay_pass"))
    bad += sum(1 for v in r["records"] if v.get("value") is None)
wrong = [d for d, p in passes.items() if sorted(p) != sorted(want)]
print("results.json: %d dispatches, %d with passes other than 0..%d, %d empty values" % (len(passes), len(wrong), len(want) - 1, bad))
PY
}

ROWS=()
# The table is rewritten after every row, so a run cut short by a time limit still leaves its results.
write_table() {
    {
        echo "# gorocprof CUDA backend on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
        echo
        echo "Command: \`scripts/gpu-test.sh\` (from the repository root). $(date -u +%Y-%m-%dT%H:%MZ); $NCU_VERSION."
        echo "Kernel replay with $PASSES groups: {$G0} {$G1} {$G2}; passes per group from gorocprof-query-cuda:$PASSES_Q."
        echo "Host tests of tool/cuda's bookkeeping (tool/cudahost, \`ctest -L cuda-unit\`): $UNIT."
        echo "The query helper's metrics --only (and agents --only) against its whole catalog (every 500th metric, two unknown names, two sets' passes): $LOOKUP ($(tail -1 "$WORK/lookup.txt" 2>/dev/null))."
        echo "ncu: \`ncu --csv --page raw --clock-control none --print-kernel-base mangled --metrics $ALL\`."
        echo
        echo "| app | result | unprofiled rc / wall | kernel replay rc / wall | ncu rc / wall | dispatches | pass records | same value on every pass | metric values equal to ncu | problems | bin/gorocprof |"
        echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
        for r in "${ROWS[@]}"; do echo "$r"; done
    } >"$OUT/gpu-test.md"
}
row() { ROWS+=("$*"); write_table; }

# ---- CUDA test apps --------------------------------------------------------------------------
want apps || APPS=""
for app in $APPS; do
    exe=$ROOT/bin/cuda-$app
    say "app $app"
    t=$(date +%s%N); "$exe" >"$WORK/$app.plain.txt" 2>&1; rc_p=$?; t_p=$(ms_since $t)
    t=$(date +%s%N); run_replay "$WORK/$app" "$exe" >"$WORK/$app.replay.txt" 2>&1; rc_r=$?; t_r=$(ms_since $t)
    t=$(date +%s%N)
    ncu_csv "$ALL" "$WORK/$app.ncu.csv" "$exe" >"$WORK/$app.ncu.txt" 2>&1
    rc_n=$?; t_n=$(ms_since $t)
    python3 tool/cuda/tests/check_records.py "$WORK/$app" --passes $PASSES --ncu "$WORK/$app.ncu.csv" --app "$app" \
        >"$WORK/$app.check.json" 2>&1
    rc_c=$?
    cli="-"
    if [ -x "$ROOT/bin/gorocprof" ]; then
        t=$(date +%s%N)
        timeout 240 "$ROOT/bin/gorocprof" --pmc ${G0/,/ } --pmc ${G1/,/ } --pmc ${G2/,/ } --replay-mode kernel \
            --kernel-replay-beta-enabled -d "$WORK/$app-cli" -o "$app" -- "$exe" >"$WORK/$app.cli.txt" 2>&1
        rc_cli=$?
        cli="rc $rc_cli / $(ms_since $t) ms / $(check_cli "$WORK/$app-cli/${app}_results.json")"
        tail -4 "$WORK/$app.cli.txt" >>"$LOG"
        if [ $rc_cli -ne 0 ]; then FAILED=1; fi
    fi
    summary=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("%d | %d | %s | %d/%d | %s" % (d["dispatches"], d["pass_lines"], "yes" if not any("differs" in p for p in d["problems"]) else "NO",
      d["ncu_compared"]-d["ncu_mismatch"], d["ncu_compared"], "; ".join(d["problems"][:2]) or "-"))' "$WORK/$app.check.json" 2>/dev/null || echo "? | ? | ? | ? | checker failed")
    cat "$WORK/$app.check.json" >>"$LOG"
    tail -3 "$WORK/$app.replay.txt" >>"$LOG"
    ok=PASS
    if [ $rc_p -ne 0 ] || [ $rc_r -ne 0 ] || [ $rc_c -ne 0 ] || [ $rc_n -ne 0 ]; then ok=FAIL; FAILED=1; fi
    row "| $app | $ok | $rc_p / $t_p ms | $rc_r / $t_r ms | $rc_n / $t_n ms | $summary | $cli |"
done

# ---- threads: other threads' memory calls during replay windows ------------------------------------------
# tests/threads.cu under kernel replay, snapshots of what a launch can reach and of everything
# (GOROCPROF_CUDA_RESTORE=all: the copiers' buffers are then saved and restored around every replayed launch,
# so a copy landing between two passes would be reverted): every read-back right, the digest equal to the
# unprofiled run's. Under union runs (the default) a dispatch of these one-pass groups runs once and restores
# nothing, so the runs are repeated with GOROCPROF_CUDA_UNION_RUNS=0 (every replay pass run, memory restored
# before each), where a copy landing between two passes would be reverted; the negative control runs so too.
if want threads; then
    exe=$ROOT/bin/cuda-threads
    say "threads"
    "$exe" >"$WORK/threads.plain.txt" 2>&1
    rc_p=$?
    want_digest=$(grep -o 'digest [0-9a-f]*' "$WORK/threads.plain.txt")
    for mode in reach all reach-passes all-passes; do
        restore=${mode%-passes}
        union_runs=1
        [ "$mode" != "$restore" ] && union_runs=0
        t=$(date +%s%N)
        GOROCPROF_CUDA_UNION_RUNS=$union_runs GOROCPROF_CUDA_RESTORE=$restore run_replay "$WORK/threads-$mode" "$exe" >"$WORK/threads.$mode.txt" 2>&1
        rc=$?; t_r=$(ms_since $t)
        python3 tool/cuda/tests/check_records.py "$WORK/threads-$mode" --passes $PASSES --app threads \
            >"$WORK/threads.$mode.json" 2>&1
        rc_c=$?
        got=$(grep -o 'digest [0-9a-f]*' "$WORK/threads.$mode.txt")
        ok=PASS
        if [ $rc_p -ne 0 ] || [ $rc -ne 0 ] || [ $rc_c -ne 0 ] || [ -z "$want_digest" ] || [ "$got" != "$want_digest" ]; then
            ok=FAIL; FAILED=1
        fi
        say "threads restore=$restore union-runs=$union_runs: $ok | rc $rc, unprofiled rc $rc_p, checker rc $rc_c | $t_r ms | unprofiled ${want_digest:-no digest}, replayed ${got:-no digest} | $(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print("%d dispatches, %d pass records; %s" % (d["dispatches"], d["pass_lines"], "; ".join(d["problems"][:2]) or "-"))' "$WORK/threads.$mode.json" 2>/dev/null || echo "checker failed")"
        grep -E "FAIL|gorocprof-tool" "$WORK/threads.$mode.txt" | head -5 | tee -a "$LOG"
    done
    # The negative control: the same run with other threads' memory calls not held
    # (GOROCPROF_CUDA_HOLD_OTHER_THREADS=0, test-only) must go wrong (a read-back or the digest differs, or the
    # run fails), or the passing runs above would prove nothing.
    t=$(date +%s%N)
    GOROCPROF_CUDA_UNION_RUNS=0 GOROCPROF_CUDA_RESTORE=all GOROCPROF_CUDA_HOLD_OTHER_THREADS=0 \
        run_replay "$WORK/threads-nohold" timeout 30 "$exe" >"$WORK/threads.nohold.txt" 2>&1
    rc=$?; t_r=$(ms_since $t)
    got=$(grep -o 'digest [0-9a-f]*' "$WORK/threads.nohold.txt")
    bad=$(grep -c "FAIL" "$WORK/threads.nohold.txt")
    ok=PASS
    if [ -z "$want_digest" ] || { [ $rc -eq 0 ] && [ "$got" = "$want_digest" ]; }; then ok=FAIL; FAILED=1; fi
    say "threads negative control (not held, restore=all, union-runs=0): $ok (must go wrong) | rc $rc | $t_r ms | unprofiled ${want_digest:-no digest}, replayed ${got:-no digest} | $bad FAIL lines"
    grep -E "FAIL|gorocprof-tool" "$WORK/threads.nohold.txt" | head -3 | tee -a "$LOG"
fi

# ---- PyTorch ---------------------------------------------------------------------------------
# torch_row NAME SCRIPT LABEL: the script unprofiled, under kernel replay and under ncu; its saved tensors must be
# bitwise equal, and no graph may have been launched as it is (torch_graphs.py's CUDA graph is profiled per node).
torch_row() {
    local n=$1 W=tool/cuda/tests/$2.py label=$3
    say "$label"
    t=$(date +%s%N); python3 $W "$WORK/$n-plain.pt" >"$WORK/$n.plain.txt" 2>&1; rc_p=$?; t_p=$(ms_since $t)
    t=$(date +%s%N); run_replay "$WORK/$n" python3 $W "$WORK/$n-replay.pt" >"$WORK/$n.replay.txt" 2>&1; rc_r=$?; t_r=$(ms_since $t)
    t=$(date +%s%N)
    ncu_csv "$ALL" "$WORK/$n.ncu.csv" python3 $W "$WORK/$n-ncu.pt" >"$WORK/$n.ncu.txt" 2>&1
    rc_n=$?; t_n=$(ms_since $t)
    cmp_txt=$(python3 $W compare "$WORK/$n-plain.pt" "$WORK/$n-replay.pt" 2>&1 | tail -1)
    python3 tool/cuda/tests/check_records.py "$WORK/$n" --passes $PASSES --ncu "$WORK/$n.ncu.csv" --app $n \
        >"$WORK/$n.check.json" 2>&1
    cat "$WORK/$n.check.json" >>"$LOG"; tail -5 "$WORK/$n.replay.txt" >>"$LOG"
    summary=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("%d | %d | %s | %d/%d | %s" % (d["dispatches"], d["pass_lines"], "yes" if not any("differs" in p for p in d["problems"]) else "NO",
      d["ncu_compared"]-d["ncu_mismatch"], d["ncu_compared"], "; ".join(d["problems"][:2]) or "-"))' "$WORK/$n.check.json" 2>/dev/null || echo "? | ? | ? | ? | checker failed")
    ok=PASS
    case "$cmp_txt" in IDENTICAL*) ;; *) ok=FAIL; FAILED=1 ;; esac
    if grep -q "is launched as it is" "$WORK/$n.replay.txt"; then ok=FAIL; FAILED=1; fi
    if [ $rc_p -ne 0 ] || [ $rc_r -ne 0 ]; then ok=FAIL; FAILED=1; fi
    row "| $label ($cmp_txt) | $ok | $rc_p / $t_p ms | $rc_r / $t_r ms | $rc_n / $t_n ms | $summary | - |"
}
if want torch; then
    torch_row torch torch_workload pytorch
    torch_row torch-graphs torch_graphs "pytorch CUDA graph"
fi

# ---- compare: kernel replay against application replay ----------------------------------------
CROWS=()
if want compare && [ -x "$ROOT/bin/gorocprof" ]; then
    for app in $COMPARE_APPS; do
        say "compare $app"
        "$ROOT/bin/gorocprof" compare --pmc ${G0/,/ } --pmc ${G1/,/ } --pmc ${G2/,/ } -o "$WORK/compare-$app.json" \
            -- "$ROOT/bin/cuda-$app" >"$WORK/compare-$app.txt" 2>"$WORK/compare-$app.err"
        rc=$?
        [ $rc -eq 0 ] || FAILED=1
        tail -25 "$WORK/compare-$app.txt" | tee -a "$LOG"
        verdict=$(grep -E "values agree|differ" "$WORK/compare-$app.txt" | tail -1)
        walls=$(grep -E "^wall time" "$WORK/compare-$app.txt" | tail -1)
        CROWS+=("| $app | $rc | $verdict | $walls |")
    done
    {
        echo "# gorocprof compare on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
        echo
        echo "Command: \`bin/gorocprof compare --pmc ${G0/,/ } --pmc ${G1/,/ } --pmc ${G2/,/ } -o compare-APP.json -- bin/cuda-APP\`"
        echo "(from \`scripts/gpu-test.sh\`, $(date -u +%Y-%m-%dT%H:%MZ)); exit status 0 = every value agrees, 3 = something differs."
        echo
        echo "| app | exit status | verdict | wall time of each mode |"
        echo "| --- | --- | --- | --- |"
        for r in "${CROWS[@]}"; do echo "$r"; done
    } >"$OUT/gpu-compare.md"
    cat "$OUT/gpu-compare.md"
fi

# ---- switch: groups whose union does not fit one hardware pass ---------------------------------
# Ten single-metric groups (the bench's S10): their union needs two hardware passes, so each dispatch runs its
# kernel twice, once per hardware pass of the union on one profiler object, its ten passes reading their groups from
# those runs (union runs; with GOROCPROF_CUDA_UNION_RUNS=0 each dispatch's window measures it in union sessions, and
# with GOROCPROF_CUDA_UNION_SESSIONS=0 as well configurations change within every dispatch).
source "$ROOT/scripts/s10.sh"  # S10_METRICS, S10_PMC, S10_NCU, S10_DETERMINISTIC
SROWS=()
if want switch && [ -x "$ROOT/bin/gorocprof" ]; then
    S10_UNION=$(query_passes "$S10_NCU" 2>>"$LOG")
    S10_UNION=${S10_UNION:-"(unknown: the query failed, see gpu-test.log)"}
    for app in $SWITCH_APPS; do
        say "switch $app"
        t=$(date +%s%N)
        GOROCPROF_CUDA_TIMING=1 timeout 240 "$ROOT/bin/gorocprof" "${S10_PMC[@]}" --replay-mode kernel --kernel-replay-beta-enabled \
            -d "$WORK/$app-s10" -o "$app" -- "$ROOT/bin/cuda-$app" >"$WORK/$app.s10.txt" 2>&1
        rc=$?; t_g=$(ms_since $t)
        t=$(date +%s%N)
        ncu_csv "$S10_NCU" "$WORK/$app.s10.ncu.csv" "$ROOT/bin/cuda-$app" >"$WORK/$app.s10.ncu.txt" 2>&1
        rc_n=$?; t_n=$(ms_since $t)
        verdict=$(python3 tool/cuda/tests/results_vs_ncu.py "$WORK/$app-s10/${app}_results.json" "$WORK/$app.s10.ncu.csv" \
            --passes "${#S10_METRICS[@]}" --metrics "$S10_DETERMINISTIC" --nonzero "$S10_NONZERO" 2>&1 | tail -1)
        switches=$(awk '/switch: enable/ { n = $(NF-4) } /^  start / { c = $(NF-4); ms = $(NF-3) }
            END { if (c != "") printf "%d; %d Starts, %.0f ms", n, c, ms }' "$WORK/$app.s10.txt")
        case "$verdict" in PASS*) [ $rc -eq 0 ] || verdict="FAIL (rc $rc) $verdict" ;; esac
        case "$verdict" in PASS*) ;; *) FAILED=1 ;; esac
        sed -n '/^gorocprof-cuda timing/,/^snapshot ranges/p' "$WORK/$app.s10.txt" >>"$LOG"
        SROWS+=("| $app | $verdict | $rc / $t_g ms | $rc_n / $t_n ms | ${switches:--} |")
    done
    {
        echo "# gorocprof with ten single-metric groups on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
        echo
        echo "Command: \`GOROCPROF_CUDA_TIMING=1 bin/gorocprof $(printf -- '--pmc %s ' "${S10_METRICS[@]}")--replay-mode kernel --kernel-replay-beta-enabled -- bin/cuda-APP\`"
        echo "(from \`scripts/gpu-test.sh\`, $(date -u +%Y-%m-%dT%H:%MZ)); all ten together need $S10_UNION hardware passes (union"
        echo "runs, tool/cuda/README.md \"One run per hardware pass\"). ncu gets the ten names in one --metrics; instruction and warp counts compared"
        echo "exactly, the L2 and L1 counts (which vary from run to run) only for being nonzero where ncu's are; DRAM counts"
        echo "are not compared (scripts/s10.sh; gorocprof now flushes the L2 before every pass as ncu does, --cache-control all, but that is not yet checked against ncu)."
        echo
        echo "| app | verdict | gorocprof rc / wall | ncu rc / wall | configuration changes; cuptiRangeProfilerStart calls at arm (a further session's restart is not counted), their time |"
        echo "| --- | --- | --- | --- | --- |"
        for r in "${SROWS[@]}"; do echo "$r"; done
    } >"$OUT/gpu-switch.md"
    cat "$OUT/gpu-switch.md"
fi

# ---- timing: the kernel's own time in the records -----------------------------------------------------
# Two groups, the duration counter first: each dispatch is replayed, so its passes report the run the tool
# makes with no counters armed or, in a window across dispatches, their own ranges' gpu__time_duration.sum
# (tool/cuda/README.md, "Windows across dispatches"), which must be within 10% of the dispatch's
# gpu__time_duration.sum for kernels of 10 us and up.
if want timing; then
    for app in $TIMING_APPS; do
        say "timing $app"
        REPLAY_GROUPS="gpu__time_duration.sum sm__inst_executed.sum" run_replay "$WORK/$app-timing" "$ROOT/bin/cuda-$app" \
            >"$WORK/$app.timing.txt" 2>&1
        rc=$?
        python3 tool/cuda/tests/check_records.py "$WORK/$app-timing" --passes 2 --durations gpu__time_duration.sum \
            --app "$app-timing" >"$WORK/$app.timing.json" 2>&1
        rc_c=$?
        cat "$WORK/$app.timing.json" >>"$LOG"
        summary=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("%s passes compared | %s" % (d["durations_compared"], "; ".join(d["problems"][:2]) or "-"))' "$WORK/$app.timing.json" 2>/dev/null ||
            echo "? | checker failed")
        ok=PASS
        if [ $rc -ne 0 ] || [ $rc_c -ne 0 ]; then ok=FAIL; FAILED=1; fi
        say "timing $app: $ok | rc $rc | $summary"
    done
fi

source "$ROOT/scripts/gpu-test-cache.sh"  # the cache, availability and cachecost sections

# ---- guards: communication kernels and the timeout guard ------------------------------------------------
# What it proves: recognition by NCCL's kernel names and the single unwatched run (the app counts the kernel's
# GPU runs in mapped host memory, which no snapshot restores), and the timeout guard giving up on a timing run,
# restoring behind it, running the next launch unwatched and replaying again once the device is idle. Not
# proved here: a real collective, recognition by NCCL's library, two GPUs (issue 22 needs nvidia-h200-x2).
if want guards; then
    d=$WORK/guards
    say "guards"
    t=$(date +%s%N)
    # A hang would be the failure: the app is bounded (it takes about a second).
    # Replayed dispatches keep windows of their own and every pass runs its kernel here: the check is of the
    # timing run, which a dispatch in a window across dispatches, or one under union runs (each dispatch run
    # once per hardware pass of its groups' union), does not have (its pass 0 would be the run the guard gives
    # up on).
    GOROCPROF_CUDA_UNION_RUNS=0 GOROCPROF_CUDA_LASTING_REPLAYED=0 GOROCPROF_CUDA_REPLAY_TIMEOUT=0.05 run_replay "$d" timeout 120 "$ROOT/bin/cuda-guards" >"$d.txt" 2>&1
    rc=$?; t_g=$(ms_since $t)
    verdict=$(python3 - "$d" <<'PY'
import glob, json, os, sys, collections
lines = [json.loads(l) for f in sorted(glob.glob(os.path.join(sys.argv[1], "records", "*.ndjson"))) for l in open(f)]
names = {l["kernel_id"]: l["name"] for l in lines if l["t"] == "kernel"}
passes, declines = collections.defaultdict(set), {}
kernel_of = {}
for l in lines:
    if l["t"] == "dispatch":
        passes[l["dispatch_id"]].add(l["pass"]); kernel_of[l["dispatch_id"]] = names.get(l["kernel_id"], "?")
    elif l["t"] == "decline":
        declines[l["dispatch_id"]] = l["reason"]
by = collections.defaultdict(list)
for i in sorted(kernel_of): by[kernel_of[i]].append(i)
problems = []
comm = by.get("ncclDevKernel_FakeAllReduce", [])
if len(comm) != 3 or any("communication kernel" not in declines.get(i, "") for i in comm):
    problems.append("NCCL-named: %d dispatches, declines %s" % (len(comm), [declines.get(i, "")[:60] for i in comm]))
spin = [i for k, v in by.items() if "spin" in k for i in v]
if len(spin) != 2 or "timeout guard" not in declines.get(spin[0], "") or "not waited for" not in declines.get(spin[-1], ""):
    problems.append("spin: %d dispatches, declines %s" % (len(spin), [declines.get(i, "")[:80] for i in spin]))
bump = [i for k, v in by.items() if "bump" in k for i in v]
if len(bump) != 1 or bump[0] in declines or passes[bump[0]] != {0, 1, 2}:
    problems.append("bump: %s, passes %s" % (bump, [sorted(passes[i]) for i in bump]))
print("PASS" if not problems else "FAIL " + "; ".join(problems))
PY
)
    ok=PASS
    if [ $rc -ne 0 ] || [ "${verdict%% *}" != PASS ]; then ok=FAIL; FAILED=1; fi
    say "guards: $ok | rc $rc | $t_g ms | $verdict"
    grep -E "FAIL|timeout guard|communication kernel" "$d.txt" | head -6 | tee -a "$LOG"
fi

# ---- graphwhole: --graph-profiling graph (each graph launch one dispatch) against ncu's -----------------
# tests/graphs.cu under kernel replay (3 groups) with GOROCPROF_GRAPH_PROFILING=graph: one dispatch per graph
# launch (12: five, three, two and two launches of four graph execs), named graph_1..graph_4 in the order
# of their first launch, passes 0..P-1 each, every value present and the same on every pass, the app's own
# check of its results passing (every graph's kernels update memory in place), and each launch's values equal
# to those ncu --graph-profiling graph reports for the same launch, in launch order. Also through bin/gorocprof
# (--graph-profiling graph) when it is there, and once more with GOROCPROF_CUDA_GRAPH_RANGE=kernels (the kernels'
# auto ranges combined instead of one user range per pass around the whole graph), reported beside the verdict.
if want graphwhole; then
    exe=$ROOT/bin/cuda-graphs
    d=$WORK/graphwhole
    say "graphwhole"
    t=$(date +%s%N)
    GOROCPROF_GRAPH_PROFILING=graph run_replay "$d" "$exe" >"$d.txt" 2>&1
    rc=$?; t_r=$(ms_since $t)
    t=$(date +%s%N)
    ncu_csv "$ALL" "$d.ncu.csv" --graph-profiling graph "$exe" >"$d.ncu.txt" 2>&1
    rc_n=$?; t_n=$(ms_since $t)
    verdict=$(python3 tool/cuda/tests/check_graph_dispatches.py "$d" "$d.ncu.csv" "$PASSES" 2>&1)
    app_ok=$(grep -c "FAIL\|wrong" "$d.txt")
    ok=PASS
    if [ $rc -ne 0 ] || [ $rc_n -ne 0 ] || [ "${verdict%% *}" != PASS ] || [ "$app_ok" != 0 ]; then ok=FAIL; FAILED=1; fi
    say "graphwhole: $ok | rc $rc / $t_r ms, ncu rc $rc_n / $t_n ms | $verdict"
    grep -E "graph exec|gorocprof-tool|PASS|FAIL" "$d.txt" | head -6 | tee -a "$LOG"
    # The same with the kernels' auto ranges combined (GOROCPROF_CUDA_GRAPH_RANGE=kernels): these miss the work
    # the driver does for memset and copy nodes, which ncu's range around the graph (and the default) counts.
    GOROCPROF_CUDA_GRAPH_RANGE=kernels GOROCPROF_GRAPH_PROFILING=graph run_replay "$d-kernels" "$exe" >"$d-kernels.txt" 2>&1
    rc_u=$?
    say "graphwhole GOROCPROF_CUDA_GRAPH_RANGE=kernels (not part of the verdict): rc $rc_u | $(python3 tool/cuda/tests/check_graph_dispatches.py "$d-kernels" "$d.ncu.csv" "$PASSES" 2>&1)"
    grep -E "gorocprof-tool|FAIL" "$d-kernels.txt" | head -4 | tee -a "$LOG"
    if [ -x "$ROOT/bin/gorocprof" ]; then
        t=$(date +%s%N)
        timeout 120 "$ROOT/bin/gorocprof" --graph-profiling graph --pmc ${G0/,/ } --pmc ${G1/,/ } --pmc ${G2/,/ } \
            --replay-mode kernel --kernel-replay-beta-enabled -d "$d-cli" -o graphs -- "$exe" >"$d.cli.txt" 2>&1
        rc_cli=$?
        say "graphwhole bin/gorocprof --graph-profiling graph: rc $rc_cli / $(ms_since $t) ms / $(check_cli "$d-cli/graphs_results.json")"
        grep -E "graph_[0-9]" "$d.cli.txt" | head -5 | tee -a "$LOG"
        [ $rc_cli -eq 0 ] || FAILED=1
    fi
fi

# ---- trace: API calls, copies, memsets and markers (docs/tracing.md) ----------------------------------------
. "$ROOT/scripts/gpu-test-trace.sh"

# ---- results ---------------------------------------------------------------------------------
(cd "$WORK" && tar czf "$OUT/gpu-test-work.tgz" --exclude='*.pt' --exclude='metrics-full.json' . 2>/dev/null)
[ ${#ROWS[@]} -eq 0 ] || write_table
[ ${#ROWS[@]} -eq 0 ] || cat "$OUT/gpu-test.md"
exit $FAILED
