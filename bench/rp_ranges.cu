// What one range costs inside a Range Profiler session that holds many of them: the question behind the
// lasting counter windows (tool/cuda/lasting_window.hpp). One configuration (the metrics given), one
// window of W ranges after another over D kernels (the two kernels of bin/cuda-many_launches in turn),
// each window Start, W kernels, Stop, decode and evaluate, in one of two modes:
//   auto  CUPTI_AutoRange: every kernel launched while started is a range (what the tool uses);
//   user  CUPTI_UserRange: cuptiRangeProfilerPushRange / PopRange around each kernel.
// SYNC=1 waits for each kernel before the next launch (as the tool waits for each pass); SYNC=0 launches
// the window's kernels back to back and waits once before Stop.
//
// Usage: rp-ranges MODE SYNC W D METRIC[,METRIC...]
// Prints "rp-ranges MODE sync=S W=W: D kernels in T ms: X ms per kernel; per window: start A ms, stop+decode
// B ms; R of R' ranges with every value" and exits 0 when every range has every value, else 1. CMake target
// rp-ranges of tool/cuda/tests (built only when asked for).
#include "device_info.hpp"
#include "many_kernels.cuh"
#include "metric_host.hpp"

#include <cuda_runtime.h>
#include <cupti_range_profiler.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace gc = gorocprof::cuda;

namespace {

int fail(const gc::PortStatus& st) {
    std::fprintf(stderr, "rp-ranges: %s\n", st.message().c_str());
    return 1;
}

gc::PortStatus runtime(cudaError_t e, const char* call) {
    return e == cudaSuccess ? gc::PortStatus::success() : gc::PortStatus::failure(call, cudaGetErrorString(e));
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Session {
    CUpti_RangeProfiler_Object* obj = nullptr;
    std::vector<uint8_t> config, data;
    std::vector<const char*> names;
    bool user = false;
    size_t window = 0;

    gc::PortStatus arm() {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        init.pRangeProfilerObject = obj;
        init.counterDataSize = data.size();
        init.pCounterData = data.data();
        gc::PortStatus st = gc::cupti(cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
        if (!st.ok) return st;
        CUpti_RangeProfiler_SetConfig_Params cfg{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
        cfg.pRangeProfilerObject = obj;
        cfg.configSize = config.size();
        cfg.pConfig = config.data();
        cfg.counterDataImageSize = data.size();
        cfg.pCounterDataImage = data.data();
        cfg.range = user ? CUPTI_UserRange : CUPTI_AutoRange;
        cfg.replayMode = CUPTI_UserReplay;
        cfg.maxRangesPerPass = window;
        cfg.numNestingLevels = 1;
        cfg.minNestingLevel = 1;
        cfg.passIndex = 0;
        cfg.targetNestingLevel = 1;
        if (!(st = gc::cupti(cuptiRangeProfilerSetConfig(&cfg), "cuptiRangeProfilerSetConfig")).ok) return st;
        CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        start.pRangeProfilerObject = obj;
        return gc::cupti(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
    }

    // Stop, decode, and how many ranges came back with every value.
    gc::PortStatus collect(gc::HostObject& host, size_t* ranges, size_t* full) {
        CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        stop.pRangeProfilerObject = obj;
        gc::PortStatus st = gc::cupti(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
        if (!st.ok) return st;
        CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
        decode.pRangeProfilerObject = obj;
        if (!(st = gc::cupti(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData")).ok) return st;
        CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
        info.pCounterDataImage = data.data();
        info.counterDataImageSize = data.size();
        if (!(st = gc::cupti(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo")).ok) return st;
        *ranges = info.numTotalRanges;
        *full = 0;
        std::vector<double> values(names.size());
        for (size_t r = 0; r < *ranges; ++r) {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
            eval.pHostObject = host.get();
            eval.pCounterDataImage = data.data();
            eval.counterDataImageSize = data.size();
            eval.rangeIndex = r;
            eval.ppMetricNames = names.data();
            eval.numMetrics = names.size();
            eval.pMetricValues = values.data();
            if (!(st = gc::cupti(cuptiProfilerHostEvaluateToGpuValues(&eval), "cuptiProfilerHostEvaluateToGpuValues")).ok) return st;
            bool all = true;
            for (double v : values) all = all && !std::isnan(v) && v > 0;
            *full += all ? 1 : 0;
        }
        return st;
    }
};

// Each range its own name: CUPTI merges ranges of one name into one.
gc::PortStatus push(CUpti_RangeProfiler_Object* obj, long k) {
    static std::vector<std::string> names;
    while (names.size() <= static_cast<size_t>(k)) names.push_back("k" + std::to_string(names.size()));
    CUpti_RangeProfiler_PushRange_Params p{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    p.pRangeName = names[static_cast<size_t>(k)].c_str();
    return gc::cupti(cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange");
}

gc::PortStatus pop(CUpti_RangeProfiler_Object* obj) {
    CUpti_RangeProfiler_PopRange_Params p{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    return gc::cupti(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: rp-ranges auto|user SYNC W D METRIC[,METRIC...]\n");
        return 2;
    }
    Session s;
    s.user = std::strcmp(argv[1], "user") == 0;
    const bool sync = std::strcmp(argv[2], "1") == 0;
    s.window = std::strtoul(argv[3], nullptr, 10);
    const long kernels = std::strtol(argv[4], nullptr, 10);
    if (s.window < 1 || kernels < 1) return 2;
    std::vector<std::string> metrics;
    for (std::string list = argv[5]; !list.empty();) {
        const size_t comma = list.find(',');
        metrics.push_back(list.substr(0, comma));
        list = comma == std::string::npos ? "" : list.substr(comma + 1);
    }
    for (const std::string& m : metrics) s.names.push_back(m.c_str());

    gc::PortStatus st;
    if (!(st = runtime(cudaFree(nullptr), "cudaFree(0)")).ok) return fail(st);
    CUcontext ctx = nullptr;
    if (!(st = gc::cu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent")).ok) return fail(st);
    if (!(st = gc::ensure_profiler_initialized()).ok) return fail(st);
    std::string chip;
    if (!(st = gc::chip_name(0, &chip)).ok) return fail(st);
    std::vector<uint8_t> availability;
    if (!(st = gc::counter_availability(ctx, &availability)).ok) return fail(st);
    gc::HostObject host;
    size_t passes = 0;
    if (!(st = host.init(chip, availability)).ok || !(st = gc::build_config(host, s.names, &s.config, &passes)).ok) return fail(st);
    if (passes != 1) return fail(gc::PortStatus::failure("build_config", "the metrics need several hardware passes"));
    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    if (!(st = gc::cupti(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable")).ok) return fail(st);
    s.obj = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pRangeProfilerObject = s.obj;
    size.pMetricNames = s.names.data();
    size.numMetrics = s.names.size();
    size.maxNumOfRanges = s.window;
    size.maxNumRangeTreeNodes = s.window;
    if (!(st = gc::cupti(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize")).ok) return fail(st);
    s.data.assign(size.counterDataSize, 0);

    const int n = 1 << 16;
    int* data = nullptr;
    if (!(st = runtime(cudaMalloc(&data, n * sizeof(int)), "cudaMalloc")).ok) return fail(st);
    auto launch = [&](long k) {
        if (k % 2) add_index<<<(n + 255) / 256, 256>>>(data, n);
        else add_one<<<(n + 255) / 256, 256>>>(data, n);
        gc::PortStatus r = runtime(cudaGetLastError(), "kernel launch");
        if (r.ok && sync) r = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        return r;
    };
    // One window untimed: the object's first Start, module loading.
    double start_ms = 0, collect_ms = 0;
    size_t windows = 0, ranges = 0, full = 0, armed = 0;
    for (int timed = 0; timed < 2; ++timed) {
        start_ms = collect_ms = 0;
        windows = ranges = full = armed = 0;
        const long total = timed ? kernels : static_cast<long>(s.window);
        const auto t0 = std::chrono::steady_clock::now();
        for (long k = 0; k < total;) {
            auto t = std::chrono::steady_clock::now();
            if (!(st = s.arm()).ok) return fail(st);
            start_ms += ms_since(t);
            const long end = std::min(total, k + static_cast<long>(s.window));
            armed += static_cast<size_t>(end - k);
            for (; k < end; ++k) {
                if (s.user && !(st = push(s.obj, k)).ok) return fail(st);
                if (!(st = launch(k)).ok) return fail(st);
                if (s.user && !(st = pop(s.obj)).ok) return fail(st);
            }
            if (!(st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize")).ok) return fail(st);
            t = std::chrono::steady_clock::now();
            size_t r = 0, f = 0;
            if (!(st = s.collect(host, &r, &f)).ok) return fail(st);
            collect_ms += ms_since(t);
            ranges += r;
            full += f;
            ++windows;
        }
        if (timed) {
            const double ms = ms_since(t0);
            std::printf("rp-ranges %s sync=%d W=%zu: %ld kernels in %.1f ms: %.3f ms per kernel; per window: start %.3f ms, "
                        "stop+decode %.3f ms; %zu of %zu ranges with every value (%zu recorded)\n",
                        s.user ? "user" : "auto", sync ? 1 : 0, s.window, kernels, ms, ms / double(kernels),
                        start_ms / double(windows), collect_ms / double(windows), full, armed, ranges);
        }
    }
    CUpti_RangeProfiler_Disable_Params off{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    off.pRangeProfilerObject = s.obj;
    cuptiRangeProfilerDisable(&off);
    cudaFree(data);
    return full == armed ? 0 : 1;
}
