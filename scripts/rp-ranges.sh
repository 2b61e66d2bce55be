#!/usr/bin/env bash
# What one range costs inside a Range Profiler session of many (bench/rp_ranges.cu): auto ranges against
# user ranges with a name per range, with and without a flush-like kernel before each measured one (outside
# every pushed range in user mode). Run from the repository root on the GPU machine. Prints one line per
# case and exits 1 when a case's binary reports missing ranges or values.
# RP_RANGES_CASES: "MODE SYNC W GAP" quadruples separated by ';'.
set -uo pipefail
OUT=${OUT:-out/rp-ranges}
mkdir -p "$OUT"
LOG=$OUT/rp-ranges.log
: >"$LOG"
KERNELS=${RP_RANGES_KERNELS:-640}
METRICS=${RP_RANGES_METRICS:-sm__inst_executed.sum,gpu__time_duration.sum}
CASES=${RP_RANGES_CASES:-"auto 1 64 0;user 1 64 0;auto 0 64 0;user 0 64 0;auto 1 64 1;user 1 64 1;user 0 64 1;user 1 1 0"}
{
    cmake -S tool -B build/gpu -DCMAKE_BUILD_TYPE=Release &&
        cmake --build build/gpu -j"$(nproc)" --target rp-ranges
} >>"$LOG" 2>&1 || { echo "rp-ranges: build failed (see $LOG)"; tail -20 "$LOG"; exit 1; }
BIN=build/gpu/cuda/tests/rp-ranges
rc=0
IFS=';' read -ra cases <<<"$CASES"
for c in "${cases[@]}"; do
    read -r mode sync w gap <<<"$c"
    line=$("$BIN" "$mode" "$sync" "$w" "$KERNELS" "$METRICS" "$gap" 2>&1) || rc=1
    echo "$line" | tee -a "$LOG"
done
exit $rc
