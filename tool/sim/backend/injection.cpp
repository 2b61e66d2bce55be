// The sim backend's entry point and launch hook. The runtime dlopen()s this library
// (GOROCPROF_SIM_INJECTION_PATH) and calls gorocprof_sim_initialize_injection() once.
//
// Per launch, on the submitting thread:
//   reserve a dispatch id -> core.select() once -> not selected: back to the runtime, untouched;
//   kernel replay on a planned agent: ReplayService::execute over a SimPort (synchronous window);
//   otherwise (application/no replay, or kernel trace only): the runtime runs it asynchronously and
//   the pass is recorded from its completion callback.
#include "core.hpp"
#include "kernels.hpp"
#include "replay_service.hpp"
#include "sim_port.hpp"
#include "trace.hpp"
#include "tracing.hpp"

#include <gorocprof/sim_tool.h>

#include <cstdint>
#include <exception>
#include <string>

namespace gorocprof::sim {
namespace {

KernelTable* g_kernels = nullptr;  // set once before the hook is installed; never freed

core::DispatchFacts facts_of(const simLaunch* l, uint64_t dispatch_id, uint64_t kernel_id) {
    core::DispatchFacts f;
    f.info.size = sizeof f.info;
    f.info.agent_id.handle = static_cast<uint64_t>(l->agent + 1);
    f.info.queue_id.handle = l->stream_id;
    f.info.kernel_id = kernel_id;
    f.info.dispatch_id = dispatch_id;
    f.info.private_segment_size = l->attrs.scratch_bytes;
    f.info.group_segment_size = l->group_segment_size;
    f.info.workgroup_size = {l->block.x, l->block.y, l->block.z};
    f.info.grid_size = {l->grid_size.x, l->grid_size.y, l->grid_size.z};
    f.correlation_id = dispatch_correlation(l, dispatch_id);
    f.stream_id = l->stream_id;
    f.thread_id = l->thread_id;
    f.agent_index = l->agent;
    return f;
}

const core::KernelRef& kernel_of(const simLaunch* l) {
    return g_kernels->get(l->kernel_serial, l->kernel_name, l->attrs, l->agent);
}

// The completion callback's user value: the dispatch id and, under rotation, 1 + the pass the
// launch thread's select() chose (the callback runs on the stream's worker, where that choice is not
// this thread's). Ids and passes this large are refused at the launch.
constexpr int kPassBits = 16;
constexpr uint64_t kPassMask = (uint64_t{1} << kPassBits) - 1;

bool pack_completion(uint64_t dispatch_id, uint64_t rotation_pass, void** user) {
    uint64_t pass = rotation_pass == core::kNotReplayed ? 0 : rotation_pass + 1;
    if ((dispatch_id >> (64 - kPassBits)) != 0 || pass > kPassMask) return false;
    *user = reinterpret_cast<void*>(static_cast<uintptr_t>((dispatch_id << kPassBits) | pass));
    return true;
}

// Runs on the stream's worker after the single execution of an asynchronous dispatch.
void on_executed(const simLaunch* l, const simExecResult* result, void* user) {
    core::Core& core = core::Core::instance();
    uint64_t packed = reinterpret_cast<uintptr_t>(user);
    core::DispatchFacts facts = facts_of(l, packed >> kPassBits, kernel_of(l).kernel_id);
    if ((packed & kPassMask) != 0) facts.rotation_pass = (packed & kPassMask) - 1;
    core.begin_dispatch(facts);
    record_execution(l, *result, core::kNotReplayed);
    core.end_dispatch();
}

void replay_launch(const simLaunch* l, uint64_t dispatch_id, uint64_t kernel_id) {
    core::Core& core = core::Core::instance();
    core::DispatchFacts facts = facts_of(l, dispatch_id, kernel_id);
    replay::Dispatch d;
    d.info = facts.info;
    d.correlation.internal = dispatch_id;
    d.backend_dispatch = const_cast<simLaunch*>(l);
    SimPort port(l);
    core.begin_dispatch(facts);
    replay::Outcome outcome;
    {
        // The passes and the snapshots and restores between them are the tool's, never traced.
        core::trace::Quiet quiet;
        outcome = replay::ReplayService::instance().execute(port, d);
    }
    core.end_dispatch(outcome);
}

void on_launch(const simLaunch* l, void*) {
    core::Core& core = core::Core::instance();
    // Every launch the runtime saw consumes an id, selected or not (contiguous ids from 1).
    uint64_t dispatch_id = replay::ReplayService::instance().reserve_dispatch_id();
    try {
        const core::KernelRef& kernel = kernel_of(l);
        bool planned = !core.passes_for_agent(l->agent).empty();
        if (!core.select(kernel) || (!planned && !core.config().kernel_trace)) {
            if (simToolEnqueue(l) != simSuccess) core.fatal("launch " + std::to_string(l->launch_id) + ": " + last_error());
            return;
        }
        if (planned && core.config().replay_mode == core::ReplayMode::Kernel) {
            replay_launch(l, dispatch_id, kernel.kernel_id);
            return;
        }
        void* user = nullptr;
        if (!pack_completion(dispatch_id, core.selected_rotation_pass(), &user)) {
            core.fatal("launch " + std::to_string(l->launch_id) + ": dispatch id " + std::to_string(dispatch_id) +
                       " or its rotation pass does not fit the completion's user value; it runs unprofiled");
            if (simToolEnqueue(l) != simSuccess) core.fatal("launch " + std::to_string(l->launch_id) + ": " + last_error());
            return;
        }
        if (simToolEnqueueWithCallback(l, on_executed, user) != simSuccess)
            core.fatal("launch " + std::to_string(l->launch_id) + ": " + last_error());
    } catch (const std::exception& e) {
        // Nothing may escape into the runtime. A launch not handed on yet would hang its stream.
        core.fatal("launch hook: " + std::string(e.what()));
        simToolEnqueue(l);  // fails harmlessly with simErrorAlreadyDone when it was handed on
    }
}

void on_kernel(const simKernelInfo* k, void*) {
    try {
        g_kernels->add(k->serial, k->mangled_name, k->attrs);
    } catch (const std::exception& e) {
        core::Core::instance().fatal("kernel callback: " + std::string(e.what()));
    }
}

void on_prop(const char* key, int64_t value, void* user) { static_cast<core::AgentInfo*>(user)->props.emplace_back(key, value); }
void on_string(const char* key, const char* value, void* user) {
    static_cast<core::AgentInfo*>(user)->strings.emplace_back(key, value != nullptr ? value : "");
}

// Registers the runtime's agents with core. False (after recording why) when the runtime has none.
bool register_agents(int* count) {
    core::Core& core = core::Core::instance();
    if (simToolAgentCount(count) != simSuccess) {
        core.fatal("simToolAgentCount: " + last_error() + "; the application runs unprofiled");
        return false;
    }
    for (int i = 0; i < *count; ++i) {
        simAgentDesc desc{};
        if (simToolGetAgent(i, &desc) != simSuccess) {
            core.fatal("simToolGetAgent(" + std::to_string(i) + "): " + last_error());
            return false;
        }
        core::AgentInfo a;
        a.id = static_cast<uint64_t>(i + 1);
        a.index = i;
        a.name = desc.name;
        a.product_name = desc.product_name;
        a.vendor = desc.vendor;
        a.type = "GPU";
        simToolForEachAgentProp(i, on_prop, &a);
        simToolForEachAgentString(i, on_string, &a);
        core.register_agent(a);
    }
    return true;
}

int initialize() {
    if (simToolApiVersion() != GOROCPROF_SIM_TOOL_API_VERSION) {
        // Core is not up yet; the runtime prints this return code with the library's path.
        return 1;
    }
    if (!core::Core::initialize("sim")) return 0;  // core said why; the app runs unprofiled
    int agents = 0;
    if (!register_agents(&agents)) return 0;
    g_kernels = new KernelTable(agents);
    if (!install_tracing()) return 0;
    if (simToolSetKernelCallback(on_kernel, nullptr) != simSuccess ||
        simToolSetLaunchHook(on_launch, nullptr) != simSuccess) {
        core::Core::instance().fatal("installing the sim launch hook: " + last_error() +
                                     "; the application runs unprofiled");
        simToolSetLaunchHook(nullptr, nullptr);
        return 0;
    }
    return 0;
}

}  // namespace
}  // namespace gorocprof::sim

extern "C" __attribute__((visibility("default"))) int gorocprof_sim_initialize_injection(void) {
    try {
        return gorocprof::sim::initialize();
    } catch (const std::exception&) {
        return 1;
    }
}
