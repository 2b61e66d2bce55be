#!/usr/bin/env bash
# Whether CUPTI's PM sampling gives exact per-kernel counter values, and at what cost per kernel
# (bench/pm_sampling.cu). Run from the repository root on the GPU machine. Writes under OUT: bases.txt (every
# PM sampling base metric), list.txt (the full names of those holding the bench's stems), support.txt (the
# bench's metrics and the nearest names, PM sampling against the Range Profiler), one kernels-N.csv per metric
# set, and pm-sampling.log with every line printed. Prints one line per case and exits 1 when a case fails its checks.
# PM_SAMPLING_INTERVALS: sampling intervals in ns, comma-separated. PM_SAMPLING_SETS: metric sets separated by
# ';', each as pm-sampling run takes them (PMNAME[=REF],...); by default sets built from the names support.txt says
# PM sampling takes in one pass.
set -uo pipefail
OUT=${OUT:-out/pm-sampling}
mkdir -p "$OUT"
LOG=$OUT/pm-sampling.log
: >"$LOG"
INTERVALS=${PM_SAMPLING_INTERVALS:-20000,15000,10000,5000,2000,1000,500,250,100}
# The metrics of scripts/gpu-bench.sh's S1, S3 and S10.
BENCH="sm__inst_executed.sum sm__warps_launched.sum smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum
smsp__thread_inst_executed.sum lts__t_sectors.sum lts__t_requests.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
dram__bytes_read.sum dram__bytes_write.sum"
# The nearest one-pass pair of an instruction count and a warp count among PM sampling's TriageCompute metrics.
TRIAGE_INST=TPC.TriageCompute.sm__inst_executed_realtime.sum
TRIAGE_WARPS=TPC.TriageCompute.tpc__warps_launched_shader_cs.sum
{
    cmake -S tool -B build/gpu -DCMAKE_BUILD_TYPE=Release &&
        cmake --build build/gpu -j"$(nproc)" --target pm-sampling
} >>"$LOG" 2>&1 || { echo "pm-sampling: build failed (see $LOG)"; tail -20 "$LOG"; exit 1; }
BIN=build/gpu/cuda/tests/pm-sampling
rc=0
"$BIN" list >"$OUT/bases.txt" 2>&1 || rc=1
"$BIN" list inst_executed warps_launched thread_inst lts__t_ dram__bytes l1tex__t_sectors >"$OUT/list.txt" 2>&1 || rc=1
head -1 "$OUT/list.txt" | tee -a "$LOG"
# Nearest names: every .sum counter of the list whose name holds an instruction or warp-launch stem.
near=$(grep -oE '^(sm|smsp|tpc|gpc)__(inst_executed|warps_launched)[a-z_]*\.sum\b' "$OUT/list.txt" | sort -u)
# shellcheck disable=SC2086 # word splitting of the name lists is meant
"$BIN" support $BENCH $near $TRIAGE_INST $TRIAGE_WARPS >"$OUT/support.txt" 2>&1 || rc=1
tee -a "$LOG" <"$OUT/support.txt"
pm_ok() { grep -q "^pm-sampling support $1: pm passes=1;" "$OUT/support.txt"; }
rp_ok() { grep -q "^pm-sampling support $1: .*; rp passes=1" "$OUT/support.txt"; }
# The first name PM sampling takes of those given, then of the nearest names matching a pattern.
pick() {
    local pattern=$1 m
    shift
    for m in "$@" $(grep -E "$pattern" <<<"$near"); do
        if pm_ok "$m"; then
            echo "$m"
            return
        fi
    done
}
# PMNAME=REF: the same name where the Range Profiler has it, else the bench's name.
spec() {
    local pm=$1 fallback=$2
    [ -n "$pm" ] || return 0
    if rp_ok "$pm"; then echo "$pm=$pm"; else echo "$pm=$fallback"; fi
}
if [ -z "${PM_SAMPLING_SETS:-}" ]; then
    # An instruction count and a warp count each on their own (sm__inst_executed.sum and sm__warps_launched.sum
    # take two PM sampling passes together), the triage pair, and the memory counters.
    chosen=()
    inst=$(pick 'inst_executed\.sum|inst_executed_realtime' sm__inst_executed.sum smsp__inst_executed.sum)
    [ -z "$inst" ] || chosen+=("$(spec "$inst" sm__inst_executed.sum)")
    warps=$(pick 'warps_launched' sm__warps_launched.sum)
    [ -z "$warps" ] || chosen+=("$warps=@warps")
    if pm_ok "$TRIAGE_INST" && pm_ok "$TRIAGE_WARPS"; then chosen+=("$TRIAGE_INST=sm__inst_executed.sum,$TRIAGE_WARPS=@warps"); fi
    mem=""
    for m in lts__t_sectors.sum lts__t_requests.sum dram__bytes_read.sum dram__bytes_write.sum; do
        if pm_ok "$m" && rp_ok "$m"; then mem+="${mem:+,}$m=$m"; fi
    done
    [ -z "$mem" ] || chosen+=("$mem")
    PM_SAMPLING_SETS=$(IFS=';' && echo "${chosen[*]}")
fi
if [ -z "$PM_SAMPLING_SETS" ]; then
    echo "pm-sampling: no metric PM sampling takes in one pass among the bench's and their nearest names" | tee -a "$LOG"
    exit 1
fi
IFS=';' read -ra sets <<<"$PM_SAMPLING_SETS"
i=0
for s in "${sets[@]}"; do
    i=$((i + 1))
    echo "pm-sampling set $i: $s" | tee -a "$LOG"
    PM_SAMPLING_DUMP="$OUT/kernels-$i.csv" "$BIN" run "$INTERVALS" "$s" 2>&1 | tee -a "$LOG"
    [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
done
exit $rc
