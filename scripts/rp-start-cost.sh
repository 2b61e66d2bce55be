#!/usr/bin/env bash
# What one cuptiRangeProfilerStart costs on this GPU, per configuration and per number of ranges in its
# window: bench/rp_floor.cu in window mode (RP_FLOOR_WINDOW=1) with one group given R times, so every
# window is one Start of that configuration holding R auto ranges (R launches of a tiny kernel), 10 timed
# windows after one untimed. RP_FLOOR_SPARE adds armed ranges that no kernel fills. Run from the repository
# root on the GPU machine; writes $OUT/rp-start-cost.md (printed) and $OUT/rp-start-cost.log.
set -uo pipefail
ROOT=$(pwd)
OUT=${OUT:-$ROOT/out/rp-start-cost}
WORK=${BENCH_WORK:-/tmp/gorocprof-rp-start}
mkdir -p "$OUT" "$WORK"
LOG=$OUT/rp-start-cost.log
: >"$LOG"
source "$ROOT/scripts/rp-floor-build.sh"
build_rp_floor "$WORK/rp-floor" "$LOG" || { echo "rp_floor build failed:"; tail -20 "$LOG"; exit 1; }
source "$ROOT/scripts/s10.sh"  # S10_METRICS
# S10's four SM counters and its six L2/DRAM/L1 and thread counters, each as one group.
SM4=$(IFS=,; echo "${S10_METRICS[*]:0:4}")
SIX=$(IFS=,; echo "${S10_METRICS[*]:4}")

CONFIGS=(
    "sm:sm__inst_executed.sum"
    "sm4:$SM4"
    "thread:smsp__thread_inst_executed.sum"
    "l1tex:l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
    "lts:lts__t_sectors.sum"
    "dram:dram__bytes_read.sum"
    "six:$SIX"
)
# RP_START_CONFIGS="NAME:METRIC,METRIC ..." measures those instead (e.g. a configuration with and without
# gpu__time_duration.sum); RP_START_CASES=0 leaves out the cases below the table.
[ -n "${RP_START_CONFIGS:-}" ] && read -r -a CONFIGS <<<"$RP_START_CONFIGS"
RANGES=${RP_START_RANGES:-"1 2 4 8"}
MD=$OUT/rp-start-cost.md
{
    echo "| configuration | ranges launched | spare ranges | arm (Start) per window, ms | collect per window, ms | ranges with every value |"
    echo "| --- | --- | --- | --- | --- | --- |"
} >"$MD"
row() { # row NAME GROUP R SPARE
    local args=() i line
    for ((i = 0; i < $3; i++)); do args+=("$2"); done
    line=$(RP_FLOOR_WINDOW=1 RP_FLOOR_SPARE=$4 "$WORK/rp-floor" 10 "${args[@]}" 2>>"$LOG" | tee -a "$LOG" | tail -1)
    if [[ $line =~ \(([0-9]+)\ of\ ([0-9]+)\ ranges.*arm\ ([0-9.]+)\ ms,\ collect\ ([0-9.]+)\ ms ]]; then
        echo "| $1 | $3 | $4 | ${BASH_REMATCH[3]} | ${BASH_REMATCH[4]} | ${BASH_REMATCH[1]}/${BASH_REMATCH[2]} |" >>"$MD"
    else
        echo "| $1 | $3 | $4 | FAIL | - | - |" >>"$MD"
    fi
}
for c in "${CONFIGS[@]}"; do
    for r in $RANGES; do row "${c%%:*}" "${c#*:}" "$r" 0; done
done
for c in "lts:lts__t_sectors.sum" "sm:sm__inst_executed.sum"; do row "${c%%:*}" "${c#*:}" 1 3; done
cat "$MD"
[ "${RP_START_CASES:-1}" = 0 ] && exit 0

# What changes of configuration cost: the same windows with a new profiler object before each, and the pass
# mode (one Start per pass) over groups that need two hardware passes together, as S10 does in the tool.
{
    echo
    echo "| case | line printed by rp-floor |"
    echo "| --- | --- |"
} >>"$MD"
case_row() { # case_row NAME ENV... -- ARGS...
    local name=$1 envs=() line; shift
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
    line=$(env "${envs[@]}" "$WORK/rp-floor" 10 "$@" 2>>"$LOG" | tee -a "$LOG" | tail -1)
    echo "| $name | ${line:-FAIL (see rp-start-cost.log)} |" >>"$MD"
}
case_row "six x6, one object" RP_FLOOR_WINDOW=1 -- $SIX $SIX $SIX $SIX $SIX $SIX
case_row "six x6, object re-created before each window" RP_FLOOR_WINDOW=1 RP_FLOOR_RECREATE=1 -- $SIX $SIX $SIX $SIX $SIX $SIX
case_row "sm x1, object re-created before each window" RP_FLOOR_WINDOW=1 RP_FLOOR_RECREATE=1 -- sm__inst_executed.sum
case_row "lts x1, object re-created before each window" RP_FLOOR_WINDOW=1 RP_FLOOR_RECREATE=1 -- lts__t_sectors.sum
case_row "pass mode: sm4, six alternating" RP_FLOOR_TRACE=1 -- $SM4 $SIX
case_row "pass mode: S10's ten groups" RP_FLOOR_TRACE=1 -- "${S10_METRICS[@]}"
sed -n '/^| case |/,$p' "$MD"
grep 'dispatch 3 pass' "$LOG" || true
