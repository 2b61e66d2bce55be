// Internal to tool/rocm: the tool's process-wide state, built in tool_init and never freed (the SDK
// may call back while exit() runs static destructors), and the callbacks it gives the SDK.
#pragma once

#include "core.hpp"
#include "sdk.hpp"

// The replay payload is experimental: SDKs before kernel replay lack the header, and the tool then
// always falls back to one pass per run.
#if __has_include(<rocprofiler-sdk/experimental/kernel_replay.h>)
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#define GOROCPROF_ROCM_KERNEL_REPLAY 1
#else
#define GOROCPROF_ROCM_KERNEL_REPLAY 0
#endif

#include <mutex>
#include <unordered_map>

namespace gorocprof::rocm {

// The ROCm release whose rocprofiler-sdk adds the KERNEL_REPLAY domain (issue 18's statement).
constexpr const char* kKernelReplaySince = "rocprofiler-sdk 1.4.1 (ROCm 10.1)";

struct PassConfig {
    rocprofiler_counter_config_id_t config{};       // handle 0: the pass collects nothing
    std::vector<const Counter*> counters;           // plan order
    const std::vector<core::PlanCounter>* plan = nullptr;
};

struct ProfiledAgent {
    Agent sdk;
    uint64_t core_id = 0;  // the agent's id in records (its KFD node)
    std::vector<PassConfig> passes;  // empty: not profiled
};

enum class Collect {
    KernelReplay,  // the SDK replays each selected dispatch once per pass
    OnePass,       // the plan asked for kernel replay but the SDK has no replay domain: pass 0 only
    Application,   // application replay: this run collects application_pass
    Single,        // replay_mode none: pass 0
    Rotation,      // replay_mode rotation: the pass core's select() chose for the dispatch
};

struct Tool {
    std::vector<ProfiledAgent> agents;
    Collect collect = Collect::Single;
    int64_t clock_offset_ns = 0;  // core's clock minus the SDK's
    std::mutex kernels_mu;
    std::unordered_map<uint64_t, core::KernelDesc> symbols;  // SDK kernel id -> what the code object says
    std::unordered_map<uint64_t, core::KernelRef> kernels;   // SDK kernel id -> core's kernel (first dispatch)

    const ProfiledAgent* agent(rocprofiler_agent_id_t id) const;
};

// nullptr before tool_init succeeded.
Tool* tool();
void set_tool(Tool* t);

// The callbacks (callbacks.cpp).
void code_object_callback(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t* user_data, void* args);
void kernel_replay_callback(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t* user_data, void* args);
void dispatch_callback(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_config_id_t* config,
                       rocprofiler_user_data_t* user_data, void* args);
void record_callback(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_record_t* records, size_t count,
                     rocprofiler_user_data_t user_data, void* args);
// Closes a replayed dispatch this thread left open (a loop that ended early).
void close_open_dispatch();

// A dispatch of an agent without counter passes, from the SDK's kernel dispatch tracing (kernel trace
// only): filtered and written as a dispatch without counters (callbacks.cpp).
void traced_dispatch(const rocprofiler_buffer_tracing_kernel_dispatch_record_t& record);

// Tracing (tracing.cpp): subscribes the SDK's services for the domains the plan traces (none: nothing
// to do). False with *error when the SDK refuses the context or its buffer; a refused kind is a warning.
bool start_tracing(int64_t clock_offset_ns, std::string* error);
// Hands the SDK's buffered records to core and writes the ranges still open. Before core's `end`.
void finish_tracing();

}  // namespace gorocprof::rocm
