// libgorocprof_tool_rocm.so: a rocprofiler-sdk tool. The SDK finds rocprofiler_configure (through
// ROCP_TOOL_LIBRARIES), which hands back tool_init and tool_fini. tool_init reads the plan (core),
// registers the SDK's GPU agents, builds one counter config per planned pass per agent (so a group the
// hardware refuses is reported before any dispatch), and starts the services: code-object tracing for
// kernel names, dispatch counting, and the KERNEL_REPLAY domain when the plan asks for kernel replay.
#include "tool.hpp"

// rocprofiler_configure and its result type: the SDK's umbrella header leaves registration.h to the tool.
#include <rocprofiler-sdk/registration.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

namespace gorocprof::rocm {
namespace {

Tool* g_tool = nullptr;

// label names an agent as gorocprof's messages do (docs/output.md, "Numbering"): by its number in the
// files (logical node id, Agent_Id's by default), its GPU number and its name.
std::string label(const Agent& g) {
    return "Agent " + std::to_string(g.info->logical_node_id) + " (GPU " + std::to_string(g.index) + ", " +
           std::string(g.info->name) + ")";
}

std::string who(const ProfiledAgent& a) { return label(a.sdk); }

// One counter config per planned pass. False (with *error naming agent, pass and counters) when the
// SDK lacks a counter or refuses a group.
bool build_configs(ProfiledAgent& a, std::string* error) {
    const std::vector<core::PlanPass>& passes = core::Core::instance().passes_for_agent(a.sdk.index);
    a.passes.resize(passes.size());
    for (size_t p = 0; p < passes.size(); ++p) {
        PassConfig& pc = a.passes[p];
        pc.plan = &passes[p].counters;
        std::string where = who(a) + ", pass " + std::to_string(p) + " (group " + std::to_string(passes[p].group) + ")";
        for (const core::PlanCounter& c : passes[p].counters) {
            const Counter* k = a.sdk.find(c.name);
            if (k == nullptr) {
                *error = where + ": the SDK offers no counter " + c.name + " on this agent";
                return false;
            }
            pc.counters.push_back(k);
        }
        if (pc.counters.empty()) continue;
        rocprofiler_status_t st{};
        std::string why;
        if (!create_config(a.sdk, pc.counters, &pc.config, &st, &why)) {
            *error = where + ": " + why;
            if (st == ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT) *error += " (the group does not fit one hardware pass)";
            return false;
        }
    }
    return true;
}

// Subscribes the replay domain. False when this SDK has none (or refuses it): the caller falls back.
bool configure_replay(std::string* why) {
    if (!GOROCPROF_ROCM_KERNEL_REPLAY) {
        *why = "this tool was built against a rocprofiler-sdk without experimental/kernel_replay.h";
        return false;
    }
    rocprofiler_callback_tracing_kind_t kind{};
    if (!find_replay_kind(&kind)) {
        *why = "rocprofiler-sdk " + sdk_version() + " has no KERNEL_REPLAY callback tracing domain";
        return false;
    }
    rocprofiler_context_id_t ctx{};
    std::string error;
    if (!check(rocprofiler_create_context(&ctx), "rocprofiler_create_context(kernel replay)", &error) ||
        !check(rocprofiler_configure_callback_tracing_service(ctx, kind, nullptr, 0, kernel_replay_callback, nullptr),
               "rocprofiler_configure_callback_tracing_service(KERNEL_REPLAY)", &error) ||
        !check(rocprofiler_start_context(ctx), "rocprofiler_start_context(kernel replay)", &error)) {
        *why = "rocprofiler-sdk " + sdk_version() + " refused the KERNEL_REPLAY domain: " + error;
        return false;
    }
    return true;
}

bool start_services(Tool& t, std::string* error) {
    rocprofiler_context_id_t code{}, counting{};
    return check(rocprofiler_create_context(&code), "rocprofiler_create_context(code objects)", error) &&
           check(rocprofiler_configure_callback_tracing_service(code, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, nullptr, 0,
                                                                code_object_callback, nullptr),
                 "rocprofiler_configure_callback_tracing_service(CODE_OBJECT)", error) &&
           check(rocprofiler_start_context(code), "rocprofiler_start_context(code objects)", error) &&
           check(rocprofiler_create_context(&counting), "rocprofiler_create_context(dispatch counting)", error) &&
           check(rocprofiler_configure_callback_dispatch_counting_service(counting, dispatch_callback, nullptr,
                                                                          record_callback, nullptr),
                 "rocprofiler_configure_callback_dispatch_counting_service", error) &&
           check(rocprofiler_start_context(counting), "rocprofiler_start_context(dispatch counting)", error);
}

int64_t measure_clock_offset() {
    rocprofiler_timestamp_t sdk = 0;
    int64_t before = core::now_ns();
    if (rocprofiler_get_timestamp(&sdk) != ROCPROFILER_STATUS_SUCCESS) return 0;
    int64_t after = core::now_ns();
    return before + (after - before) / 2 - static_cast<int64_t>(sdk);
}

// The run's agents and their configs; false (after recording why) when nothing may be profiled.
bool prepare(Tool& t) {
    core::Core& core = core::Core::instance();
    std::vector<Agent> gpus;
    std::string error;
    if (!gpu_agents(&gpus, &error)) {
        core.fatal(error + "; the application runs unprofiled");
        return false;
    }
    for (Agent& g : gpus) {
        if (!load_counters(g, &error)) {
            core.fatal(label(g) + ": " + error + "; the application runs unprofiled");
            return false;
        }
        ProfiledAgent a;
        a.sdk = std::move(g);
        a.core_id = a.sdk.info->node_id;
        core.register_agent(agent_info(a.sdk));
        t.agents.push_back(std::move(a));
    }
    // The CPUs are listed, not profiled: a CPU that cannot be described costs only its rows.
    std::vector<core::AgentInfo> cpus;
    if (cpu_agents(&cpus, &error)) {
        for (const core::AgentInfo& c : cpus) core.describe_agent(c);
    } else {
        core.warn(error + "; the CPU agents are not listed");
    }
    for (ProfiledAgent& a : t.agents) {
        if (!build_configs(a, &error)) {
            core.fatal(error + "; the application runs unprofiled");
            return false;
        }
    }
    return true;
}

Collect choose_collection(const core::Config& c) {
    switch (c.replay_mode) {
        case core::ReplayMode::Application: return Collect::Application;
        case core::ReplayMode::None: return Collect::Single;
        case core::ReplayMode::Rotation: return Collect::Rotation;
        case core::ReplayMode::Kernel: break;
    }
    std::string why;
    if (configure_replay(&why)) return Collect::KernelReplay;
    core::Core::instance().warn("kernel replay: " + why + " (kernel replay needs " + kKernelReplaySince +
                                " or later); this run collects pass 0 of every agent only: profile with "
                                "--replay-mode application to collect every group, one run each");
    return Collect::OnePass;
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    try {
        if (!core::Core::initialize("rocm")) return 0;  // core said why; the app runs unprofiled
        std::unique_ptr<Tool> made(new Tool);
        made->clock_offset_ns = measure_clock_offset();
        if (!prepare(*made)) return 0;
        made->collect = choose_collection(core::Core::instance().config());
        Tool* t = made.release();  // never freed from here on, see tool.hpp
        set_tool(t);
        std::string error;
        if (!start_services(*t, &error)) {
            core::Core::instance().fatal(error + "; the application runs unprofiled");
            return 0;
        }
        // Registered after core's own exit handler, so it runs before core writes `end`: the SDK's
        // finalization (which calls tool_fini) may come later than that.
        std::atexit(finish_tracing);
        if (!start_tracing(t->clock_offset_ns, &error)) core::Core::instance().warn("tracing: " + error + "; nothing is traced");
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("tool_init: ") + e.what() + "; the application runs unprofiled");
    }
    return 0;
}

void tool_fini(void*) {
    try {
        close_open_dispatch();
        finish_tracing();
    } catch (const std::exception&) {
    }
}

}  // namespace

Tool* tool() { return __atomic_load_n(&g_tool, __ATOMIC_ACQUIRE); }
void set_tool(Tool* t) { __atomic_store_n(&g_tool, t, __ATOMIC_RELEASE); }

const ProfiledAgent* Tool::agent(rocprofiler_agent_id_t id) const {
    for (const ProfiledAgent& a : agents)
        if (a.sdk.id.handle == id.handle) return &a;
    return nullptr;
}

}  // namespace gorocprof::rocm

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t priority, rocprofiler_client_id_t* client_id) {
    // A second gorocprof (or another tool configured first) would double the records: decline.
    if (priority > 0) return nullptr;
    if (client_id != nullptr) client_id->name = "gorocprof";
    static rocprofiler_tool_configure_result_t result{sizeof(rocprofiler_tool_configure_result_t),
                                                      gorocprof::rocm::tool_init, gorocprof::rocm::tool_fini, nullptr};
    return &result;
}
