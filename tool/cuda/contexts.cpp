// Agents and contexts: the devices registered once, each context's state made at its first profiled
// launch (or at its creation, so the Range Profiler is on before any module loads) and released with it.
#include "availability_cache.hpp"
#include "backend_state.hpp"
#include "check.hpp"
#include "core.hpp"
#include "dispatch_path.hpp"
#include "options.hpp"

#include <memory>
#include <mutex>
#include <string>

namespace gorocprof::cuda {

using core::Core;

void register_agents() {
    Backend& b = backend();
    std::call_once(b.agents_once, [&b] {
        int count = 0;
        PortStatus st = cu(cuDeviceGetCount(&count), "cuDeviceGetCount");
        if (!st.ok) {
            Core::instance().fatal("agents: " + st.message());
            count = 0;
        }
        b.windows.reset(count);
        for (int i = 0; i < count; ++i) {
            DeviceInfo d;
            st = describe_device(i, &d);
            if (!st.ok) {
                Core::instance().warn("agent " + std::to_string(i) + ": " + st.message());
                d.ordinal = i;
                d.id = static_cast<uint64_t>(i) + 1;
            }
            core::AgentInfo a;
            a.id = d.id;
            a.index = d.ordinal;
            a.name = d.name;
            a.product_name = d.name;
            a.vendor = "NVIDIA";
            a.props = d.props;
            a.strings = d.strings;
            Core::instance().register_agent(a);
            b.devices.push_back(std::move(d));
        }
    });
}

namespace {

// --cache-control all on a device the plan collects cache-sensitive counters on: the flush kernel runs before every pass,
// inside its counter configuration, so the counters skip one range per pass. Without the flush (it could
// not be set up) the context's counters are taken as they come, and the user hears why.
// A plan whose counters are all counts of the program's own work (cache_sensitive) needs no flush: they read
// the same warm or cold. `only`: the one pass this process measures (application replay), else every pass.
void prepare_cache_flush(ContextState& cs, size_t only) {
    if (backend().port.cache_control() != CacheControl::All) return;
    bool sensitive = false;
    const auto& passes = Core::instance().passes_for_agent(cs.ordinal);
    for (size_t i = 0; i < passes.size(); ++i)
        for (const core::PlanCounter& c : passes[i].counters)
            if ((only == RangeCounters::kAllPasses || only == i) && cache_sensitive(c.name)) sensitive = true;
    if (!sensitive) return;
    const PortStatus st = cs.flush.prepare(cs.ordinal);
    if (st.ok) {
        cs.counters->set_kernels_per_pass(2);
        return;
    }
    cs.flush.release();
    backend().port.report_note("--cache-control all: the L2 is not flushed before passes on device " +
                               std::to_string(cs.ordinal) + " (" + st.message() +
                               "); cache-sensitive counters may differ from ncu's");
}

// Where `device`'s counter availability is kept between processes (empty: not kept): named for its UUID and the
// driver's and CUPTI's versions, all of which the image depends on.
std::string availability_file(const DeviceInfo& device) {
    const std::string& dir = options().availability_dir;
    if (dir.empty()) return "";
    std::string uuid;
    for (const auto& [key, value] : device.strings)
        if (key == "uuid") uuid = value;
    int driver = 0;
    uint32_t cupti_version = 0;
    if (uuid.empty() || !cu(cuDriverGetVersion(&driver), "cuDriverGetVersion").ok ||
        !cupti(cuptiGetVersion(&cupti_version), "cuptiGetVersion").ok)
        return "";  // not named for all it depends on: read from the driver
    return availability_cache_path(dir, uuid, driver, cupti_version);
}

}  // namespace

ContextState* known_context_state(CUcontext ctx) {
    Backend& b = backend();
    std::lock_guard<std::mutex> lock(b.mu);
    auto it = b.contexts.find(ctx);
    return it != b.contexts.end() ? it->second.get() : nullptr;
}

// The state of `ctx`, created on its first profiled launch (the calling thread has it current).
ContextState* context_state(CUcontext ctx, PortStatus* st) {
    Backend& b = backend();
    if (ContextState* known = known_context_state(ctx)) return known;
    auto cs = std::make_unique<ContextState>();
    cs->ctx = ctx;
    CUdevice dev = 0;
    if (!(*st = cu(cuCtxGetDevice(&dev), "cuCtxGetDevice")).ok) return nullptr;
    cs->ordinal = static_cast<int>(dev);
    cs->agent_id = static_cast<uint64_t>(dev) + 1;
    if (!(*st = cu(cuStreamCreate(&cs->copy_stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")).ok) return nullptr;
    if (!(*st = cu(cuEventCreate(&cs->ev_start, CU_EVENT_DEFAULT), "cuEventCreate")).ok) return nullptr;
    if (!(*st = cu(cuEventCreate(&cs->ev_end, CU_EVENT_DEFAULT), "cuEventCreate")).ok) return nullptr;
    // Only ever queried (timeout guard): no timing.
    if (!(*st = cu(cuEventCreate(&cs->ev_unfinished, CU_EVENT_DISABLE_TIMING), "cuEventCreate")).ok) return nullptr;
    if (!(*st = cu(cuEventCreate(&cs->ev_comm, CU_EVENT_DISABLE_TIMING), "cuEventCreate")).ok) return nullptr;
    std::string chip;
    if (cs->ordinal < static_cast<int>(b.devices.size())) chip = b.devices[cs->ordinal].chip;
    cs->counters = std::make_unique<RangeCounters>(ctx, chip);
    if (cs->ordinal < static_cast<int>(b.devices.size()))
        cs->counters->use_availability_cache(availability_file(b.devices[cs->ordinal]));
    // Under application replay this process runs one pass of the plan: its group alone decides the
    // configuration (a run of groups would only make every Start dearer: a Start's cost grows with what
    // the configuration holds; docs/perf.md, "Measurements behind tool/cuda's choices").
    const core::Config& config = Core::instance().config();
    const bool one_pass = config.replay_mode == core::ReplayMode::Application && config.application_pass >= 0;
    const size_t only = one_pass ? static_cast<size_t>(config.application_pass) : RangeCounters::kAllPasses;
    cs->counters->plan_passes(Core::instance().passes_for_agent(cs->ordinal), only);
    prepare_cache_flush(*cs, only);
    std::lock_guard<std::mutex> lock(b.mu);
    auto& slot = b.contexts[ctx];
    if (!slot) slot = std::move(cs);
    for (const auto& [other, state] : b.contexts)
        if (state->ordinal != slot->ordinal) b.several_devices = true;
    return slot.get();
}

// Turns the Range Profiler on as soon as the context exists when the plan collects counters on its
// device, so that it is on before the application loads any module.
void on_context_created(CUcontext ctx) {
    if (!options().eager_profiler) return;
    Guard g;
    PortStatus st = cu(cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
    if (!st.ok) {
        Core::instance().warn("context setup: " + st.message() + "; its Range Profiler starts at its first launch");
        return;
    }
    register_agents();
    CUdevice dev = 0;
    bool wanted = false;
    if ((st = cu(cuCtxGetDevice(&dev), "cuCtxGetDevice")).ok)
        for (const auto& pass : Core::instance().passes_for_agent(static_cast<int>(dev)))
            if (!pass.counters.empty()) wanted = true;
    if (wanted) {
        ContextState* cs = context_state(ctx, &st);
        if (!cs) Core::instance().warn("context setup: " + st.message());
        else if (cs->counters && backend().port.counters_usable() && !(st = cs->counters->enable_now()).ok)
            backend().port.report_counter_problem(st);
        if (cs && cs->counters) backend().port.report_availability_problem(*cs->counters);
    }
    CUcontext popped = nullptr;
    if (!(st = cu(cuCtxPopCurrent(&popped), "cuCtxPopCurrent")).ok) Core::instance().warn("context setup: " + st.message());
}

void on_context_destroy(CUcontext ctx) {
    Backend& b = backend();
    std::unique_ptr<ContextState> cs;
    {
        std::lock_guard<std::mutex> lock(b.mu);
        auto it = b.contexts.find(ctx);
        if (it != b.contexts.end()) {
            cs = std::move(it->second);
            b.contexts.erase(it);
        }
        b.kernels.clear();  // function handles of a destroyed context may be reused
        b.modules_resolved.clear();
    }
    b.tracker.remove_context(ctx);
    if (!cs) return;
    // Its lasting window is decoded first; a thread closing windows of this device holds the lock until
    // it is done with this state (close_lasting_windows_of).
    std::unique_lock<std::mutex> window = b.windows.hold(cs->ordinal);
    Guard g;
    b.port.close_lasting(*cs);
    forget_graph_context(ctx);
    // Everything is released whatever fails; the first failure is told (the context goes anyway).
    PortStatus st = cs->flush.release();
    if (cs->counters) cs->counters->disable();
    if (cs->device_backup) keep_first(&st, cu(cuMemFree(cs->device_backup), "cuMemFree"));
    keep_first(&st, cs->reach.release());
    if (cs->host_backup) keep_first(&st, cu(cuMemFreeHost(cs->host_backup), "cuMemFreeHost"));
    if (cs->ev_start) keep_first(&st, cu(cuEventDestroy(cs->ev_start), "cuEventDestroy"));
    if (cs->ev_end) keep_first(&st, cu(cuEventDestroy(cs->ev_end), "cuEventDestroy"));
    if (cs->ev_unfinished) keep_first(&st, cu(cuEventDestroy(cs->ev_unfinished), "cuEventDestroy"));
    if (cs->ev_comm) keep_first(&st, cu(cuEventDestroy(cs->ev_comm), "cuEventDestroy"));
    if (cs->copy_stream) keep_first(&st, cu(cuStreamDestroy(cs->copy_stream), "cuStreamDestroy"));
    if (!st.ok) Core::instance().warn("releasing a destroyed context's profiling state: " + st.message());
}

}  // namespace gorocprof::cuda
