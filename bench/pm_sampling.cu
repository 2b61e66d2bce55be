// Whether CUPTI's PM sampling can stand in for the Range Profiler's one range per kernel (issue 21): hardware
// counters sampled at a fixed interval into a buffer, no range at all, while the kernels run one at a time as the
// tool's passes do. Three modes:
//   list [SUBSTRING...]   the PM sampling metrics of device 0 (all, or those whose name holds a substring);
//   support METRIC...     per metric: whether PM sampling and the Range Profiler can collect it, and in how many
//                         passes ("pm-sampling support NAME: pm passes=P | pm no (reason); rp passes=P | rp no (...)");
//   run INTERVALS SPECS   INTERVALS: sampling intervals in ns, comma-separated. SPECS: comma-separated PMNAME[=REF],
//                         REF being @warps (blocks x ceil(threads/32) of the kernel, known without counters) or a Range
//                         Profiler metric, taken per kernel by auto ranges over the same kernels in this process.
// run times the same kernels three ways, each kernel waited for (cudaStreamSynchronize): unprofiled, under one PM
// sampling session per interval (decoding every PM_SAMPLING_DECODE_EVERY kernels, default 64, as a tool would),
// and under the Range Profiler (auto ranges, windows of 64, the REF metrics). CUPTI activity kernel records give
// each kernel's GPU start and end; a sample goes to the kernel its [start, end] overlaps (by time). Independently, runs
// of consecutive samples with a non-zero value, split by samples that are all zero, are numbered in order (by gaps).
// Per metric with a REF it prints how many kernels' sums equal REF under either attribution and how far off the rest
// are. Kernels: PM_SAMPLING_KERNELS (default 640) saxpy launches of varying grids and block sizes, every 16th with a
// 16000-step FMA loop per thread (far longer than the others). PM_SAMPLING_DUMP=FILE writes one CSV row per case and
// kernel.
// Also read: PM_SAMPLING_MAX_SAMPLES (the counter data image's samples, default 200000), PM_SAMPLING_HW_BUFFER_MB
// (default 512), PM_SAMPLING_RP_WINDOW (default 64), PM_SAMPLING_TRACE=1 (support mode names each step on stderr),
// PM_SAMPLING_NO_AVAILABILITY=1 (PM host objects on no availability image).
// Exits 0 when every interval ran and every REF matched for every kernel, 1 otherwise, 2 on a usage error.
// CMake target pm-sampling of tool/cuda/tests (built only when asked for; scripts/pm-sampling.sh).
#include "bench_profiler.cuh"
#include "bench_status.cuh"
#include "pm_attribution.hpp"
#include "device_info.hpp"
#include "metric_host.hpp"

#include <cuda_runtime.h>
#include <cupti_pmsampling.h>

#include <execinfo.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace gc = gorocprof::cuda;
namespace gb = gorocprof::cuda::bench;

using gorocprof::cuda::bench::ms_since;
using gorocprof::cuda::bench::runtime;

using gb::Attribution;
using gb::by_gaps;
using gb::by_time;
using gb::Check;
using gb::compare;
using gb::PmCase;
using gb::Sample;

namespace {

__global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void saxpy_long(float a, const float* x, float* y, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = y[i];
    const float xi = x[i];
    for (int s = 0; s < steps; ++s) v = fmaf(a, v, xi);
    y[i] = v;
}

struct Launch {
    unsigned blocks = 0, threads = 0;
    int steps = 0;  // 0: saxpy, else saxpy_long
    double warps() const { return double(blocks) * double((threads + 31) / 32); }
};

// Deterministic and varied, so a sample given to the wrong neighbour shows as a wrong warp count.
std::vector<Launch> plan(long kernels) {
    static const unsigned kThreads[] = {256, 128, 96, 64, 160};
    std::vector<Launch> out;
    for (long k = 0; k < kernels; ++k)
        out.push_back({16 + static_cast<unsigned>((k * 37) % 497), kThreads[k % 5], k % 16 == 15 ? 16000 : 0});
    return out;
}

int fail(const gc::PortStatus& st) { return gorocprof::cuda::bench::fail("pm-sampling", st); }

std::vector<std::string> split(const std::string& list) {
    std::vector<std::string> out;
    for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) out.push_back(list.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

long env_long(const char* name, long fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

gc::PortStatus flush_records() {
    gc::PortStatus st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (st.ok) st = gc::cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    return st;
}

struct Buffers {
    float* x = nullptr;
    float* y = nullptr;
};

gc::PortStatus launch(const Launch& l, const Buffers& b) {
    const int n = static_cast<int>(l.blocks * l.threads);
    if (l.steps) saxpy_long<<<l.blocks, l.threads>>>(1.0001f, b.x, b.y, n, l.steps);
    else saxpy<<<l.blocks, l.threads>>>(2.0f, b.x, b.y, n);
    gc::PortStatus st = runtime(cudaGetLastError(), "kernel launch");
    if (st.ok) st = runtime(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
    return st;
}

// A host object of PM sampling's type on device 0's PM sampling availability image. The object keeps a pointer
// to the image, not a copy (HostObject::init), so the two live together, the image destroyed last. PM_SAMPLING_NO_AVAILABILITY=1 builds the object on no image at all.
struct PmHost {
    std::vector<uint8_t> availability;
    gc::HostObject host;

    gc::PortStatus init(const std::string& chip) {
        if (env_long("PM_SAMPLING_NO_AVAILABILITY", 0) == 1) return host.init(chip, {}, CUPTI_PROFILER_TYPE_PM_SAMPLING);
        CUpti_PmSampling_GetCounterAvailability_Params p{CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
        p.deviceIndex = 0;
        gc::PortStatus st = gc::cupti(cuptiPmSamplingGetCounterAvailability(&p), "cuptiPmSamplingGetCounterAvailability");
        if (!st.ok) return st;
        availability.assign(p.counterAvailabilityImageSize, 0);
        p.pCounterAvailabilityImage = availability.data();
        st = gc::cupti(cuptiPmSamplingGetCounterAvailability(&p), "cuptiPmSamplingGetCounterAvailability");
        return st.ok ? host.init(chip, availability, CUPTI_PROFILER_TYPE_PM_SAMPLING) : st;
    }
};

struct PmSession {
    CUpti_PmSampling_Object* obj = nullptr;
    std::vector<uint8_t> data;
    size_t evaluated = 0;

    // Decodes what the hardware buffer holds and evaluates the samples completed since the last call.
    gc::PortStatus drain(gc::HostObject& host, std::vector<const char*>& names, std::vector<Sample>* out, bool* full) {
        CUpti_PmSampling_DecodeData_Params d{CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
        d.pPmSamplingObject = obj;
        d.pCounterDataImage = data.data();
        d.counterDataImageSize = data.size();
        gc::PortStatus st = gc::cupti(cuptiPmSamplingDecodeData(&d), "cuptiPmSamplingDecodeData");
        if (!st.ok) return st;
        if (d.overflow) return gc::PortStatus::failure("cuptiPmSamplingDecodeData", "the hardware buffer overflowed");
        *full = d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
        CUpti_PmSampling_GetCounterDataInfo_Params info{CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
        info.pCounterDataImage = data.data();
        info.counterDataImageSize = data.size();
        if (!(st = gc::cupti(cuptiPmSamplingGetCounterDataInfo(&info), "cuptiPmSamplingGetCounterDataInfo")).ok) return st;
        for (; evaluated < info.numCompletedSamples; ++evaluated) {
            CUpti_PmSampling_CounterData_GetSampleInfo_Params si{CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
            si.pPmSamplingObject = obj;
            si.pCounterDataImage = data.data();
            si.counterDataImageSize = data.size();
            si.sampleIndex = evaluated;
            if (!(st = gc::cupti(cuptiPmSamplingCounterDataGetSampleInfo(&si), "cuptiPmSamplingCounterDataGetSampleInfo")).ok)
                return st;
            Sample s{si.startTimestamp, si.endTimestamp, std::vector<double>(names.size())};
            if (!(st = gb::evaluate(host, data, evaluated, names, &s.values)).ok) return st;
            out->push_back(std::move(s));
        }
        return st;
    }
};

// The records, sorted by start, that match the launches' grids in order: what is left when CUPTI delivers records
// besides the kernels' own.
std::vector<gb::KernelRecord> match_records(std::vector<gb::KernelRecord> all, const std::vector<Launch>& kernels) {
    std::sort(all.begin(), all.end(), [](const gb::KernelRecord& a, const gb::KernelRecord& r) { return a.start < r.start; });
    std::vector<gb::KernelRecord> out;
    for (const gb::KernelRecord& r : all)
        if (out.size() < kernels.size() && r.grid == kernels[out.size()].blocks && r.block == kernels[out.size()].threads)
            out.push_back(r);
    return out;
}

// Start, the kernels (a decode every `every`), Stop, decode to the end. A rejected configuration is a failure
// whose call is cuptiPmSamplingSetConfig, which the caller reports and goes on.
gc::PortStatus pm_case(const std::string& chip, std::vector<const char*>& names, const std::vector<Launch>& kernels,
                       const Buffers& b, PmCase* c) {
    PmHost pm;
    gc::HostObject& host = pm.host;
    std::vector<uint8_t> config;
    size_t passes = 0;
    gc::PortStatus st = pm.init(chip);
    if (!st.ok || !(st = gc::build_config(host, names, &config, &passes)).ok) return st;
    if (passes != 1) return gc::PortStatus::failure("build_config", std::to_string(passes) + " passes, PM sampling takes one");
    PmSession s;
    auto t = std::chrono::steady_clock::now();
    CUpti_PmSampling_Enable_Params en{CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
    en.deviceIndex = 0;
    if (!(st = gc::cupti(cuptiPmSamplingEnable(&en), "cuptiPmSamplingEnable")).ok) return st;
    s.obj = en.pPmSamplingObject;
    auto disable = [&]() {
        CUpti_PmSampling_Disable_Params off{CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
        off.pPmSamplingObject = s.obj;
        return gc::cupti(cuptiPmSamplingDisable(&off), "cuptiPmSamplingDisable");
    };
    CUpti_PmSampling_GetCounterDataSize_Params size{CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pPmSamplingObject = s.obj;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxSamples = static_cast<uint32_t>(env_long("PM_SAMPLING_MAX_SAMPLES", 200000));
    if (!(st = gc::cupti(cuptiPmSamplingGetCounterDataSize(&size), "cuptiPmSamplingGetCounterDataSize")).ok) return disable(), st;
    s.data.assign(size.counterDataSize, 0);
    CUpti_PmSampling_CounterDataImage_Initialize_Params init{CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pPmSamplingObject = s.obj;
    init.counterDataSize = s.data.size();
    init.pCounterData = s.data.data();
    if (!(st = gc::cupti(cuptiPmSamplingCounterDataImageInitialize(&init), "cuptiPmSamplingCounterDataImageInitialize")).ok)
        return disable(), st;
    CUpti_PmSampling_SetConfig_Params cfg{CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    cfg.pPmSamplingObject = s.obj;
    cfg.configSize = config.size();
    cfg.pConfig = config.data();
    cfg.hardwareBufferSize = static_cast<size_t>(env_long("PM_SAMPLING_HW_BUFFER_MB", 512)) << 20;
    cfg.samplingInterval = c->interval;
    cfg.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    if (!(st = gc::cupti(cuptiPmSamplingSetConfig(&cfg), "cuptiPmSamplingSetConfig")).ok) return disable(), st;
    c->enable_ms = ms_since(t);
    if (!(st = flush_records()).ok) return disable(), st;
    gb::kernel_records().clear();
    if (!(st = gc::cupti(cuptiGetTimestamp(&c->host_start_ts), "cuptiGetTimestamp")).ok) return disable(), st;
    t = std::chrono::steady_clock::now();
    CUpti_PmSampling_Start_Params start{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    start.pPmSamplingObject = s.obj;
    if (!(st = gc::cupti(cuptiPmSamplingStart(&start), "cuptiPmSamplingStart")).ok) return disable(), st;
    c->start_ms = ms_since(t);
    t = std::chrono::steady_clock::now();
    const long every = std::max(1L, env_long("PM_SAMPLING_DECODE_EVERY", 64));
    bool full = false;
    for (size_t k = 0; k < kernels.size() && st.ok; ++k) {
        st = launch(kernels[k], b);
        if (st.ok && (k + 1) % static_cast<size_t>(every) == 0) st = s.drain(host, names, &c->samples, &full);
        c->full = c->full || full;
    }
    c->loop_ms = ms_since(t);
    t = std::chrono::steady_clock::now();
    CUpti_PmSampling_Stop_Params stop{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    stop.pPmSamplingObject = s.obj;
    gc::PortStatus stopped = gc::cupti(cuptiPmSamplingStop(&stop), "cuptiPmSamplingStop");
    if (st.ok) st = stopped;
    // Stop leaves the last records in the hardware buffer; a decode that finds nothing new ends the drain.
    for (size_t before = SIZE_MAX; st.ok && before != c->samples.size() && !c->full;) {
        before = c->samples.size();
        st = s.drain(host, names, &c->samples, &full);
        c->full = c->full || full;
    }
    c->stop_ms = ms_since(t);
    gc::PortStatus off = disable();
    if (st.ok) st = off;
    if (st.ok) st = flush_records();
    c->raw_records = gb::kernel_records().size();
    c->records = match_records(gb::kernel_records(), kernels);
    return st;
}

// Range Profiler auto ranges over the kernels, `window` a window: per kernel the metrics' values and the loop's
// time. One Start and Stop with no kernel first: the object's first Start, far dearer than the later ones
// (docs/perf.md), is paid there, outside the per-kernel time.
gc::PortStatus rp_reference(CUcontext ctx, const std::string& chip, std::vector<const char*>& names,
                            const std::vector<Launch>& kernels, const Buffers& b, size_t window,
                            std::vector<std::vector<double>>* values, double* first_ms, double* loop_ms) {
    std::vector<uint8_t> avail;
    gc::HostObject host;
    gb::RangeWindows rp;
    rp.ranges = window;
    size_t passes = 0;
    gc::PortStatus st = gc::counter_availability(ctx, &avail);
    if (!st.ok || !(st = host.init(chip, avail)).ok || !(st = gc::build_config(host, names, &rp.config, &passes)).ok) return st;
    if (passes != 1) return gc::PortStatus::failure("build_config", std::to_string(passes) + " Range Profiler passes");
    if (!(st = rp.enable(ctx, names)).ok) return st;
    auto t = std::chrono::steady_clock::now();
    if ((st = rp.arm()).ok) st = rp.stop();
    *first_ms = ms_since(t);
    t = std::chrono::steady_clock::now();
    for (size_t k = 0; k < kernels.size() && st.ok;) {
        const size_t end = std::min(kernels.size(), k + window);
        if (!(st = rp.arm()).ok) break;
        for (; k < end && st.ok; ++k) st = launch(kernels[k], b);
        if (st.ok) st = rp.collect(host, names, values);
    }
    *loop_ms = ms_since(t);
    gc::PortStatus disabled = rp.disable();
    if (st.ok) st = disabled;
    if (st.ok && values->size() != kernels.size())
        st = gc::PortStatus::failure("rp_reference", std::to_string(values->size()) + " ranges for " +
                                                         std::to_string(kernels.size()) + " kernels");
    return st;
}

// Without substrings every base metric with its type; with them, the matching bases' full names (base.submetric).
// Only the bases asked for are expanded: the whole catalog of sub-metrics takes long to walk.
int list_mode(const std::string& chip, int argc, char** argv) {
    PmHost pm;
    gc::HostObject& host = pm.host;
    gc::PortStatus st = pm.init(chip);
    if (!st.ok) return fail(st);
    static const char* kTypes[] = {"counter", "ratio", "throughput"};
    std::vector<std::pair<int, std::string>> bases;
    for (int type = 0; type < 3; ++type) {
        CUpti_Profiler_Host_GetBaseMetrics_Params base{CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
        base.pHostObject = host.get();
        base.metricType = static_cast<CUpti_MetricType>(type);
        if (!(st = gc::cupti(cuptiProfilerHostGetBaseMetrics(&base), "cuptiProfilerHostGetBaseMetrics")).ok) return fail(st);
        for (size_t i = 0; i < base.numMetrics; ++i) bases.emplace_back(type, base.ppMetricNames[i]);
    }
    std::printf("pm-sampling list: %zu PM sampling base metrics on %s\n", bases.size(), chip.c_str());
    for (const auto& [type, name] : bases) {
        bool hit = false;
        for (int i = 2; i < argc && !hit; ++i) hit = name.find(argv[i]) != std::string::npos;
        if (argc <= 2) std::printf("%s\t%s\n", name.c_str(), kTypes[type]);
        if (!hit) continue;
        CUpti_Profiler_Host_GetSubMetrics_Params sub{CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE};
        sub.pHostObject = host.get();
        sub.metricType = static_cast<CUpti_MetricType>(type);
        sub.pMetricName = name.c_str();
        if (!(st = gc::cupti(cuptiProfilerHostGetSubMetrics(&sub), "cuptiProfilerHostGetSubMetrics")).ok) return fail(st);
        for (size_t j = 0; j < sub.numOfSubmetrics; ++j) {
            const char* tail = sub.ppSubMetrics[j] ? sub.ppSubMetrics[j] : "";
            std::printf("%s%s%s\t%s\n", name.c_str(), tail[0] == '.' ? "" : ".", tail, kTypes[type]);
        }
    }
    return 0;
}

int support_mode(CUcontext ctx, const std::string& chip, int argc, char** argv) {
    std::vector<uint8_t> avail, config;
    gc::PortStatus st = gc::counter_availability(ctx, &avail);
    if (!st.ok) return fail(st);
    const bool trace = env_long("PM_SAMPLING_TRACE", 0) == 1;
    for (int i = 2; i < argc; ++i) {
        std::vector<const char*> one{argv[i]};
        size_t passes = 0;
        PmHost pm;
        gc::HostObject rp;
        if (trace) std::fprintf(stderr, "pm-sampling trace %s: PM host object\n", argv[i]);
        st = pm.init(chip);
        if (trace) std::fprintf(stderr, "pm-sampling trace %s: PM configuration\n", argv[i]);
        if (st.ok) st = gc::build_config(pm.host, one, &config, &passes);
        std::string line = st.ok ? "pm passes=" + std::to_string(passes) : "pm no (" + st.message() + ")";
        if (trace) std::fprintf(stderr, "pm-sampling trace %s: Range Profiler host object and configuration\n", argv[i]);
        st = rp.init(chip, avail);
        if (st.ok) st = gc::build_config(rp, one, &config, &passes);
        line += st.ok ? "; rp passes=" + std::to_string(passes) : "; rp no (" + st.message() + ")";
        std::printf("pm-sampling support %s: %s\n", argv[i], line.c_str());
    }
    return 0;
}

// The kernels unprofiled, once to load the module and once timed: us per kernel.
gc::PortStatus unprofiled(const std::vector<Launch>& kernels, const Buffers& b, double* us) {
    gc::PortStatus st;
    std::chrono::steady_clock::time_point t;
    for (int timed = 0; timed < 2 && st.ok; ++timed) {
        t = std::chrono::steady_clock::now();
        for (size_t k = 0; k < kernels.size() && st.ok; ++k) st = launch(kernels[k], b);
    }
    *us = ms_since(t) * 1e3 / double(kernels.size());
    return st;
}

void print_case(const PmCase& c, size_t n, double base_us) {
    double mean = 0, lo = INFINITY, hi = 0, gap = 0;
    for (size_t i = 0; i < c.samples.size(); ++i) {
        const double len = double(c.samples[i].end - c.samples[i].start);
        mean += len / double(c.samples.size());
        lo = std::min(lo, len);
        hi = std::max(hi, len);
        if (i) gap = std::max(gap, double(c.samples[i].start) - double(c.samples[i - 1].end));
    }
    const double ts0 = double(c.host_start_ts);
    std::printf("pm-sampling interval=%llu ns: %zu kernels, %.2f us per kernel (unprofiled %.2f); enable+config %.1f ms, "
                "start %.2f ms, stop+drain %.2f ms; %zu samples, length mean %.0f min %.0f max %.0f ns, largest gap "
                "between samples %.0f ns%s; %zu kernel records (%zu matching the launches); all in %.2f us per kernel; first sample start %.0f ns and first kernel start %.0f "
                "ns after the host's timestamp at Start\n",
                static_cast<unsigned long long>(c.interval), n, c.loop_ms * 1e3 / double(n), base_us, c.enable_ms,
                c.start_ms, c.stop_ms, c.samples.size(), mean, c.samples.empty() ? 0 : lo, hi, gap,
                c.full ? " (COUNTER DATA FULL)" : "", c.raw_records, c.records.size(),
                (c.start_ms + c.loop_ms + c.stop_ms) * 1e3 / double(n),
                c.samples.empty() ? 0.0 : double(c.samples[0].start) - ts0,
                c.records.empty() ? 0.0 : double(c.records[0].start) - ts0);
}

// Per metric with a reference: both attributions against it. True when every kernel matched by time or by gaps.
bool check_case(const PmCase& c, const std::vector<std::string>& pm_names, const std::vector<std::vector<double>>& refs,
                const std::vector<Launch>& kernels, FILE* dump) {
    const size_t n = kernels.size(), m = pm_names.size();
    const Attribution at[2] = {by_time(c, n, m), by_gaps(c, n, m)};
    const char* how[2] = {"by time", "by gaps"};
    bool all = true;
    for (size_t i = 0; i < m; ++i) {
        double total = 0, ref_total = 0;
        for (const Sample& s : c.samples) total += s.values[i];
        for (double r : refs[i]) ref_total += r;
        std::string line;
        bool exact = refs[i].empty();
        for (int a = 0; a < 2; ++a) {
            if (!at[a].usable) {
                line += std::string("; ") + how[a] + ": unusable (" + at[a].note + ")";
                continue;
            }
            if (refs[i].empty()) continue;
            const Check ck = compare(at[a], i, refs[i]);
            exact = exact || ck.equal == n;
            char buf[320];
            std::snprintf(buf, sizeof buf, "; %s: %zu of %zu equal, largest miss %.0f (%.1f%%)", how[a], ck.equal, n,
                          ck.max_abs, ck.max_rel * 100);
            line += buf;
            if (ck.first_off >= 0) {
                const size_t k = static_cast<size_t>(ck.first_off);
                std::snprintf(buf, sizeof buf, ", first miss kernel %zu (%u x %u, steps %d): %.0f against %.0f", k,
                              kernels[k].blocks, kernels[k].threads, kernels[k].steps, at[a].sums[k][i], refs[i][k]);
                line += buf;
            }
        }
        all = all && exact;
        std::printf("pm-sampling interval=%llu ns %s: sum over samples %.0f, reference %.0f; idle %.0f, shared samples "
                    "%zu%s\n", static_cast<unsigned long long>(c.interval), pm_names[i].c_str(), total, ref_total,
                    i == 0 ? at[0].idle : 0.0, at[0].shared, line.c_str());
    }
    for (size_t k = 0; dump && k < n; ++k) {
        std::fprintf(dump, "%llu,%zu,%u,%u,%d,%llu,%zu", static_cast<unsigned long long>(c.interval), k, kernels[k].blocks,
                     kernels[k].threads, kernels[k].steps,
                     c.records.size() == n ? static_cast<unsigned long long>(c.records[k].end - c.records[k].start) : 0ULL,
                     at[0].owned[k]);
        for (size_t i = 0; i < m; ++i)
            std::fprintf(dump, ",%.0f,%.0f,%.0f", at[0].sums[k][i], at[1].sums[k][i], refs[i].empty() ? NAN : refs[i][k]);
        std::fprintf(dump, "\n");
    }
    return all;
}

int run_mode(CUcontext ctx, const std::string& chip, const char* intervals_arg, const char* specs_arg) {
    std::vector<uint64_t> intervals;
    for (const std::string& i : split(intervals_arg)) intervals.push_back(std::strtoull(i.c_str(), nullptr, 10));
    std::vector<std::string> pm_names, ref_names, rp_names;
    for (const std::string& spec : split(specs_arg)) {
        const size_t eq = spec.find('=');
        pm_names.push_back(spec.substr(0, eq));
        ref_names.push_back(eq == std::string::npos ? "" : spec.substr(eq + 1));
        if (!ref_names.back().empty() && ref_names.back() != "@warps" &&
            std::find(rp_names.begin(), rp_names.end(), ref_names.back()) == rp_names.end())
            rp_names.push_back(ref_names.back());
    }
    const long n = env_long("PM_SAMPLING_KERNELS", 640);
    if (intervals.empty() || pm_names.empty() || n < 1) return 2;
    const std::vector<Launch> kernels = plan(n);
    Buffers b;
    const size_t elems = size_t(512) * 256;
    gc::PortStatus st = runtime(cudaMalloc(&b.x, elems * sizeof(float)), "cudaMalloc");
    if (st.ok) st = runtime(cudaMalloc(&b.y, elems * sizeof(float)), "cudaMalloc");
    if (st.ok) st = runtime(cudaMemset(b.x, 0, elems * sizeof(float)), "cudaMemset");
    if (st.ok) st = runtime(cudaMemset(b.y, 0, elems * sizeof(float)), "cudaMemset");
    double off_us = 0, base_us = 0;
    if (!st.ok || !(st = unprofiled(kernels, b, &off_us)).ok) return fail(st);
    if (!(st = gb::enable_kernel_records()).ok || !(st = unprofiled(kernels, b, &base_us)).ok)
        return fail(st);
    std::printf("pm-sampling unprofiled: %ld kernels, %.2f us per kernel without activity records, %.2f with them\n", n,
                off_us, base_us);
    std::vector<const char*> names;
    for (const std::string& s : pm_names) names.push_back(s.c_str());
    std::vector<PmCase> cases;
    bool ok = true;
    for (uint64_t interval : intervals) {
        PmCase c;
        c.interval = interval;
        st = pm_case(chip, names, kernels, b, &c);
        if (!st.ok) {
            std::printf("pm-sampling interval=%llu ns: failed: %s\n", static_cast<unsigned long long>(interval), st.message().c_str());
            ok = false;
            continue;
        }
        print_case(c, kernels.size(), base_us);
        cases.push_back(std::move(c));
    }
    std::vector<std::vector<double>> refs(pm_names.size()), rp_values;
    if (!rp_names.empty()) {
        std::vector<const char*> rp;
        for (const std::string& s : rp_names) rp.push_back(s.c_str());
        const size_t window = static_cast<size_t>(std::max(1L, env_long("PM_SAMPLING_RP_WINDOW", 64)));
        double first_ms = 0, loop_ms = 0;
        st = rp_reference(ctx, chip, rp, kernels, b, window, &rp_values, &first_ms, &loop_ms);
        if (!st.ok) {
            std::printf("pm-sampling rp: failed: %s\n", st.message().c_str());
            ok = false;
            rp_values.clear();
        } else {
            std::printf("pm-sampling rp auto W=%zu (%s): %.2f us per kernel (unprofiled %.2f); first Start+Stop %.1f ms, not "
                        "in the per-kernel time\n", window, specs_arg, loop_ms * 1e3 / double(n), base_us, first_ms);
        }
    }
    for (size_t i = 0; i < pm_names.size(); ++i) {
        const auto at = std::find(rp_names.begin(), rp_names.end(), ref_names[i]);
        for (size_t k = 0; k < kernels.size(); ++k) {
            if (ref_names[i] == "@warps") refs[i].push_back(kernels[k].warps());
            else if (at != rp_names.end() && !rp_values.empty()) refs[i].push_back(rp_values[k][static_cast<size_t>(at - rp_names.begin())]);
        }
    }
    const char* dump_path = std::getenv("PM_SAMPLING_DUMP");
    FILE* dump = dump_path ? std::fopen(dump_path, "w") : nullptr;
    if (dump_path && !dump) return fail(gc::PortStatus::failure("fopen", std::string(dump_path) + ": " + std::strerror(errno)));
    if (dump) {
        std::fprintf(dump, "interval_ns,kernel,blocks,threads,steps,kernel_ns,samples_by_time");
        for (const std::string& s : pm_names) std::fprintf(dump, ",%s by time,%s by gaps,%s reference", s.c_str(), s.c_str(), s.c_str());
        std::fprintf(dump, "\n");
    }
    for (const PmCase& c : cases) ok = check_case(c, pm_names, refs, kernels, dump) && ok;
    if (dump) std::fclose(dump);
    cudaFree(b.x);
    cudaFree(b.y);
    return ok ? 0 : 1;
}

void on_crash(int sig) {
    void* frames[64];
    const int n = backtrace(frames, 64);
    static const char kSays[] = "pm-sampling: crashed; frames:\n";
    if (write(2, kSays, sizeof kSays - 1) < 0) _exit(128 + sig);
    backtrace_symbols_fd(frames, n, 2);
    _exit(128 + sig);
}

}  // namespace

int main(int argc, char** argv) {
    // Each line reaches a redirected stdout as it is printed, and a crash inside CUPTI names its frames.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::signal(SIGSEGV, on_crash);
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "list" && mode != "support" && !(mode == "run" && argc == 4)) {
        std::fprintf(stderr, "usage: pm-sampling list [SUBSTRING...] | support METRIC... | run INTERVAL_NS[,...] PMNAME[=REF][,...]\n");
        return 2;
    }
    gc::PortStatus st = runtime(cudaFree(nullptr), "cudaFree(0)");
    CUcontext ctx = nullptr;
    std::string chip;
    if (!st.ok || !(st = gc::cu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent")).ok || !(st = gc::ensure_profiler_initialized()).ok ||
        !(st = gc::chip_name(0, &chip)).ok)
        return fail(st);
    if (mode == "list") return list_mode(chip, argc, argv);
    if (mode == "support") return support_mode(ctx, chip, argc, argv);
    return run_mode(ctx, chip, argv[2], argv[3]);
}
