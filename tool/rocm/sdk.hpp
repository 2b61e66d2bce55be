// What tool/rocm and its query helper ask the rocprofiler-sdk: the GPU agents, their counters with
// dimensions, and counter configurations, each call checked and worded "<call>: <status name>: <text>".
#pragma once

#include "core.hpp"

// The headers of what this backend calls, by name as well as through the umbrella (version, status
// names, time), so that a header the SDK moves shows here.
#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/context.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace gorocprof::rocm {

// "ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT: <the SDK's text>"
std::string status_text(rocprofiler_status_t st);

// Fails with "<call>: <status text>" in *error unless st is success.
bool check(rocprofiler_status_t st, const char* call, std::string* error);

struct Dimension {
    std::string name;
    size_t size = 1;
    rocprofiler_counter_dimension_id_t id = 0;
};

struct Counter {
    rocprofiler_counter_id_t id{};
    std::string name, description, block, expression;
    bool derived = false;
    std::vector<Dimension> dims;  // outermost first: values are flattened row-major over them
    size_t instances = 1;
};

struct Agent {
    rocprofiler_agent_id_t id{};
    const rocprofiler_agent_v0_t* info = nullptr;  // the SDK's, valid until after finalization
    int index = 0;                                 // GPU ordinal (logical_node_type_id), as the plan's agents[].index
    std::vector<Counter> counters;
    std::map<std::string, size_t> by_name;    // into counters
    std::map<uint64_t, size_t> by_handle;     // into counters
    const Counter* find(const std::string& name) const;
    const Counter* find(rocprofiler_counter_id_t id) const;
};

// The GPU agents in GPU-ordinal order. False with *error naming the failing call.
bool gpu_agents(std::vector<Agent>* out, std::string* error);

// Fills agent.counters from rocprofiler_iterate_agent_supported_counters and
// rocprofiler_query_counter_info (version 1: dimensions).
bool load_counters(Agent& agent, std::string* error);

// The agent as a record's agent object (docs/record-format.md): id = KFD node, props as
// agent_info.csv's columns.
core::AgentInfo agent_info(const Agent& agent);

// The CPU agents as record agent objects, in node order: what agent_info.csv lists of them, as
// rocprofv3 lists every agent. Their index is -1: no plan names them. False with *error naming the
// failing call.
bool cpu_agents(std::vector<core::AgentInfo>* out, std::string* error);

// The KFD node of every agent (CPUs and GPUs) by its SDK handle: the agent ids of trace records.
bool agent_nodes(std::unordered_map<uint64_t, uint64_t>* out, std::string* error);

// Creates one counter config of `counters` (plan order) on the agent. On failure *error names the
// counters and the SDK's status; *status carries it for callers that tell a refused group apart.
bool create_config(const Agent& agent, const std::vector<const Counter*>& counters,
                   rocprofiler_counter_config_id_t* config, rocprofiler_status_t* status, std::string* error);

// The SDK's number for the KERNEL_REPLAY callback tracing kind, looked up by name (the number differs
// between SDK versions); false when this SDK has no such kind.
bool find_replay_kind(rocprofiler_callback_tracing_kind_t* kind);

// "major.minor.patch" of the SDK.
std::string sdk_version();

}  // namespace gorocprof::rocm
