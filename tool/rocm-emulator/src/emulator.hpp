// Internal state of the emulated rocprofiler-sdk: options, agents, counters, contexts and services.
// Built once when the library starts (from the sim runtime's injection call or the query helper) and
// never freed: callbacks may run while exit() destroys statics.
#pragma once

#include "catalog.hpp"

#include <gorocprof/kernel_replay.h>
#include <gorocprof/sim_tool.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gorocprof::rocmemu {

// The environment, read once (tool/rocm-emulator/README.md lists every variable).
struct Options {
    std::vector<std::string> tool_libraries;  // ROCP_TOOL_LIBRARIES, colon-separated
    bool kernel_replay = true;                // GOROCPROF_ROCM_EMULATOR_KERNEL_REPLAY=0: an SDK without the domain
    int replay_kind = ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY;  // GOROCPROF_ROCM_EMULATOR_REPLAY_KIND
    std::string share_dir;  // <root>/share/rocprofiler-sdk, found next to this library
};

struct Dimension {
    std::string name;
    size_t size = 1;
    rocprofiler_counter_dimension_id_t id = 0;
};

// One counter offered on one agent, with the structs query_counter_info hands out (owned here).
struct AgentCounter {
    const CounterDef* def = nullptr;
    rocprofiler_counter_id_t id{};
    std::vector<Dimension> dims;  // outermost first; instance positions are row-major over them
    size_t instances = 1;
    std::vector<rocprofiler_counter_record_dimension_info_t> dim_infos;
    std::vector<const rocprofiler_counter_record_dimension_info_t*> dim_ptrs;
    std::vector<rocprofiler_counter_dimension_info_t> inst_dim_infos;
    std::vector<const rocprofiler_counter_dimension_info_t*> inst_dim_ptrs;
    std::vector<rocprofiler_counter_record_dimension_instance_info_t> inst_infos;
    std::vector<const rocprofiler_counter_record_dimension_instance_info_t*> inst_ptrs;
};

struct Agent {
    rocprofiler_agent_v0_t info{};
    std::string name, product, vendor, model;
    int sim_index = -1;  // device ordinal of a GPU; -1 for the CPU
    const ArchCatalog* catalog = nullptr;
    std::vector<std::unique_ptr<AgentCounter>> counters;
    std::vector<rocprofiler_counter_id_t> counter_ids;
};

struct CounterConfig {
    const Agent* agent = nullptr;
    std::vector<const AgentCounter*> counters;
};

struct TracingService {
    int kind = 0;
    std::vector<rocprofiler_tracing_operation_t> operations;  // empty: all
    rocprofiler_callback_tracing_cb_t callback = nullptr;
    void* args = nullptr;
    bool covers(int operation) const;
};

// A buffer tracing service: records of `kind` go to the buffer.
struct BufferService {
    int kind = 0;
    std::vector<rocprofiler_tracing_operation_t> operations;  // empty: all
    uint64_t buffer = 0;
    bool covers(int operation) const;
};

struct Context {
    bool created = false;
    std::atomic<bool> started{false};
    gorocprof_context_id_t replay_ctx{};  // the replay service's context standing for this one
    rocprofiler_dispatch_counting_service_cb_t dispatch_cb = nullptr;
    void* dispatch_args = nullptr;
    rocprofiler_dispatch_counting_record_cb_t record_cb = nullptr;
    void* record_args = nullptr;
    std::vector<TracingService> tracing;
    std::vector<BufferService> buffer_tracing;
};

constexpr int kMaxContexts = 64;

struct State {
    Options options;
    std::mutex mu;  // configuration; dispatches read what initialize left
    std::vector<std::unique_ptr<Agent>> agents;
    std::vector<const void*> agent_ptrs;
    std::vector<std::unique_ptr<CounterConfig>> configs;  // handle = index + 1; destroyed ones stay null
    std::vector<std::unique_ptr<CounterConfig>> retired_configs;  // destroyed, still readable
    Context contexts[kMaxContexts];  // handle = index + 1
    std::atomic<bool> locked{false};  // services can no longer be configured
    std::atomic<int> initialized{0};  // rocprofiler_is_initialized's encoding
    std::atomic<int> finalized{0};
};

State& state();

// Reads the options and the counter definitions and builds the agents from the sim runtime. Idempotent.
// False with *error when the runtime or the definitions cannot be read.
bool start(std::string* error);

const Agent* agent_by_handle(uint64_t handle);
const Agent* agent_by_sim_index(int index);
const AgentCounter* counter_by_id(uint64_t handle, const Agent** agent = nullptr);
const CounterConfig* config_by_handle(uint64_t handle);
Context* context_by_handle(uint64_t handle);

// Counter instance ids: the counter's handle in the top 16 bits, 6 bits of position per dimension.
rocprofiler_counter_instance_id_t encode_instance(const AgentCounter& c, size_t linear);

// The launch path (dispatch.cpp): installs the sim runtime's hooks once tools are initialised.
bool install_hooks(std::string* error);

// Calls every started context's tracing callback subscribed to (kind, operation). per_context, when
// given, holds one user_data per context (indexed by handle - 1), kept by the caller from ENTER to EXIT.
void trace(int kind, int operation, rocprofiler_callback_phase_t phase, void* payload, rocprofiler_user_data_t* user_data,
           const rocprofiler_correlation_id_t& correlation, rocprofiler_user_data_t* per_context = nullptr);
// Whether a started context has a callback tracing service for (kind, operation).
bool callback_traced(int kind, int operation);

// API, marker and memory copy tracing over the sim runtime's hooks (tracing.cpp).
namespace tracing {
// Installs the runtime's API and copy hooks when a started context traces a kind they feed.
bool install(std::string* error);
// The correlation id of a launch: its API call's (api_value, what the call's ENTER hook returned)
// when that call is traced, else `dispatch_id` (the SDK's own numbering of a dispatch, as without
// tracing).
uint64_t launch_correlation(uint64_t api_value, uint64_t dispatch_id);
// While one lives on a thread, the runtime calls made there are the SDK's own work (a replay's
// snapshots and restores) and are not traced. Nests.
class Internal {
public:
    Internal();
    ~Internal();
    Internal(const Internal&) = delete;
    Internal& operator=(const Internal&) = delete;
};
// Whether a started context traces kernel dispatches (buffer kind KERNEL_DISPATCH, COMPLETE).
bool dispatches_traced();
// One execution of a dispatch (each pass of a replayed one is one): a KERNEL_DISPATCH record.
void dispatch_done(const rocprofiler_kernel_dispatch_info_t& info, uint64_t correlation, uint64_t thread_id,
                   const simExecResult& result);
// The name of an operation of a buffer tracing kind the emulator makes records of; nullptr otherwise.
const char* operation_name(int buffer_kind, int operation);
// The name of an operation of a marker callback tracing kind; nullptr otherwise.
const char* marker_operation_name(int callback_kind, int operation);
}  // namespace tracing

// The replay service's callback for a context configured for KERNEL_REPLAY (args: its handle): hands
// the tool the SDK's payload and takes back its pass-count and continue callbacks.
void replay_domain_callback(gorocprof_callback_tracing_record_t record, gorocprof_user_data_t* user_data, void* args);

// Buffers (buffers.cpp). One buffered record of any tracing kind: the header and its payload.
struct BufferedRecord {
    uint32_t kind = 0;  // rocprofiler_buffer_tracing_kind_t
    union {
        rocprofiler_buffer_tracing_hip_api_record_t hip;
        rocprofiler_buffer_tracing_hsa_api_record_t hsa;
        rocprofiler_buffer_tracing_memory_copy_record_t copy;
        rocprofiler_buffer_tracing_kernel_dispatch_record_t dispatch;
    } u;
};
// Whether a started context has a buffer tracing service for (kind, operation).
bool buffer_traced(int kind, int operation);
// Appends the record to the buffer of every started context tracing (kind, operation).
void buffer_record(int operation, const BufferedRecord& record);
// Above every operation number the emulator uses (the SDK's HIP runtime numbers reach 463).
constexpr int kMaxOperation = 512;

// "rocprofiler-sdk-emulator: <text>" on stderr.
void say(const std::string& text);

}  // namespace gorocprof::rocmemu
