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
#include "bench_status.cuh"
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

using gorocprof::cuda::bench::ms_since;
using gorocprof::cuda::bench::runtime;

namespace {

int fail(const gc::PortStatus& st) { return gorocprof::cuda::bench::fail("rp-ranges", st); }

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

bool env_is_one(const char* name) {
    const char* v = std::getenv(name);
    return v && std::strcmp(v, "1") == 0;
}

// The command line and the RP_RANGES_* variables.
struct Args {
    bool sync = false;
    long kernels = 0;
    long gap = 0;
    bool gap_ctx = false;   // RP_RANGES_GAP_CTX=1
    bool activity = false;  // RP_RANGES_ACTIVITY=1
    bool warmup = false;    // RP_RANGES_WARMUP=1
    int n = 1 << 16;        // RP_RANGES_N
    size_t gap_n = size_t(64) << 18;  // RP_RANGES_GAP_N: the gap kernels' elements (default 64 MiB of ints)
    std::vector<std::string> metrics;
};

bool parse_args(int argc, char** argv, Session* s, Args* a) {
    if (argc != 6 && argc != 7) return false;
    s->rp.user = std::strcmp(argv[1], "user") == 0;
    a->sync = std::strcmp(argv[2], "1") == 0;
    s->window = std::strtoul(argv[3], nullptr, 10);
    a->kernels = std::strtol(argv[4], nullptr, 10);
    a->gap = argc == 7 ? std::strtol(argv[6], nullptr, 10) : 0;
    a->gap_ctx = env_is_one("RP_RANGES_GAP_CTX");
    a->activity = env_is_one("RP_RANGES_ACTIVITY");
    a->warmup = env_is_one("RP_RANGES_WARMUP");
    if (const char* v = std::getenv("RP_RANGES_N")) a->n = std::atoi(v);
    if (const char* v = std::getenv("RP_RANGES_GAP_N")) a->gap_n = std::strtoull(v, nullptr, 10);
    if (s->window < 1 || a->kernels < 1 || a->gap < 0 || a->n < 1 || a->gap_n < 1) return false;
    s->slots = s->rp.user || a->gap_ctx ? 1 : static_cast<size_t>(1 + a->gap);
    s->rp.ranges = s->window * s->slots;
    for (std::string list = argv[5]; !list.empty();) {
        const size_t comma = list.find(',');
        a->metrics.push_back(list.substr(0, comma));
        list = comma == std::string::npos ? "" : list.substr(comma + 1);
    }
    for (const std::string& m : a->metrics) s->names.push_back(m.c_str());
    return !a->metrics.empty();
}

// The configuration of the metrics (one hardware pass), the profiler object and its counter data image;
// *avail_ms: what reading the counter availability cost.
gc::PortStatus open_session(Session& s, gc::HostObject& host, double* avail_ms) {
    gc::PortStatus st;
    if (!(st = runtime(cudaFree(nullptr), "cudaFree(0)")).ok) return st;
    CUcontext ctx = nullptr;
    if (!(st = gc::cu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent")).ok) return st;
    if (!(st = gc::ensure_profiler_initialized()).ok) return st;
    std::string chip;
    if (!(st = gc::chip_name(0, &chip)).ok) return st;
    std::vector<uint8_t> availability;
    const auto t_avail = std::chrono::steady_clock::now();
    if (!(st = gc::counter_availability(ctx, &availability)).ok) return st;
    *avail_ms = ms_since(t_avail);
    size_t passes = 0;
    if (!(st = host.init(chip, availability)).ok || !(st = gc::build_config(host, s.names, &s.rp.config, &passes)).ok) return st;
    if (passes != 1) return gc::PortStatus::failure("build_config", "the metrics need several hardware passes");
    return s.rp.enable(ctx, s.names);
}

// The kernels: the measured ones (add_one and add_index in turn over n ints, each timed by an event pair)
// and the gap kernels before each (over gap_n ints, in this context or a second one).
struct Kernels {
    const Args& a;
    cudaEvent_t ev0 = nullptr, ev1 = nullptr;
    int* data = nullptr;
    int* gap_buf = nullptr;
    CUcontext other = nullptr;
    double event_ms = 0, gap_event_ms = 0;

    explicit Kernels(const Args& args) : a(args) {}
    ~Kernels() {
        cudaFree(data);
        if (gap_buf && !other) cudaFree(gap_buf);
        if (other) cuCtxDestroy(other);
    }

    gc::PortStatus prepare() {
        gc::PortStatus st;
        if (!(st = runtime(cudaEventCreate(&ev0), "cudaEventCreate")).ok || !(st = runtime(cudaEventCreate(&ev1), "cudaEventCreate")).ok)
            return st;
        if (!(st = runtime(cudaMalloc(&data, a.n * sizeof(int)), "cudaMalloc")).ok) return st;
        if (a.gap > 0 && a.gap_ctx) return second_context();
        if (a.gap > 0) return runtime(cudaMalloc(&gap_buf, a.gap_n * sizeof(int)), "cudaMalloc");
        return st;
    }

    gc::PortStatus second_context() {
        CUdevice dev = 0;
        const auto tc = std::chrono::steady_clock::now();
        gc::PortStatus st;
        if (!(st = gc::cu(cuCtxGetDevice(&dev), "cuCtxGetDevice")).ok) return st;
#if CUDA_VERSION >= 13000
        if (!(st = gc::cu(cuCtxCreate(&other, nullptr, 0, dev), "cuCtxCreate")).ok) return st;
#else
        if (!(st = gc::cu(cuCtxCreate(&other, 0, dev), "cuCtxCreate")).ok) return st;
#endif
        // cuCtxCreate made it current: allocate there, then give the thread its first context back.
        if (!(st = runtime(cudaMalloc(&gap_buf, a.gap_n * sizeof(int)), "cudaMalloc")).ok) return st;
        gap_kernels(1);  // loads the module there
        if (!(st = gc::cu(cuCtxSynchronize(), "cuCtxSynchronize")).ok) return st;
        CUcontext popped = nullptr;
        if (!(st = gc::cu(cuCtxPopCurrent(&popped), "cuCtxPopCurrent")).ok) return st;
        std::printf("rp-ranges: a second context with its gap buffer in %.1f ms\n", ms_since(tc));
        return st;
    }

    void gap_kernels(long count) {
        for (long g = 0; g < count; ++g)
            add_one<<<static_cast<unsigned>((a.gap_n + 255) / 256), 256>>>(gap_buf, static_cast<int>(a.gap_n));
    }

    // Waits for ev1 and adds the pair's time to *total.
    gc::PortStatus add_event_time(double* total) {
        float ms = 0;
        gc::PortStatus r;
        if ((r = runtime(cudaEventSynchronize(ev1), "cudaEventSynchronize")).ok &&
            (r = runtime(cudaEventElapsedTime(&ms, ev0, ev1), "cudaEventElapsedTime")).ok)
            *total += ms;
        return r;
    }

    gc::PortStatus gap_launch() {
        if (other) {
            gc::PortStatus r = gc::cu(cuCtxPushCurrent(other), "cuCtxPushCurrent");
            if (!r.ok) return r;
            gap_kernels(a.gap);
            r = runtime(cudaGetLastError(), "gap kernel launch");
            if (r.ok) r = gc::cu(cuCtxSynchronize(), "cuCtxSynchronize");
            CUcontext popped = nullptr;
            if (r.ok) r = gc::cu(cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
            return r;
        }
        // Timed with the measured kernels' event pair (SYNC=1): what a kernel outside every range lasts.
        gc::PortStatus r = a.sync ? runtime(cudaEventRecord(ev0), "cudaEventRecord") : gc::PortStatus::success();
        if (r.ok) gap_kernels(a.gap);
        if (r.ok) r = runtime(cudaGetLastError(), "gap kernel launch");
        if (r.ok && a.sync && (r = runtime(cudaEventRecord(ev1), "cudaEventRecord")).ok) r = add_event_time(&gap_event_ms);
        return r;
    }

    gc::PortStatus launch(long k) {
        gc::PortStatus r = runtime(cudaEventRecord(ev0), "cudaEventRecord");
        if (!r.ok) return r;
        if (k % 2) add_index<<<(a.n + 255) / 256, 256>>>(data, a.n);
        else add_one<<<(a.n + 255) / 256, 256>>>(data, a.n);
        if (!(r = runtime(cudaGetLastError(), "kernel launch")).ok) return r;
        if (!(r = runtime(cudaEventRecord(ev1), "cudaEventRecord")).ok) return r;
        // The pair is read at once, so it waits for the kernel: event times need SYNC=1 to mean anything.
        return a.sync ? add_event_time(&event_ms) : r;
    }
};

// What one round of windows over the kernels gave.
struct Totals {
    double start_ms = 0, collect_ms = 0, ms = 0;
    size_t windows = 0, ranges = 0, full = 0, armed = 0, differ = 0;
    double first[2] = {NAN, NAN}, last_sum = 0;
};

// Window after window of s.window kernels over `total` kernels: Start, the kernels (each after its gap
// kernels, inside its pushed range in user mode), wait, Stop and decode.
gc::PortStatus run_windows(Session& s, gc::HostObject& host, Kernels& kern, long total, Totals* t) {
    gc::PortStatus st;
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < total;) {
        auto t1 = std::chrono::steady_clock::now();
        if (!(st = s.rp.arm()).ok) return st;
        t->start_ms += ms_since(t1);
        const long end = std::min(total, k + static_cast<long>(s.window));
        t->armed += static_cast<size_t>(end - k) * s.slots;
        const long window_first = k;
        for (; k < end; ++k) {
            if (kern.a.gap > 0 && !(st = kern.gap_launch()).ok) return st;
            if (s.rp.user && !(st = push(s.rp.obj, k)).ok) return st;
            if (!(st = kern.launch(k)).ok) return st;
            if (s.rp.user && !(st = pop(s.rp.obj)).ok) return st;
        }
        if (!(st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize")).ok) return st;
        t1 = std::chrono::steady_clock::now();
        size_t r = 0, f = 0;
        std::vector<std::vector<double>> values;
        if (!(st = s.collect(host, &r, &f, &values)).ok) return st;
        t->collect_ms += ms_since(t1);
        // Range i of the window is kernel window_first + i when only the measured kernels are ranges.
        for (size_t i = s.slots - 1; i < values.size(); i += s.slots) {
            const long parity = (window_first + static_cast<long>(i / s.slots)) % 2;
            if (std::isnan(t->first[parity])) t->first[parity] = values[i][0];
            t->differ += values[i][0] != t->first[parity] ? 1 : 0;
            t->last_sum += values[i].back();
        }
        t->ranges += r;
        t->full += f;
        ++t->windows;
    }
    t->ms = ms_since(t0);
    return st;
}

gc::PortStatus reset_activity() {
    gc::PortStatus st;
    if (!(st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize")).ok) return st;
    if (!(st = gc::cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll")).ok) return st;
    gb::kernel_records().clear();
    return st;
}

// One Start and Stop with no kernel, timed on its own: whether the object's first-Start cost can be paid
// ahead of the first kernel.
gc::PortStatus warm_up(Session& s, double* ms) {
    const auto tw = std::chrono::steady_clock::now();
    gc::PortStatus st = s.rp.arm();
    if (st.ok) st = s.rp.stop();
    *ms = ms_since(tw);
    return st;
}

void print_results(const Session& s, const Args& a, const Kernels& kern, const Totals& t) {
    std::printf("rp-ranges %s sync=%d W=%zu gap=%ld: %ld kernels in %.1f ms: %.3f ms per kernel; per window: start %.3f ms, "
                "stop+decode %.3f ms; %zu of %zu ranges with every value (%zu recorded); first metric of add_one / "
                "add_index: %.0f / %.0f, %zu ranges differ; last metric mean %.1f; event mean %.0f ns\n",
                s.rp.user ? "user" : "auto", a.sync ? 1 : 0, s.window, a.gap, a.kernels, t.ms, t.ms / double(a.kernels),
                t.start_ms / double(t.windows), t.collect_ms / double(t.windows), t.full, t.armed, t.ranges, t.first[0],
                t.first[1], t.differ, t.ranges ? t.last_sum / double(t.ranges) : 0.0, kern.event_ms * 1e6 / double(a.kernels));
}

}  // namespace

int main(int argc, char** argv) {
    Session s;
    Args a;
    if (!parse_args(argc, argv, &s, &a)) {
        std::fprintf(stderr, "usage: rp-ranges auto|user SYNC W D METRIC[,METRIC...] [GAP]\n");
        return 2;
    }
    gc::PortStatus st;
    if (a.activity && !(st = gb::enable_kernel_records()).ok) return fail(st);
    gc::HostObject host;
    double avail_ms = 0, warmup_ms = 0;
    if (!(st = open_session(s, host, &avail_ms)).ok) return fail(st);
    Kernels kern(a);
    if (!(st = kern.prepare()).ok) return fail(st);
    if (a.warmup && !(st = warm_up(s, &warmup_ms)).ok) return fail(st);
    // One window untimed first: the object's first Start, module loading.
    Totals first;
    if (!(st = run_windows(s, host, kern, static_cast<long>(s.window), &first)).ok) return fail(st);
    kern.event_ms = kern.gap_event_ms = 0;
    if (a.activity && !(st = reset_activity()).ok) return fail(st);
    Totals t;
    t.first[0] = first.first[0];  // every later range of a kernel is compared with its first
    t.first[1] = first.first[1];
    if (!(st = run_windows(s, host, kern, a.kernels, &t)).ok) return fail(st);
    if (a.gap > 0 && a.sync)
        std::printf("rp-ranges gap kernels (%zu elements): event mean %.0f ns\n", a.gap_n,
                    kern.gap_event_ms * 1e6 / double(a.kernels * a.gap));
    std::printf("rp-ranges set-up: counter availability %.1f ms; warm-up Start+Stop %.1f ms; the object's first "
                "window: start %.1f ms, stop+decode %.1f ms\n", avail_ms, warmup_ms, first.start_ms, first.collect_ms);
    if (a.activity) {
        const auto tf = std::chrono::steady_clock::now();
        if (!(st = gc::cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll")).ok) return fail(st);
        const double flush_ms = ms_since(tf);
        size_t count = 0;
        double mean_ns = 0;
        kernel_record_stats(&count, &mean_ns);
        std::printf("rp-ranges activity: %zu kernel records, mean %.0f ns, flush %.3f ms\n", count, mean_ns, flush_ms);
    }
    print_results(s, a, kern, t);
    s.rp.disable();
    return t.full == t.armed && t.ranges == t.armed ? 0 : 1;
}
