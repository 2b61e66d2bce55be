#!/usr/bin/env bash
# One gorocprof run per setting, on the GPU machine, to compare a switch's settings in one device call (run
# after scripts/gpu-test.sh built the tool and scripts/gpu-bench.sh wrote the ncu CSV it checks against):
#
#   AB_NCU_CSV=/tmp/gorocprof-bench/many-kernels-nk3.csv AB_PASSES=3 bash scripts/gpu-ab.sh \
#       "-" "GOROCPROF_CUDA_LASTING_REPLAYED=0" -- --pmc ... --replay-mode kernel --kernel-replay-beta-enabled -- bin/cuda-many_launches
#
# Each setting is a space-separated list of VAR=VALUE assignments ("-" for none). Every run has
# GOROCPROF_CUDA_TIMING=1; per run it prints one line (setting, exit status, wall ms, and with AB_NCU_CSV the
# check of tool/cuda/tests/results_vs_ncu.py --passes AB_PASSES: every pass present, no value empty, each equal
# to one of ncu's) and then the tool's phase table. Output directories under AB_WORK (default /tmp/gorocprof-ab).
set -uo pipefail
ROOT=$(pwd)
WORK=${AB_WORK:-/tmp/gorocprof-ab}
settings=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do settings+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "usage: gpu-ab.sh SETTING... -- GOROCPROF_ARGS..." >&2; exit 2; }
shift
mkdir -p "$WORK"
rc_all=0
i=0
for s in "${settings[@]}"; do
    i=$((i + 1))
    d=$WORK/run$i
    rm -rf "$d" && mkdir -p "$d"
    envs=()
    [ "$s" = "-" ] || read -r -a envs <<<"$s"
    t=$(date +%s%N)
    env GOROCPROF_CUDA_TIMING=1 "${envs[@]}" "$ROOT/bin/gorocprof" --quiet -d "$d" -o r "$@" >"$d.txt" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - t) / 1000000 ))
    check="-"
    if [ -n "${AB_NCU_CSV:-}" ]; then
        check=$(python3 "$ROOT/tool/cuda/tests/results_vs_ncu.py" "$d/r_results.json" "$AB_NCU_CSV" \
            --passes "${AB_PASSES:-1}" 2>&1 | tail -1)
        case "$check" in PASS*) ;; *) rc_all=1 ;; esac
    fi
    [ $rc -eq 0 ] || rc_all=1
    echo "ab [$s] rc $rc $ms ms; $check"
    grep -E "warning|error" "$d.txt" | head -3
    sed -n '/^gorocprof-cuda timing/,/^snapshot ranges/p' "$d.txt"
done
exit $rc_all
