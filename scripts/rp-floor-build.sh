# Builds bench/rp_floor.cu from the tool's own sources with nvcc; sourced by scripts/gpu-bench.sh and
# scripts/rp-start-cost.sh. build_rp_floor OUT LOG: the binary at OUT, compiler output appended to LOG;
# returns nvcc's status.
build_rp_floor() {
    local out=$1 log=$2 inc lib
    inc=$(dirname "$(find -L /usr/local/cuda/ -name cupti_range_profiler.h 2>/dev/null | head -1)")
    lib=$(dirname "$(find -L /usr/local/cuda/ -name 'libcupti.so' 2>/dev/null | head -1)")
    nvcc -O2 -std=c++17 -arch=sm_90 -Itool/cuda -Itool/cuda/tests -Itool/core -Itool/replay -Itool/include -I"$inc" \
        bench/rp_floor.cu tool/cuda/range_counters.cpp tool/cuda/config_runs.cpp tool/cuda/phase_stats.cpp \
        tool/cuda/metric_host.cpp tool/cuda/device_info.cpp tool/cuda/check.cpp \
        -L"$lib" -Xlinker -rpath -Xlinker "$lib" -lcupti -lcuda -o "$out" >>"$log" 2>&1
}
