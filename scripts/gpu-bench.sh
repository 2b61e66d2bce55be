#!/usr/bin/env bash
# gorocprof against Nsight Compute on the GPU machine, every column measured in this one run.
# Run from the repository root after the tool library is installed (scripts/gpu-test.sh does it, or
# `make tool`), with bin/gorocprof cross-built beforehand. Never changes clocks: ncu runs with
# --clock-control none.
#
# Also the Range Profiler floor (bench/rp_floor.cu) for the per-pass target.
# Workloads: (1) many small kernels: bin/cuda-many_launches (300 launches of two tiny kernels);
# (2) a PyTorch training step of a small transformer block (bench/transformer_step.py); and, as workload
# torch-steps (not in the default set), the same process running BENCH_TORCH_STEPS steps (default 5), where
# the profiled work rather than Python and CUDA start-up fills the wall time;
# multipass (not in the default set): issue 30's shape, bench/multipass.cu with four groups whose union needs two
# hardware passes (M4, below);
# (3) a large footprint: bench/footprint.cu, 16 GiB allocated, 20 kernels over 1 GiB (and the same
# with 1 GiB allocated, to see what the idle 15 GiB costs).
# Metric sets (the same names for every tool): S1 = one group that fits one pass; S3 = three groups.
# Each cell is the median wall time of BENCH_REPS runs of workload (1), BENCH_TORCH_REPS of (2) and
# BENCH_FOOTPRINT_REPS of (3) (default 3 each; the 'runs' column says). One workload at a time fits a
# 600 s device call (BENCH_WORKLOADS=many, torch or footprint); all three with S10 do not.
# Workload trace (BENCH_WORKLOADS=trace, alone: the rest of the bench is skipped): the cost of tracing alone,
# tests/torch_trace_step.py's training steps unprofiled, traced by gorocprof (--sys-trace's domains, no counters)
# and under nsys with the same domains (--trace=cuda,nvtx), BENCH_TRACE_REPS processes of each, alternating.
# Writes $OUT/gpu-bench-trace.md. Workload calls (BENCH_WORKLOADS=calls, alone): host ns per call of the calls such a
# step makes most (bin/cuda-api_calls), per trace domain, against nsys; writes $OUT/gpu-bench-calls.md.
# Writes $OUT/gpu-bench.md (printed last) and $OUT/gpu-bench.log.
set -uo pipefail

ROOT=$(pwd)
OUT=${OUT:-$ROOT/out/gpu-bench}
WORK=${BENCH_WORK:-/tmp/gorocprof-bench}
REPS=${BENCH_REPS:-3}
TORCH_REPS=${BENCH_TORCH_REPS:-3}
TORCH_STEPS=${BENCH_TORCH_STEPS:-5}
TORCH_STEPS_REPS=${BENCH_TORCH_STEPS_REPS:-1}
FOOTPRINT_REPS=${BENCH_FOOTPRINT_REPS:-3}
WORKLOADS=${BENCH_WORKLOADS:-"many torch footprint"}
want() { case " $WORKLOADS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT" && rm -rf "$WORK" && mkdir -p "$WORK"
LOG=$OUT/gpu-bench.log
: >"$LOG"
GR=$ROOT/bin/gorocprof
export CUBLAS_WORKSPACE_CONFIG=:4096:8 PYTHONUNBUFFERED=1

S1=(--pmc "sm__inst_executed.sum sm__warps_launched.sum")
S3=(--pmc "sm__inst_executed.sum sm__warps_launched.sum" --pmc "sm__inst_executed.sum smsp__inst_executed_op_global_ld.sum"
    --pmc "sm__warps_launched.sum smsp__inst_executed_op_global_ld.sum")
source "$ROOT/scripts/s10.sh"  # S10_METRICS, S10_PMC, S10_NCU, S10_DETERMINISTIC
source "$ROOT/scripts/rp-floor-build.sh"  # build_rp_floor
# The trace and calls workloads' applications run under BENCH_PIN (for example "taskset -c 8-11") when it is set.
PIN=${BENCH_PIN:-}
PIN_NOTE=${PIN:+, every application under \`$PIN\`}
# build_cupti_floor: builds bench/cupti_floor.cpp (target cupti-floor) and prints its path, or nothing when it fails.
build_cupti_floor() {
    { cmake -S tool -B build/gpu -DCMAKE_BUILD_TYPE=Release && cmake --build build/gpu -j"$(nproc)" --target cupti-floor; } >>"$LOG" 2>&1 &&
        ls "$ROOT"/build/gpu/cuda/tests/*cupti-floor*.so 2>/dev/null | head -1
}
# Shared by the trace and calls workloads. --sys-trace's domains on CUDA, as a plan names them:
SYS_DOMAINS='["CUDA_DRIVER_API","CUDA_RUNTIME_API","MARKER_CORE_RANGE_API","MEMORY_COPY"]'
NSYS=$(command -v nsys || ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
# bench_plan DIR KERNEL_TRACE DOMAINS_JSON: DIR/plan.json for the tool library, tracing DOMAINS with no counters
# (and the kernel trace when KERNEL_TRACE is true), and DIR/records for its records.
bench_plan() {
    mkdir -p "$1/records"
    printf '{"version":1,"backend":"cuda","replay_mode":"none","application_pass":-1,"kernel_trace":%s,"filters":{"include_regex":"","exclude_regex":"","name_kind":"demangled","iteration_ranges":[]},"trace_domains":%s,"agents":[]}\n' "$2" "$3" >"$1/plan.json"
}
# peer_variant NAME DIR CMD...: CMD as the variant NAME that both workloads run alike: nsys (its report in DIR) or
# CUPTI's floor (fact, fcb; FLOOR_LIB, build_cupti_floor's library).
peer_variant() {
    local name=$1 d=$2; shift 2
    case $name in
    nsys) [ -n "$NSYS" ] && timeout 300 "$NSYS" profile --trace=cuda,nvtx --sample=none --cpuctxsw=none -o "$d" -f true "$@" ;;
    fcb) [ -n "$FLOOR_LIB" ] && CUPTI_FLOOR=callbacks,kernels,copies CUDA_INJECTION64_PATH="$FLOOR_LIB" "$@" ;;
    fact) [ -n "$FLOOR_LIB" ] && CUPTI_FLOOR=activity,kernels,copies CUDA_INJECTION64_PATH="$FLOOR_LIB" "$@" ;;
    esac
}
WITH_S10=${BENCH_S10:-1}  # 0 leaves the S10 columns out (a shorter run)
WITH_APP=${BENCH_APP:-1}  # 0 leaves the application-replay S3 columns (ga S3, na S3) out
S10_REPS=${BENCH_S10_REPS:-1}  # runs per S10 cell (each is ten passes of every dispatch: the longest cells)
# gorocprof kernel replay's flags, and its S3 run as every gk S3 column, the front-end timing and the timing run use it.
KR=(--replay-mode kernel --kernel-replay-beta-enabled)
GK3=("${S3[@]}" "${KR[@]}")
NCU_METRICS=sm__inst_executed.sum,sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum
NCU_S1=sm__inst_executed.sum,sm__warps_launched.sum

say() { echo "== $*" | tee -a "$LOG"; }

# median_ms NAME CMD...: runs CMD REPS times (or $N_REPS), appends every time to the log, prints the median.
median_ms() {
    local name=$1; shift
    local n=${N_REPS:-$REPS} times=() t rc
    for ((i = 0; i < n; i++)); do
        t=$(date +%s%N)
        "$@" >>"$WORK/$name.out" 2>&1
        rc=$?
        times+=($(( ($(date +%s%N) - t) / 1000000 )))
        if [ $rc -ne 0 ]; then echo "$name: run $i exited $rc" >>"$LOG"; echo "FAIL(rc=$rc)"; return; fi
    done
    echo "$name: ${times[*]} ms" >>"$LOG"
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'; }

# ---- calls: what tracing adds to one call of each kind ---------------------------------------------------
# bin/cuda-api_calls times the calls a launch-bound step makes most (CALL-NS lines, host ns per call); each variant
# runs it BENCH_CALLS_REPS times, alternating, and a cell is the median ns per call with what it adds to the
# unprofiled call. Variants: un (unprofiled); the tool library under a plan of one domain set each: inj (none: the
# tool's own callbacks only), kt (kernel trace), rt (CUDA_RUNTIME_API), drv (CUDA_DRIVER_API), copy (MEMORY_COPY),
# marker (MARKER_CORE_RANGE_API), sys (all four and the kernel trace, as --sys-trace), sysc (sys with
# GOROCPROF_CUDA_API_ACTIVITY=0); CUPTI's floor as in the trace workload (fact, fcb); nsys (--trace=cuda,nvtx).
# Writes $OUT/gpu-bench-calls.md.
if [ "$WORKLOADS" = calls ]; then
    CALLS_REPS=${BENCH_CALLS_REPS:-3}
    APP=$ROOT/bin/cuda-api_calls
    TOOL=$ROOT/lib/gorocprof/libgorocprof_tool_cuda.so
    calls_variant() { # calls_variant NAME RUN: one run of the app the variant's way
        local name=$1 d=$WORK/calls-$1-$2 kt=false domains='[]'
        case $name in
        un) $PIN "$APP"; return ;;
        nsys | fact | fcb) peer_variant $name "$d" $PIN "$APP"; return ;;
        inj) ;;
        kt) kt=true ;;
        rt) domains='["CUDA_RUNTIME_API"]' ;;
        drv) domains='["CUDA_DRIVER_API"]' ;;
        copy) domains='["MEMORY_COPY"]' ;;
        marker) domains='["MARKER_CORE_RANGE_API"]' ;;
        sys | sysc) kt=true domains=$SYS_DOMAINS ;;
        *) echo "calls: unknown variant $name" >&2; return 2 ;;
        esac
        bench_plan "$d" $kt "$domains"
        local activity=1 nvtx=()
        [ "$name" = sysc ] && activity=0
        case $domains in *MARKER*) nvtx=(NVTX_INJECTION64_PATH="$TOOL") ;; esac  # as the front end sets it
        env GOROCPROF_CUDA_API_ACTIVITY=$activity "${nvtx[@]}" GOROCPROF_CONTRACT=1 GOROCPROF_RUN_DIR="$d" \
            GOROCPROF_PLAN="$d/plan.json" GOROCPROF_LOG_LEVEL=warning CUDA_INJECTION64_PATH="$TOOL" $PIN "$APP"
    }
    FLOOR_LIB=$(build_cupti_floor)
    CALL_VARIANTS=${BENCH_CALLS_VARIANTS:-"un inj kt rt drv copy marker sys sysc fact fcb nsys"}  # un first: the others are against it
    for ((i = 0; i < CALLS_REPS; i++)); do
        for v in $CALL_VARIANTS; do
            calls_variant $v $i >>"$WORK/calls-$v.txt" 2>&1 || echo "calls $v run $i: rc $?" >>"$LOG"
        done
    done
    call_ns() { awk -v k="$2" '$1 == "CALL-NS" && $2 == k {print $3}' "$WORK/calls-$1.txt" | median; }
    {
        echo "# Tracing one call: host ns per call on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
        echo
        echo "Command: \`BENCH_WORKLOADS=calls scripts/gpu-bench.sh\` ($(date -u +%Y-%m-%dT%H:%MZ)); $CALLS_REPS processes per variant,"
        echo "alternating; each cell the median over them of bin/cuda-api_calls' best-of-5 mean, and in brackets what the"
        echo "variant adds to the unprofiled call$PIN_NOTE. Variants: see scripts/gpu-bench.sh (calls); fact and fcb are CUPTI's"
        echo "floor (bench/cupti_floor.cpp): its activity kinds, or its callback domains, with nothing done with what they give."
        echo
        printf '| call |'; for v in $CALL_VARIANTS; do printf ' %s |' "$v"; done; echo
        printf '| --- |'; for v in $CALL_VARIANTS; do printf ' --- |'; done; echo
        for k in $(awk '$1 == "CALL-NS" {print $2}' "$WORK/calls-un.txt" | awk '!seen[$0]++'); do
            base=$(call_ns un "$k")
            printf '| %s |' "$k"
            for v in $CALL_VARIANTS; do
                printf ' %s |' "$(awk -v a="$(call_ns $v "$k")" -v b="$base" -v v=$v 'BEGIN { if (a !~ /^[0-9.]+$/) print a; else if (v == "un" || b !~ /^[0-9.]+$/) printf "%.0f", a; else printf "%.0f (%+.0f)", a, a - b }')"
            done
            echo
        done
    } >"$OUT/gpu-bench-calls.md"
    grep -h "FAIL\|gorocprof-tool\|rror" "$WORK"/calls-*.txt 2>/dev/null | sort | uniq -c | head -8 >>"$LOG"
    cat "$OUT/gpu-bench-calls.md"
    exit 0
fi

# ---- trace: what tracing alone adds to a training step ---------------------------------------------------
# Each process prints its median step time (30 steps after 5 warm-up steps, tests/torch_trace_step.py); a cell
# is the median over BENCH_TRACE_REPS processes, the variants alternating. Variants: unprofiled; bin/gorocprof
# --sys-trace (the four CUDA domains and kernel trace, no counters); the same with the API calls from CUPTI's
# callbacks instead of its activity records (GOROCPROF_CUDA_API_ACTIVITY=0); the tool library under the plan --sys-trace
# writes, run directly (its records give the line count); bin/gorocprof with the API, marker and copy domains
# but no kernel trace; bin/gorocprof --kernel-trace alone; nsys --trace=cuda,nvtx. The front-end variants need
# a bin/gorocprof with issue 32's flags (else '-').
if [ "$WORKLOADS" = trace ]; then
    TRACE_REPS=${BENCH_TRACE_REPS:-3}
    STEP=$ROOT/tool/cuda/tests/torch_trace_step.py
    FRONT=0
    "$GR" --help 2>&1 | grep -q -- "--sys-trace" && FRONT=1
    variant() { # variant NAME RUN CMD...: CMD the variant's way, run directory $WORK/NAME-RUN
        local name=$1 d=$WORK/$1-$2; shift 2
        case $name in
        un) "$@" ;;
        sys) [ $FRONT = 1 ] && "$GR" --sys-trace -d "$d" -o step -- "$@" ;;
        sysc) [ $FRONT = 1 ] && GOROCPROF_CUDA_API_ACTIVITY=0 "$GR" --sys-trace -d "$d" -o step -- "$@" ;;
        api) [ $FRONT = 1 ] && "$GR" --hip-trace --hsa-trace --marker-trace --memory-copy-trace -d "$d" -o step -- "$@" ;;
        kt) [ $FRONT = 1 ] && "$GR" --kernel-trace -d "$d" -o step -- "$@" ;;
        tool)
            bench_plan "$d" true "$SYS_DOMAINS"
            env -u NVTX_INJECTION64_PATH GOROCPROF_CONTRACT=1 GOROCPROF_RUN_DIR="$d" GOROCPROF_PLAN="$d/plan.json" \
                GOROCPROF_LOG_LEVEL=warning CUDA_INJECTION64_PATH="$ROOT/lib/gorocprof/libgorocprof_tool_cuda.so" "$@" ;;
        nsys | fact | fcb) peer_variant $name "$d" "$@" ;;
        esac
    }
    FLOOR_LIB=$(build_cupti_floor)
    VARIANTS=${BENCH_TRACE_VARIANTS:-"un sys fact fcb kt nsys"}  # un first: every other column is against it
    step_ms() { grep -h '^STEP-MS' "$1" 2>/dev/null | awk '{print $3}'; }
    pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f (%+.1f%%)", a, 100 * (a - b) / b; else print a }'; }
    {
        echo "# Tracing alone: a PyTorch training step on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
        echo
        echo "Command: \`BENCH_WORKLOADS=trace scripts/gpu-bench.sh\` ($(date -u +%Y-%m-%dT%H:%MZ)); $TRACE_REPS processes per cell, the"
        echo "variants alternating; each process's median of 30 steps after 5 warm-up steps (tests/torch_trace_step.py), ms"
        echo "per step and what it adds to the unprofiled step$PIN_NOTE. sys: \`gorocprof --sys-trace\`; sysc: the same with"
        echo "GOROCPROF_CUDA_API_ACTIVITY=0 (API calls from CUPTI's callbacks); tool: the tool library under"
        echo "--sys-trace's plan; api: \`gorocprof --hip-trace --hsa-trace --marker-trace --memory-copy-trace\` (no kernel"
        echo "trace); kt: \`gorocprof --kernel-trace\`; nsys: \`nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none\`;"
        echo "fact and fcb: CUPTI's floor (bench/cupti_floor.cpp), what CUPTI alone costs with every record dropped unread:"
        echo "fact its RUNTIME, DRIVER, kernel and copy activity (the kinds sys turns on), fcb the runtime and driver"
        echo "callback domains with a callback that returns at once, and the kernel and copy activity."
        echo
        printf '| config | unprofiled |'; for v in $VARIANTS; do [ $v = un ] || printf ' %s |' "$v"; done; echo ' lines (tool run) |'
        printf '| --- | --- |'; for v in $VARIANTS; do [ $v = un ] || printf ' --- |'; done; echo ' --- |'
    } >"$OUT/gpu-bench-trace.md"
    for config in ${BENCH_TRACE_CONFIGS:-small large}; do
        for ((i = 0; i < TRACE_REPS; i++)); do
            for v in $VARIANTS; do
                variant $v $config-$i $PIN python3 "$STEP" $config >>"$WORK/$config-$v.txt" 2>&1 || echo "$v $config run $i: rc $?" >>"$LOG"
            done
        done
        un=$(step_ms "$WORK/$config-un.txt" | median)
        row="| $config | $un"
        for v in $VARIANTS; do
            [ $v = un ] || row="$row | $(pct "$(step_ms "$WORK/$config-$v.txt" | median)" "$un")"
        done
        counted="tool not run"
        if [ -d "$WORK/tool-$config-0/records" ]; then
            lines=$(cat "$WORK"/tool-$config-0/records/*.ndjson 2>/dev/null | grep -c -E '"t":"(api|marker|copy)"')
            disp=$(cat "$WORK"/tool-$config-0/records/*.ndjson 2>/dev/null | grep -c '"t":"dispatch"')
            counted="$lines trace, $disp dispatch"
        fi
        echo "$row | $counted |" >>"$OUT/gpu-bench-trace.md"
        for v in $VARIANTS; do echo "$config $v: $(step_ms "$WORK/$config-$v.txt" | tr '\n' ' ')" >>"$LOG"; done
    done
    grep -h "gorocprof-tool\|rror" "$WORK"/*-sys.txt "$WORK"/*-tool.txt 2>/dev/null | sort | uniq -c | head -8 >>"$LOG"
    cat "$WORK"/tool-small-0/records/*.ndjson 2>/dev/null | python3 -c '
import collections, json, sys
c = collections.Counter()
for l in sys.stdin:
    r = json.loads(l)
    c[(r["t"], r.get("domain", ""), r.get("op", ""))] += 1
print("small, tool run, top lines:", [("/".join(k), n) for k, n in c.most_common(14)])' >>"$LOG" 2>&1
    cat "$OUT/gpu-bench-trace.md"
    exit 0
fi

# equal_to_ncu RESULTS_JSON NCU_CSV [METRIC_REGEX]: do our values of every (kernel, metric) equal ncu's?
equal_to_ncu() { python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$1" "$2" --metrics "${3:-.}" 2>&1 | tail -1; }

ROWS=()
FE="-" FE_COLD="-" FE_CALLS="" FE_PHASES="" DERIVED="-" IDLE="-"
# The table is rewritten after every row, so a run cut short still leaves what it measured.
write_md() {
    {
        echo "# gorocprof against Nsight Compute on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
        echo
        echo "Command: \`bash scripts/gpu-bench.sh\` (from the repository root), $(date -u +%Y-%m-%dT%H:%MZ), $(ncu --version | tail -1)."
        echo "Median wall time in ms of the runs counted in column 'runs' (every run is in gpu-bench.log). gk = gorocprof kernel"
        echo "replay, ga = gorocprof application replay, nk/na = \`ncu --replay-mode kernel|application --clock-control none\`."
        echo "S1 = {sm__inst_executed.sum sm__warps_launched.sum} (1 pass); S3 = three groups of those and"
        echo "smsp__inst_executed_op_global_ld.sum (3 replay passes for gorocprof; ncu gets the same names in one --metrics);"
        echo "S10 = ten groups of one metric each (${S10_METRICS[*]}): 10 replay passes for gorocprof, the ten names in one"
        echo "--metrics for ncu; its values compared on the instruction and warp counts. S10 under application replay runs"
        echo "the app 10 times for gorocprof: measured on workloads (1) and (3), not on (2) (ten PyTorch processes per run)."
        echo "S10 cells are the median of $S10_REPS run(s) each (BENCH_S10_REPS), the other cells of the runs in column 'runs'."
        echo
        echo "| workload | runs | unprofiled | gk S1 | gk S3 | ga S3 | nk S1 | nk S3 | na S3 | gk/nk S1 | gk/nk S3 | ga/na S3 | gk S3 values equal to ncu | gk S1, ga S3 values equal to ncu | gk S10 | nk S10 | gk/nk S10 | gk S10 values equal to ncu | ga S10 | na S10 | ga/na S10 |"
        echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
        for r in "${ROWS[@]}"; do echo "$r"; done
        echo
        echo "- front end alone (\`--dry-run\`, plan on the CUDA agent): cold (\`GOROCPROF_QUERY_CACHE=off\`) $FE_COLD ms, warm (query cache filled; what every gorocprof column above used) $FE ms; query helper calls of a warm plan (\`GOROCPROF_QUERY_TRACE=1\`): ${FE_CALLS:-none}; its phases: ${FE_PHASES:--}"
        echo "- workload (1): $DERIVED"
        echo "- workload (3): $IDLE"
        echo "- Range Profiler with S3 as one Start/Stop window of three ranges per dispatch (bench/rp_floor.cu, RP_FLOOR_WINDOW=1): $WINDOW"
        own_times
        if [ ${#MULTI_ROWS[@]} -gt 0 ]; then
            echo
            echo "Workload multipass (issue 30): M4 = {sm__inst_executed.sum sm__warps_launched.sum} {smsp__inst_executed_op_global_ld.sum"
            echo "smsp__thread_inst_executed.sum} {lts__t_sectors.sum dram__bytes_read.sum} {sm__inst_executed.sum smsp__inst_executed_op_global_st.sum};"
            echo "values compared on the instruction and warp counts (the L2 and DRAM counts vary from run to run)."
            echo
            echo "| workload | runs | unprofiled | gk M4 | nk M4 | gk/nk | gk M4 none | nk M4 none | gk/nk none | ga M4 | na M4 | ga/na | values equal to ncu |"
            echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
            for r in "${MULTI_ROWS[@]}"; do echo "$r"; done
            [ -s "$OUT/timing-multipass.txt" ] && { echo; echo "gk M4, GOROCPROF_CUDA_TIMING=1:"; echo; echo '```'; cat "$OUT/timing-multipass.txt"; echo '```'; }
        fi
    } >"$OUT/gpu-bench.md"
}

# Each measured workload's profiler's own time (its column minus the unprofiled median), gorocprof's against
# ncu's: issue 21's PyTorch target is this ratio, since the unprofiled process alone is most of ncu's run.
# Application replay is left out: it runs the app once per pass, so one unprofiled run is not its baseline.
own_times() {
    [ -s "$WORK/cells.txt" ] || return 0
    awk 'function own(a, u) { return (a ~ /^[0-9]+$/ && u ~ /^[0-9]+$/) ? a - u : "-" }
         function r(a, b) { return (a ~ /^-?[0-9]+$/ && b ~ /^-?[0-9]+$/ && b > 0) ? sprintf("%.2f", a / b) : "-" }
         { g1 = own($3, $2); g3 = own($4, $2); n1 = own($6, $2); n3 = own($7, $2)
           printf "- kernel replay own time (column - unprofiled), %s: gk S1 %s / nk S1 %s ms (%s), gk S3 %s / nk S3 %s ms (%s)\n",
                  $1, g1, n1, r(g1, n1), g3, n3, r(g3, n3) }' "$WORK/cells.txt"
}

bench() { # bench LABEL REPS CMD... : one workload, every metric set, every tool (S10_APP=0: no S10 application replay)
    local label=$1 reps=$2; shift 2
    local n=$reps
    local un="-" gk1="-" gk3="-" ga3="-" nk1="-" nk3="-" na3="-" eq="-" eq1a="-" gk10="-" nk10="-" eq10="-" ga10="-" na10="-"
    # The workload's row is rewritten after every column, so a run cut short by its time limit keeps
    # the columns it measured.
    ROWS+=("| $label | $n | running |")
    show() {
        ROWS[${#ROWS[@]}-1]="| $label | $n | $un | $gk1 | $gk3 | $ga3 | $nk1 | $nk3 | $na3 | $(ratio "$gk1" "$nk1") | $(ratio "$gk3" "$nk3") | $(ratio "$ga3" "$na3") | $eq | $eq1a | $gk10 | $nk10 | $(ratio "$gk10" "$nk10") | $eq10 | $ga10 | $na10 | $(ratio "$ga10" "$na10") |"
        write_md
    }
    # One untimed run first: the first process of a workload reads its files cold, which would inflate the
    # unprofiled median and so shrink every own time (docs/perf.md, "the PyTorch target, measured").
    "$@" >>"$WORK/$label-warmup.out" 2>&1
    un=$(N_REPS=$n median_ms "$label-plain" "$@"); show
    gk1=$(N_REPS=$n median_ms "$label-gk1" "$GR" --quiet "${S1[@]}" "${KR[@]}" -d "$WORK/$label-gk1" -o r -- "$@"); show
    gk3=$(N_REPS=$n median_ms "$label-gk3" "$GR" --quiet "${GK3[@]}" -d "$WORK/$label-gk3" -o r -- "$@"); show
    [ "$WITH_APP" = 1 ] && ga3=$(N_REPS=$n median_ms "$label-ga3" "$GR" --quiet "${S3[@]}" --replay-mode application -d "$WORK/$label-ga3" -o r -- "$@"); show
    nk1=$(N_REPS=$n median_ms "$label-nk1" ncu --clock-control none --replay-mode kernel --metrics $NCU_S1 -o "$WORK/$label-nk1" -f "$@"); show
    nk3=$(N_REPS=$n median_ms "$label-nk3" ncu --clock-control none --replay-mode kernel --metrics $NCU_METRICS --csv --page raw --print-kernel-base mangled --log-file "$WORK/$label-nk3.csv" "$@"); show
    [ "$WITH_APP" = 1 ] && na3=$(N_REPS=$n median_ms "$label-na3" ncu --clock-control none --replay-mode application --metrics $NCU_METRICS -o "$WORK/$label-na3" -f "$@"); show
    # Every pass present and no value empty too: replayed dispatches share windows across dispatches, where a
    # range nobody owns empties a whole window.
    eq=$(python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$WORK/$label-gk3/r_results.json" "$WORK/$label-nk3.csv" --passes 3 2>&1 | tail -1); show
    # gk S1 and ga S3 hold dispatches that are not replayed, which share counter windows across dispatches:
    # every pass present, no value empty, each equal to one of ncu's.
    eq1a="$(python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$WORK/$label-gk1/r_results.json" "$WORK/$label-nk3.csv" --passes 1 2>&1 | tail -1), $([ "$WITH_APP" = 1 ] && python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$WORK/$label-ga3/r_results.json" "$WORK/$label-nk3.csv" --passes 3 2>&1 | tail -1 || echo -)"; show
    if [ "$WITH_S10" = 1 ]; then
        gk10=$(N_REPS=$S10_REPS median_ms "$label-gk10" "$GR" --quiet "${S10_PMC[@]}" "${KR[@]}" -d "$WORK/$label-gk10" -o r -- "$@"); show
        nk10=$(N_REPS=$S10_REPS median_ms "$label-nk10" ncu --clock-control none --replay-mode kernel --metrics "$S10_NCU" --csv --page raw --print-kernel-base mangled --log-file "$WORK/$label-nk10.csv" "$@"); show
        eq10=$(equal_to_ncu "$WORK/$label-gk10/r_results.json" "$WORK/$label-nk10.csv" "$S10_DETERMINISTIC"); show
        if [ "${S10_APP:-1}" = 1 ]; then  # application replay of S10 runs the app 10 times (gorocprof)
            ga10=$(N_REPS=$S10_REPS median_ms "$label-ga10" "$GR" --quiet "${S10_PMC[@]}" --replay-mode application -d "$WORK/$label-ga10" -o r -- "$@"); show
            na10=$(N_REPS=$S10_REPS median_ms "$label-na10" ncu --clock-control none --replay-mode application --metrics "$S10_NCU" -o "$WORK/$label-na10" -f "$@"); show
        fi
    fi
    echo "$label $un $gk1 $gk3 $ga3 $nk1 $nk3 $na3 $gk10 $nk10" >>"$WORK/cells.txt"
}

# The tool library and the CUDA test apps: built (incrementally) and installed into lib/ and bin/ here,
# so the bench does not depend on what an earlier script left on the machine.
say "building the tool library (cmake -S tool -B build/gpu)"
if ! { cmake -S tool -B build/gpu -DCMAKE_BUILD_TYPE=Release >>"$LOG" 2>&1 &&
    cmake --build build/gpu -j"$(nproc)" >>"$LOG" 2>&1 &&
    cmake --install build/gpu --prefix "$ROOT" >>"$LOG" 2>&1; }; then
    say "BUILD FAILED (last lines of the log follow)"
    grep -E "error|Error" "$LOG" | grep -v "^--" | head -40
    exit 1
fi
MANY=$ROOT/bin/cuda-many_launches
[ -x "$MANY" ] || MANY=$(find "$ROOT/build/gpu" -name cuda-many_launches -type f -perm -u+x | head -1)
[ -n "$MANY" ] || say "cuda-many_launches was not built: workload (1) fails"

if want footprint; then
    say "building bench/footprint.cu"
    nvcc -O2 -arch=sm_90 -o "$WORK/footprint" bench/footprint.cu >>"$LOG" 2>&1 || say "footprint build failed"
fi

# The Range Profiler's own per-pass floor (bench/rp_floor.cu): the tool's RangeCounters around the same
# kernels as workload (1), nothing else. Built from the tool's sources; a failed build leaves the floor
# columns '-' and the rest of the bench runs.
FLOOR="-" WINDOW="-"
if want many; then
    say "building bench/rp_floor.cu"
    if build_rp_floor "$WORK/rp-floor" "$LOG"; then
        floor_ms() { # floor_ms GROUP...: median over REPS of the timed loop of 300 dispatches, in ms
            local t=() v
            for ((i = 0; i < REPS; i++)); do
                v=$("$WORK/rp-floor" 300 "$@" 2>>"$LOG" | tee -a "$LOG" | sed -n 's/.* in \([0-9.]*\) ms:.*/\1/p')
                [ -n "$v" ] || { echo "-"; return; }
                t+=("$v")
            done
            printf '%s\n' "${t[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
        }
        F1=$(floor_ms "${NCU_S1}")
        F3=$(floor_ms sm__inst_executed.sum,sm__warps_launched.sum sm__inst_executed.sum,smsp__inst_executed_op_global_ld.sum \
            sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum)
        FLOOR=$(awk -v a="$F1" -v b="$F3" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/) printf "%.3f", (b - a) / (300 * 2); else print "-" }')
        say "Range Profiler floor: S1 loop $F1 ms, S3 loop $F3 ms, per extra pass $FLOOR ms"
        # The alternative: one Start/Stop window per dispatch holding its three passes as three ranges.
        WINDOW=$(RP_FLOOR_WINDOW=1 "$WORK/rp-floor" 300 sm__inst_executed.sum,sm__warps_launched.sum \
            sm__inst_executed.sum,smsp__inst_executed_op_global_ld.sum \
            sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum 2>&1 | tail -1)
        say "Range Profiler, S3 as one window per dispatch: $WINDOW"
    else
        say "rp_floor build failed (see the log)"
    fi
fi

# The front end's own cost before launch (backend choice, catalog, plan), measured alone: cold (no
# query cache: every question goes to the CUDA query helper) and warm (answers from the cache this
# script fills once; every gorocprof run below uses that warm cache, as repeated runs on a machine do).
export GOROCPROF_QUERY_CACHE=$WORK/query-cache
FE_COLD=$(GOROCPROF_QUERY_CACHE=off median_ms frontend-cold "$GR" --dry-run "${GK3[@]}" --backend cuda)
PRIME=("${S1[@]}" "${S3[@]}")
[ "$WITH_S10" = 1 ] && PRIME+=("${S10_PMC[@]}")
"$GR" --dry-run "${PRIME[@]}" --backend cuda >>"$LOG" 2>&1 || say "priming the query cache failed"
FE=$(median_ms frontend "$GR" --dry-run "${GK3[@]}" --backend cuda)
# Which helper calls a warm plan still makes (none when the agent list, catalog and pass counts hit),
# and its planning phases.
FE_TRACE=$(GOROCPROF_QUERY_TRACE=1 "$GR" --dry-run "${GK3[@]}" --backend cuda 2>&1 >/dev/null)
FE_CALLS=$(sed -n 's/^gorocprof: query helper: //p' <<<"$FE_TRACE" | paste -sd ';' -)
FE_PHASES=$(sed -n 's/^gorocprof: planning: //p' <<<"$FE_TRACE" | paste -sd ';' -)
say "front end, plan only: cold $FE_COLD ms, warm $FE ms; warm helper calls: ${FE_CALLS:-none}; phases: ${FE_PHASES:--}"

# Workload multipass (issue 30): bench/multipass.cu, 400 dispatches of two kernels over 4 MB buffers, with M4 = four
# groups whose union needs two hardware passes on the H200 (checked below with the query helper): kernel replay
# under --cache-control all and none, application replay, against ncu's with the same names in one --metrics.
M4=(--pmc "sm__inst_executed.sum sm__warps_launched.sum" --pmc "smsp__inst_executed_op_global_ld.sum smsp__thread_inst_executed.sum"
    --pmc "lts__t_sectors.sum dram__bytes_read.sum" --pmc "sm__inst_executed.sum smsp__inst_executed_op_global_st.sum")
M4_NCU=sm__inst_executed.sum,sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum,smsp__thread_inst_executed.sum,lts__t_sectors.sum,dram__bytes_read.sum,smsp__inst_executed_op_global_st.sum
M4_DETERMINISTIC='^(sm__inst_executed|sm__warps_launched|smsp__inst_executed_op_global_(ld|st)|smsp__thread_inst_executed)\.sum$'
MULTI_ROWS=()
bench_multipass() {
    local app=$WORK/multipass un gk gkn ga nk nkn na eq eqn eqa passes
    local NCU_REPS=${BENCH_MULTIPASS_NCU_REPS:-$REPS} NONE_REPS=${BENCH_MULTIPASS_NONE_REPS:-${BENCH_MULTIPASS_NCU_REPS:-$REPS}}
    passes=$("$ROOT/lib/gorocprof/gorocprof-query-cuda" passes --agent 0 "$M4_NCU" 2>>"$LOG" | python3 -c 'import json,sys; print(json.load(sys.stdin)["passes"])' 2>/dev/null || echo "?")
    say "multipass: the union of M4 needs $passes hardware passes"
    "$app" >>"$WORK/multipass-warmup.out" 2>&1
    un=$(median_ms multipass-plain "$app")
    gk=$(median_ms multipass-gk "$GR" --quiet "${M4[@]}" "${KR[@]}" -d "$WORK/multipass-gk" -o r -- "$app")
    gkn=$(median_ms multipass-gk-none "$GR" --quiet "${M4[@]}" "${KR[@]}" --cache-control none -d "$WORK/multipass-gkn" -o r -- "$app")
    ga=$(median_ms multipass-ga "$GR" --quiet "${M4[@]}" --replay-mode application -d "$WORK/multipass-ga" -o r -- "$app")
    nk=$(N_REPS=$NCU_REPS median_ms multipass-nk ncu --clock-control none --replay-mode kernel --metrics "$M4_NCU" --csv --page raw --print-kernel-base mangled --log-file "$WORK/multipass-nk.csv" "$app")
    nkn=$(N_REPS=$NONE_REPS median_ms multipass-nk-none ncu --clock-control none --cache-control none --replay-mode kernel --metrics "$M4_NCU" -o "$WORK/multipass-nkn" -f "$app")
    na=$(N_REPS=$NCU_REPS median_ms multipass-na ncu --clock-control none --replay-mode application --metrics "$M4_NCU" -o "$WORK/multipass-na" -f "$app")
    eq=$(python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$WORK/multipass-gk/r_results.json" "$WORK/multipass-nk.csv" --passes 4 --metrics "$M4_DETERMINISTIC" 2>&1 | tail -1)
    eqn=$(python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$WORK/multipass-gkn/r_results.json" "$WORK/multipass-nk.csv" --passes 4 --metrics "$M4_DETERMINISTIC" 2>&1 | tail -1)
    eqa=$(python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$WORK/multipass-ga/r_results.json" "$WORK/multipass-nk.csv" --passes 4 --metrics "$M4_DETERMINISTIC" 2>&1 | tail -1)
    MULTI_ROWS+=("| multipass (400 dispatches, M4: $passes hardware passes) | $REPS (ncu $NCU_REPS, ncu none $NONE_REPS) | $un | $gk | $nk | $(ratio "$gk" "$nk") | $gkn | $nkn | $(ratio "$gkn" "$nkn") | $ga | $na | $(ratio "$ga" "$na") | $eq; none: $eqn; application: $eqa |")
    GOROCPROF_CUDA_TIMING=1 "$GR" --quiet "${M4[@]}" "${KR[@]}" -d "$WORK/multipass-timing" -o r -- "$app" >"$WORK/multipass-timing.out" 2>&1
    sed -n '/^gorocprof-cuda timing/,$p' "$WORK/multipass-timing.out" | grep -v '^PASS' >"$OUT/timing-multipass.txt"
    write_md
}

touch "$WORK/cells.txt"
if want multipass; then
    nvcc -O2 -arch=sm_90 -o "$WORK/multipass" bench/multipass.cu >>"$LOG" 2>&1 || say "multipass build failed"
    bench_multipass
fi
want many && bench "many-kernels" "$REPS" "$MANY"
want torch && S10_APP=0 bench "torch-transformer" "$TORCH_REPS" python3 bench/transformer_step.py
# Several steps in one process: S10 left out (ten passes of every dispatch of every step do not fit a device call).
want torch-steps && WITH_S10=0 bench "torch-transformer-${TORCH_STEPS}steps" "$TORCH_STEPS_REPS" python3 bench/transformer_step.py "$TORCH_STEPS"
if want footprint; then
    bench "footprint-16GiB" "$FOOTPRINT_REPS" env FOOTPRINT_GIB=16 "$WORK/footprint"
    bench "footprint-1GiB" "$FOOTPRINT_REPS" env FOOTPRINT_GIB=1 "$WORK/footprint"
fi

# Where the tool's time goes: one more S3 kernel-replay run per workload with GOROCPROF_CUDA_TIMING=1
# (per-phase totals printed by the tool library at exit), kept in $OUT/timing-LABEL.txt.
TIMINGS=()
timing() { # timing LABEL CMD...
    local label=$1; shift
    GOROCPROF_CUDA_TIMING=1 "$GR" --quiet "${GK3[@]}" \
        -d "$WORK/$label-timing" -o r -- "$@" >"$WORK/$label-timing.out" 2>&1
    sed -n '/^gorocprof-cuda timing/,$p' "$WORK/$label-timing.out" | grep -v '^transformer_step\|^footprint:\|^PASS' >"$OUT/timing-$label.txt"
    cat "$OUT/timing-$label.txt" >>"$LOG"
    TIMINGS+=("$label")
}
# A timing table's phases, one line each: name, count, total ms and bytes, separated by tabs (the name with
# its indent dropped).
phase_rows() {
    awk 'NF >= 6 && $NF ~ /^[0-9]+$/ { n = $(NF-4); ms = $(NF-3); by = $(NF-1); $(NF-4) = $(NF-3) = $(NF-2) = $(NF-1) = $NF = ""
           sub(/ +$/, ""); print $0 "\t" n "\t" ms "\t" by }' "$1"
}
# The tool's fixed cost per replayed dispatch from a timing table: drain, snapshot and restores
# (bookkeeping, the reach scan and copies), records; the Range Profiler's own phases and the kernels are not in it.
fixed_cost() {
    phase_rows "$1" | awk -F'\t' '$1 == "enter sync" { d = $2 }
        $1 == "enter sync" || $1 == "reach scan" || $1 == "snapshot" || $1 == "restore" || $1 == "record" { t += $3 }
        END { if (d > 0) printf "%.3f ms per dispatch over %d dispatches", t / d, d; else print "-" }'
}
want many && timing many-kernels "$MANY"
want torch && timing torch-transformer python3 bench/transformer_step.py
want torch-steps && timing "torch-transformer-${TORCH_STEPS}steps" python3 bench/transformer_step.py "$TORCH_STEPS"
want footprint && timing footprint-16GiB env FOOTPRINT_GIB=16 "$WORK/footprint"

# Derived costs from workload (1): 300 dispatches.
read -r _ un gk1 gk3 _ _ _ _ gk10 _ <<<"$(grep '^many-kernels ' "$WORK/cells.txt")"
DERIVED=$(awk -v un="$un" -v g1="$gk1" -v g3="$gk3" -v g10="${gk10:--}" -v fe="$FE" -v fl="$FLOOR" 'BEGIN {
    d = 300
    if (g1 !~ /^[0-9]+$/ || g3 !~ /^[0-9]+$/) { print "-"; exit }
    printf "per replayed dispatch, fixed (S1 run - unprofiled - front end) / 300: %.2f ms; per extra pass ((S3 - S1) / (300 x 2)): %.2f ms", (g1 - un - fe) / d, (g3 - g1) / (d * 2)
    if (fl ~ /^[0-9.]+$/ && fl > 0) printf "; the Range Profiler floor per extra pass (bench/rp_floor.cu, same run): %.3f ms, ratio %.2f", fl, (g3 - g1) / (d * 2) / fl
    if (g10 ~ /^[0-9]+$/) printf "; per extra pass with S10 ((S10 - S1) / (300 x 9)): %.2f ms", (g10 - g1) / (d * 9) }')
read -r _ u16 _ f16 _ <<<"$(grep '^footprint-16GiB ' "$WORK/cells.txt")"
read -r _ u1 _ f1 _ <<<"$(grep '^footprint-1GiB ' "$WORK/cells.txt")"
# Whether restore cost follows the footprint or the bytes kernels can reach: the 16 GiB run against
# the 1 GiB run (the same kernels over the same 1 GiB).
# The app itself takes longer with 16 GiB (allocating and filling it), so the profiler's share is
# the S3 run minus the unprofiled run of the same footprint.
IDLE=$(awk -v a="$f16" -v b="$f1" -v ua="$u16" -v ub="$u1" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && b > 0) {
    printf "the idle 15 GiB add %.0f%% to the S3 kernel-replay run (%d ms against %d ms)", 100 * (a - b) / b, a, b
    if (ua ~ /^[0-9]+$/ && ub ~ /^[0-9]+$/ && b > ub)
      printf "; to the profiler'"'"'s own time (S3 - unprofiled) %.0f%% (%d ms against %d ms)", 100 * ((a - ua) - (b - ub)) / (b - ub), a - ua, b - ub
  } else print "-" }')
# Bytes per snapshot and restore bandwidth (bytes written back over the restore phase's time, counting
# each byte once) from a timing table.
copy_facts() {
    phase_rows "$1" | awk -F'\t' '$1 == "snapshot" { sn = $2; sb = $4 }
        $1 == "restore" { rms = $3; rb = $4 }
        END { if (sn > 0) printf "%.1f MiB per snapshot", sb / sn / 2^20
              if (rms > 0) printf ", restore %.2f TB/s (bytes written)", rb / (rms / 1000) / 1e12 }'
}

write_md
for t in "${TIMINGS[@]}"; do
    { echo; echo "S3 kernel replay of $t, GOROCPROF_CUDA_TIMING=1 (fixed cost: enter sync + reach scan + snapshot + restore + record = $(fixed_cost "$OUT/timing-$t.txt")):"
      echo; echo "Copies: $(copy_facts "$OUT/timing-$t.txt")."
      echo; echo '```'; cat "$OUT/timing-$t.txt"; echo '```'; } >>"$OUT/gpu-bench.md"
done
cat "$OUT/gpu-bench.md"
