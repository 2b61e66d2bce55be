# The cache sections of scripts/gpu-test.sh (sourced there, after its helpers): cache (cache-sensitive
# counters against ncu under each --cache-control), availability (a counter-availability cache that cannot be
# written) and cachecost (what the flush costs per pass). They use its say, run_replay, ncu_csv and want.
# ---- cache: cache-sensitive counters against ncu under each --cache-control ----------------------------
if want cache; then
    CM=dram__bytes_read.sum,lts__t_sectors_op_read.sum
    for app in $CACHE_APPS; do
        for cc in all none; do
            say "cache $app --cache-control $cc"
            d=$WORK/$app-cache-$cc
            GOROCPROF_CACHE_CONTROL=$cc REPLAY_GROUPS="${CM/,/ }" run_replay "$d" "$ROOT/bin/cuda-$app" >"$d.txt" 2>&1
            rc=$?
            NCU_CACHE=$cc ncu_csv "$CM" "$d.ncu.csv" "$ROOT/bin/cuda-$app" >"$d.ncu.txt" 2>&1
            rc_n=$?
            python3 tool/cuda/tests/check_records.py "$d" --passes 2 --ncu "$d.ncu.csv" --tolerance 0.05 \
                --app "$app-cache-$cc" >"$d.json" 2>&1
            rc_c=$?
            cat "$d.json" >>"$LOG"
            ok=PASS
            if [ $rc -ne 0 ] || [ $rc_n -ne 0 ] || [ $rc_c -ne 0 ]; then ok=FAIL; FAILED=1; fi
            say "cache $app $cc: $ok | rc $rc, ncu rc $rc_n | $(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print("%d/%d medians within 5%% of ncu or of its range; values %s; %s" % (d["ncu_compared"]-d["ncu_mismatch"],
    d["ncu_compared"], json.dumps(d["values"])[:300], "; ".join(d["problems"][:2]) or "-"))' "$d.json" 2>/dev/null || echo "checker failed")"
        done
    done
fi

# ---- availability: a cache directory that cannot be written -------------------------------------------
# GOROCPROF_CUDA_AVAILABILITY_DIR under a plain file cannot be created: each run must warn once (records'
# warning lines) and still give every pass's values, with the profiler enabled eagerly and at first launch.
if want availability; then
    blocker=$WORK/availability-blocker
    : >"$blocker"
    for eager in 1 0; do
        d=$WORK/saxpy-availability-eager$eager
        rm -rf "$d"
        GOROCPROF_CUDA_EAGER_PROFILER=$eager GOROCPROF_CUDA_AVAILABILITY_DIR=$blocker/cache \
            run_replay "$d" "$ROOT/bin/cuda-saxpy" >"$d.txt" 2>&1
        rc=$?
        python3 tool/cuda/tests/check_records.py "$d" --passes 3 --app "saxpy-availability-eager$eager" >"$d.json" 2>&1
        rc_c=$?
        warned=$(cat "$d"/records/* 2>/dev/null | grep -c 'keeping the counter availability in')
        ok=PASS
        if [ $rc -ne 0 ] || [ $rc_c -ne 0 ] || [ "$warned" -ne 1 ]; then ok=FAIL; FAILED=1; fi
        say "availability eager=$eager: $ok | rc $rc, records check rc $rc_c, warnings $warned (want 1)"
    done
fi

# ---- cachecost: what --cache-control all costs per pass --------------------------------------------------
# A kernel replay of 3 groups, one with a cache-sensitive counter (a plan of counts of the program's own work
# runs no flush), under GOROCPROF_CACHE_CONTROL=all and none with GOROCPROF_CUDA_TIMING=1: the flush's queuing
# is its own phase, its GPU time shows in "relaunch + wait" and the timing run.
if want cachecost; then
    CC_GROUPS="$G0 $G1 sm__warps_launched.sum,dram__bytes_read.sum"
    for app in $CACHECOST_APPS; do
        for cc in all none; do
            d=$WORK/$app-cachecost-$cc
            t=$(date +%s%N)
            GOROCPROF_CUDA_TIMING=1 GOROCPROF_CACHE_CONTROL=$cc REPLAY_GROUPS="$CC_GROUPS" run_replay "$d" "$ROOT/bin/cuda-$app" >"$d.txt" 2>&1
            say "cachecost $app $cc: rc $? / $(ms_since $t) ms"
            sed -n '/^gorocprof-cuda timing/,$p' "$d.txt" | head -40 | tee -a "$LOG"
        done
    done
fi
