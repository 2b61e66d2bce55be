# Builds bench/rp_floor.cu (CMake target rp-floor of tool/cuda/tests, from the tool's own sources); sourced by
# scripts/gpu-bench.sh and scripts/rp-start-cost.sh. build_rp_floor OUT LOG: the binary copied to OUT, the build's
# output appended to LOG; fails when the build does.
build_rp_floor() {
    local out=$1 log=$2
    {
        cmake -S tool -B build/gpu -DCMAKE_BUILD_TYPE=Release &&
            cmake --build build/gpu -j"$(nproc)" --target rp-floor &&
            cp build/gpu/cuda/tests/rp-floor "$out"
    } >>"$log" 2>&1
}
