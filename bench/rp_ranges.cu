// What one range costs inside a Range Profiler session that holds many of them: the question behind the
// lasting counter windows (tool/cuda/lasting_window.hpp). One configuration (the metrics given), one
// window of W ranges after another over D kernels (the two kernels of bin/cuda-many_launches in turn),
// each window Start, W kernels, Stop, decode and evaluate, in one of two modes:
//   auto  CUPTI_AutoRange: every kernel launched while started is a range (what the tool uses);
//   user  CUPTI_UserRange: cuptiRangeProfilerPushRange / PopRange around each kernel.
// SYNC=1 waits for each kernel before the next launch (as the tool waits for each pass); SYNC=0 launches
// the window's kernels back to back and waits once before Stop.
//
// GAP (optional, default 0) launches that many kernels writing a 64 MiB buffer (a stand-in for the tool's cache
// flush) before each measured kernel: in user mode outside any pushed range, in auto mode they are ranges too.
//
// RP_RANGES_GAP_CTX=1 runs the gap kernels in a second context of the device (created at start, timed) and
// waits for them there before each measured kernel: the profiler object is the first context's, so they should
// not be ranges, while the L2 they sweep is the device's.
// RP_RANGES_ACTIVITY=1 also records CUPTI activity kernel records (CONCURRENT_KERNEL) and prints their
// count and mean duration for the timed kernels (meaningful with GAP=0, where every kernel is a measured one).
// Every measured kernel is also timed by a pair of CUDA events around its launch (inside its pushed range in
// user mode), printed as "event mean". RP_RANGES_N sets the measured kernels' elements (default 65536).
//
// Usage: rp-ranges MODE SYNC W D METRIC[,METRIC...] [GAP]
// Prints "rp-ranges MODE sync=S W=W gap=G: D kernels in T ms: X ms per kernel; per window: start A ms,
// stop+decode B ms; R of R' ranges with every value (N recorded); first metric of add_one / add_index: V / V',
// M ranges differ; last metric mean U; event mean E ns" and exits 0 when every range has every value, else 1. CMake target
// rp-ranges of tool/cuda/tests (built only when asked for).
#include "bench_profiler.cuh"
#include "device_info.hpp"
#include "many_kernels.cuh"
#include "metric_host.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace gc = gorocprof::cuda;
namespace gb = gorocprof::cuda::bench;

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
    gb::RangeWindows rp;  // rp.ranges: window * slots
    std::vector<const char*> names;
    size_t window = 0;
    size_t slots = 1;  // ranges per measured kernel: 1 + GAP in auto mode, where the gap kernels are ranges too

    // Stop, decode, and how many ranges came back with every value.
    // values[r] holds range r's metrics, in names' order.
    gc::PortStatus collect(gc::HostObject& host, size_t* ranges, size_t* full, std::vector<std::vector<double>>* values_out) {
        const size_t before = values_out->size();
        gc::PortStatus st = rp.collect(host, names, values_out);
        *ranges = values_out->size() - before;
        *full = 0;
        for (size_t r = before; r < values_out->size(); ++r) {
            bool all = true;
            for (double v : (*values_out)[r]) all = all && !std::isnan(v) && v > 0;
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

// The timed kernels' activity records: their count and mean duration.
void kernel_record_stats(size_t* count, double* mean_ns) {
    double ns = 0;
    for (const gb::KernelRecord& k : gb::kernel_records()) ns += double(k.end - k.start);
    *count = gb::kernel_records().size();
    *mean_ns = *count ? ns / double(*count) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 6 && argc != 7) {
        std::fprintf(stderr, "usage: rp-ranges auto|user SYNC W D METRIC[,METRIC...] [GAP]\n");
        return 2;
    }
    Session s;
    s.rp.user = std::strcmp(argv[1], "user") == 0;
    const bool sync = std::strcmp(argv[2], "1") == 0;
    s.window = std::strtoul(argv[3], nullptr, 10);
    const long kernels = std::strtol(argv[4], nullptr, 10);
    const long gap = argc == 7 ? std::strtol(argv[6], nullptr, 10) : 0;
    if (s.window < 1 || kernels < 1 || gap < 0) return 2;
    const bool gap_ctx = std::getenv("RP_RANGES_GAP_CTX") && std::strcmp(std::getenv("RP_RANGES_GAP_CTX"), "1") == 0;
    s.slots = s.rp.user || gap_ctx ? 1 : static_cast<size_t>(1 + gap);
    s.rp.ranges = s.window * s.slots;
    std::vector<std::string> metrics;
    for (std::string list = argv[5]; !list.empty();) {
        const size_t comma = list.find(',');
        metrics.push_back(list.substr(0, comma));
        list = comma == std::string::npos ? "" : list.substr(comma + 1);
    }
    for (const std::string& m : metrics) s.names.push_back(m.c_str());

    gc::PortStatus st;
    const bool activity = std::getenv("RP_RANGES_ACTIVITY") && std::strcmp(std::getenv("RP_RANGES_ACTIVITY"), "1") == 0;
    if (activity) {
        if (!(st = gb::enable_kernel_records()).ok) return fail(st);
    }
    if (!(st = runtime(cudaFree(nullptr), "cudaFree(0)")).ok) return fail(st);
    CUcontext ctx = nullptr;
    if (!(st = gc::cu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent")).ok) return fail(st);
    if (!(st = gc::ensure_profiler_initialized()).ok) return fail(st);
    std::string chip;
    if (!(st = gc::chip_name(0, &chip)).ok) return fail(st);
    std::vector<uint8_t> availability;
    const auto t_avail = std::chrono::steady_clock::now();
    if (!(st = gc::counter_availability(ctx, &availability)).ok) return fail(st);
    const double avail_ms = ms_since(t_avail);
    gc::HostObject host;
    size_t passes = 0;
    if (!(st = host.init(chip, availability)).ok || !(st = gc::build_config(host, s.names, &s.rp.config, &passes)).ok) return fail(st);
    if (passes != 1) return fail(gc::PortStatus::failure("build_config", "the metrics need several hardware passes"));
    if (!(st = s.rp.enable(ctx, s.names)).ok) return fail(st);

    const char* n_env = std::getenv("RP_RANGES_N");
    const int n = n_env ? std::atoi(n_env) : 1 << 16;
    if (n < 1) return 2;
    cudaEvent_t ev0 = nullptr, ev1 = nullptr;
    if (!(st = runtime(cudaEventCreate(&ev0), "cudaEventCreate")).ok || !(st = runtime(cudaEventCreate(&ev1), "cudaEventCreate")).ok)
        return fail(st);
    double event_ms = 0;
    int* data = nullptr;
    if (!(st = runtime(cudaMalloc(&data, n * sizeof(int)), "cudaMalloc")).ok) return fail(st);
    // RP_RANGES_GAP_N: the gap kernels' elements (default 64 MiB of ints).
    const char* gap_env = std::getenv("RP_RANGES_GAP_N");
    const size_t gap_n = gap_env ? std::strtoull(gap_env, nullptr, 10) : size_t(64) << 18;
    if (gap_n < 1) return 2;
    double gap_event_ms = 0;
    int* gap_buf = nullptr;
    CUcontext other = nullptr;
    double ctx_ms = 0;
    if (gap > 0 && gap_ctx) {
        CUdevice dev = 0;
        const auto tc = std::chrono::steady_clock::now();
        if (!(st = gc::cu(cuCtxGetDevice(&dev), "cuCtxGetDevice")).ok) return fail(st);
#if CUDA_VERSION >= 13000
        if (!(st = gc::cu(cuCtxCreate(&other, nullptr, 0, dev), "cuCtxCreate")).ok) return fail(st);
#else
        if (!(st = gc::cu(cuCtxCreate(&other, 0, dev), "cuCtxCreate")).ok) return fail(st);
#endif
        // cuCtxCreate made it current: allocate there, then give the thread its first context back.
        if (!(st = runtime(cudaMalloc(&gap_buf, gap_n * sizeof(int)), "cudaMalloc")).ok) return fail(st);
        add_one<<<static_cast<unsigned>((gap_n + 255) / 256), 256>>>(gap_buf, static_cast<int>(gap_n));  // loads the module there
        if (!(st = gc::cu(cuCtxSynchronize(), "cuCtxSynchronize")).ok) return fail(st);
        CUcontext popped = nullptr;
        if (!(st = gc::cu(cuCtxPopCurrent(&popped), "cuCtxPopCurrent")).ok) return fail(st);
        ctx_ms = ms_since(tc);
        std::printf("rp-ranges: a second context with its gap buffer in %.1f ms\n", ctx_ms);
    } else if (gap > 0 && !(st = runtime(cudaMalloc(&gap_buf, gap_n * sizeof(int)), "cudaMalloc")).ok) {
        return fail(st);
    }
    auto gap_launch = [&]() {
        if (other) {
            gc::PortStatus r = gc::cu(cuCtxPushCurrent(other), "cuCtxPushCurrent");
            if (!r.ok) return r;
            for (long g = 0; g < gap; ++g) add_one<<<static_cast<unsigned>((gap_n + 255) / 256), 256>>>(gap_buf, static_cast<int>(gap_n));
            r = runtime(cudaGetLastError(), "gap kernel launch");
            if (r.ok) r = gc::cu(cuCtxSynchronize(), "cuCtxSynchronize");
            CUcontext popped = nullptr;
            if (r.ok) r = gc::cu(cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
            return r;
        }
        // Timed with the measured kernels' event pair (SYNC=1): what a kernel outside every range lasts.
        gc::PortStatus r = sync ? runtime(cudaEventRecord(ev0), "cudaEventRecord") : gc::PortStatus::success();
        for (long g = 0; r.ok && g < gap; ++g) add_one<<<static_cast<unsigned>((gap_n + 255) / 256), 256>>>(gap_buf, static_cast<int>(gap_n));
        if (r.ok) r = runtime(cudaGetLastError(), "gap kernel launch");
        if (r.ok && sync) {
            float ms = 0;
            if ((r = runtime(cudaEventRecord(ev1), "cudaEventRecord")).ok && (r = runtime(cudaEventSynchronize(ev1), "cudaEventSynchronize")).ok &&
                (r = runtime(cudaEventElapsedTime(&ms, ev0, ev1), "cudaEventElapsedTime")).ok)
                gap_event_ms += ms;
        }
        return r;
    };
    auto launch = [&](long k) {
        gc::PortStatus r = runtime(cudaEventRecord(ev0), "cudaEventRecord");
        if (!r.ok) return r;
        if (k % 2) add_index<<<(n + 255) / 256, 256>>>(data, n);
        else add_one<<<(n + 255) / 256, 256>>>(data, n);
        if (!(r = runtime(cudaGetLastError(), "kernel launch")).ok) return r;
        if (!(r = runtime(cudaEventRecord(ev1), "cudaEventRecord")).ok) return r;
        // The pair is read at once, so it waits for the kernel: event times need SYNC=1 to mean anything.
        if (sync) {
            if (!(r = runtime(cudaEventSynchronize(ev1), "cudaEventSynchronize")).ok) return r;
            float ms = 0;
            if (!(r = runtime(cudaEventElapsedTime(&ms, ev0, ev1), "cudaEventElapsedTime")).ok) return r;
            event_ms += ms;
        }
        return r;
    };
    // One window untimed: the object's first Start, module loading.
    double start_ms = 0, collect_ms = 0;
    size_t windows = 0, ranges = 0, full = 0, armed = 0, differ = 0;
    double first[2] = {NAN, NAN}, last_sum = 0;
    // RP_RANGES_WARMUP=1: one Start and Stop with no kernel before the first window, timed on its own: whether
    // the object's first-Start cost can be paid ahead of the first kernel.
    double warmup_ms = 0;
    if (std::getenv("RP_RANGES_WARMUP") && std::strcmp(std::getenv("RP_RANGES_WARMUP"), "1") == 0) {
        const auto tw = std::chrono::steady_clock::now();
        if (!(st = s.rp.arm()).ok || !(st = s.rp.stop()).ok) return fail(st);
        warmup_ms = ms_since(tw);
    }
    double first_start_ms = 0, first_collect_ms = 0;
    for (int timed = 0; timed < 2; ++timed) {
        if (timed) {
            first_start_ms = start_ms;
            first_collect_ms = collect_ms;
        }
        start_ms = collect_ms = 0;
        windows = ranges = full = armed = differ = 0;
        last_sum = 0;
        event_ms = 0;
        gap_event_ms = 0;
        if (activity) {
            if (!(st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize")).ok) return fail(st);
            if (!(st = gc::cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll")).ok) return fail(st);
            gb::kernel_records().clear();
        }
        const long total = timed ? kernels : static_cast<long>(s.window);
        const auto t0 = std::chrono::steady_clock::now();
        for (long k = 0; k < total;) {
            auto t = std::chrono::steady_clock::now();
            if (!(st = s.rp.arm()).ok) return fail(st);
            start_ms += ms_since(t);
            const long end = std::min(total, k + static_cast<long>(s.window));
            armed += static_cast<size_t>(end - k) * s.slots;
            const long window_first = k;
            for (; k < end; ++k) {
                if (gap > 0 && !(st = gap_launch()).ok) return fail(st);
                if (s.rp.user && !(st = push(s.rp.obj, k)).ok) return fail(st);
                if (!(st = launch(k)).ok) return fail(st);
                if (s.rp.user && !(st = pop(s.rp.obj)).ok) return fail(st);
            }
            if (!(st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize")).ok) return fail(st);
            t = std::chrono::steady_clock::now();
            size_t r = 0, f = 0;
            std::vector<std::vector<double>> values;
            if (!(st = s.collect(host, &r, &f, &values)).ok) return fail(st);
            collect_ms += ms_since(t);
            // Range i of the window is kernel window_first + i when only the measured kernels are ranges.
            for (size_t i = s.slots - 1; i < values.size(); i += s.slots) {
                const long parity = (window_first + static_cast<long>(i / s.slots)) % 2;
                if (std::isnan(first[parity])) first[parity] = values[i][0];
                differ += values[i][0] != first[parity] ? 1 : 0;
                last_sum += values[i].back();
            }
            ranges += r;
            full += f;
            ++windows;
        }
        if (timed) {
            const double ms = ms_since(t0);
            if (gap > 0 && sync)
                std::printf("rp-ranges gap kernels (%zu elements): event mean %.0f ns\n", gap_n,
                            gap_event_ms * 1e6 / double(kernels * gap));
            std::printf("rp-ranges set-up: counter availability %.1f ms; warm-up Start+Stop %.1f ms; the object's first "
                        "window: start %.1f ms, stop+decode %.1f ms\n", avail_ms, warmup_ms, first_start_ms, first_collect_ms);
            if (activity) {
                const auto tf = std::chrono::steady_clock::now();
                if (!(st = gc::cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll")).ok) return fail(st);
                const double flush_ms = ms_since(tf);
                size_t records = 0;
                double mean_ns = 0;
                kernel_record_stats(&records, &mean_ns);
                std::printf("rp-ranges activity: %zu kernel records, mean %.0f ns, flush %.3f ms\n", records, mean_ns, flush_ms);
            }
            std::printf("rp-ranges %s sync=%d W=%zu gap=%ld: %ld kernels in %.1f ms: %.3f ms per kernel; per window: start %.3f ms, "
                        "stop+decode %.3f ms; %zu of %zu ranges with every value (%zu recorded); first metric of add_one / "
                        "add_index: %.0f / %.0f, %zu ranges differ; last metric mean %.1f; event mean %.0f ns\n",
                        s.rp.user ? "user" : "auto", sync ? 1 : 0, s.window, gap, kernels, ms, ms / double(kernels),
                        start_ms / double(windows), collect_ms / double(windows), full, armed, ranges, first[0], first[1],
                        differ, ranges ? last_sum / double(ranges) : 0.0, event_ms * 1e6 / double(kernels));
        }
    }
    s.rp.disable();
    cudaFree(data);
    if (gap_buf && !other) cudaFree(gap_buf);
    if (other) cuCtxDestroy(other);
    return full == armed && ranges == armed ? 0 : 1;
}
