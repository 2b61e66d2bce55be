// Internals shared by the files of the simulated runtime. Nothing here is exported.
#pragma once

#include <gorocprof/sim.h>
#include <gorocprof/sim_marker.h>
#include <gorocprof/sim_tool.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gorocprof::sim {

// ---- errors (runtime.cpp) ----
// Records "<call>: <reason>" as the thread's last error message and returns code.
simError_t fail(simError_t code, const std::string& call, const std::string& reason);

// ---- start-up (runtime.cpp) ----
// Entry of every application call: loads the injection once, then checks that agents exist.
simError_t enter_app(const char* call);
// Entry of every tool call: checks that agents exist, never loads the injection.
simError_t enter_tool(const char* call);

// ---- agents (agents.cpp) ----
// Parses a GOROCPROF_SIM_AGENTS value (nullptr or "" = default). Applies the GOROCPROF_SIM_DEVICE_MEMORY
// override to local_mem_size. Returns false with *error naming the bad entry and the known ones.
bool parse_agents(const char* spec, const char* device_memory, std::vector<simAgentDesc>* out,
                  std::string* error);
// Parses "123", "64K", "2M", "1G" (binary units). Returns false when malformed.
bool parse_bytes(const char* text, uint64_t* out);
const std::vector<simAgentDesc>& agents();  // valid after enter_* succeeded
bool valid_agent(int index);
void agent_props(const simAgentDesc& a, simToolAgentPropFn fn, void* user);
void agent_strings(const simAgentDesc& a, simToolAgentStringFn fn, void* user);

// ---- kernels (kernels.cpp) ----
struct KernelRec {
    std::string name;
    simKernelFn fn = nullptr;
    simKernelAttrs attrs{};
    uint64_t serial = 0;
};
bool valid_kernel(simKernel_t k);
inline KernelRec* kernel_rec(simKernel_t k) { return reinterpret_cast<KernelRec*>(k); }

// One launch as the runtime keeps it; simLaunch is its public face.
struct LaunchRec {
    static constexpr uint64_t kMagic = 0x73696d6c61756e63ull;  // "simlaunc"
    uint64_t magic = kMagic;
    simLaunch pub{};
    std::vector<unsigned char> args;
    KernelRec* kernel = nullptr;
    // Intercepted launches: Pending until the tool completes or enqueues it (guarded by the queue lock).
    enum class State { Pending, Completed, Enqueued } state = State::Pending;
    bool intercepted = false;
    simToolExecDoneFn done = nullptr;
    void* done_user = nullptr;
};
LaunchRec* launch_rec(const simLaunch* l);  // nullptr when l is not a live launch

// Runs every work-group of the launch on the calling thread.
simError_t execute_launch(LaunchRec& rec, simExecResult* result);

// ---- memory (memory.cpp) ----
// Waits are in streams.cpp; memory.cpp only tracks allocations.
simError_t device_malloc(int agent, size_t size, void** out);
simError_t device_free(void* ptr);
simError_t module_global(int agent, const char* name, size_t size, const void* init, void** out);
simError_t mem_info(int agent, size_t* free_bytes, size_t* total_bytes);

// ---- streams (streams.cpp) ----
int current_device();
void set_current_device(int d);
// Waits until every stream is empty and no agent is held by a tool, then runs `op` with the stream
// lock held, so that no launch, hold or replay window can start while it touches device memory.
// Synchronous copies, sets and frees go through here: a replay snapshotting or restoring memory on
// another thread never overlaps them (a real device orders them with its work the same way).
simError_t with_device_idle(const std::function<simError_t()>& op);
simError_t sync_agent(int agent, const char* call);

// ---- clock and threads (runtime.cpp) ----
int64_t now_ns();
uint64_t os_thread_id();  // cached per thread

// Loads the injection once when the agents are valid (the entry of every reported call, so that a
// tool loaded by the process's first call sees that call's ENTER).
void inject_if_agents();

// ---- API and copy tracing (tracing.cpp) ----
struct ApiHook {
    simToolApiCallbackFn fn;
    void* user;
};
struct CopyHook {
    simToolCopyCallbackFn fn;
    void* user;
};
extern std::atomic<const ApiHook*> g_api_hook;
extern std::atomic<const CopyHook*> g_copy_hook;

// The ENTER value of the innermost reported call on this thread (0: none), for the work it enqueues.
uint64_t current_api_value();

// One reported call: ENTER when enter() runs (only the callback, if any, pays for the arguments),
// EXIT at destruction with the result ret() saw.
class ApiScope {
public:
    explicit ApiScope(simToolApiId id);
    ~ApiScope();
    ApiScope(const ApiScope&) = delete;
    ApiScope& operator=(const ApiScope&) = delete;

    template <typename Fill>
    void enter(Fill fill) {
        if (hook_ == nullptr) return;
        call_ = simToolApiCall{};
        call_.id = id_;
        call_.device = current_device();
        fill(call_);
        do_enter();
    }
    void enter() {
        enter([](simToolApiCall&) {});
    }
    simError_t ret(simError_t e) {
        call_.result = e;
        return e;
    }
    // Fields the EXIT reports (depth, range_id); harmless without a callback.
    simToolApiCall& call() { return call_; }

private:
    void do_enter();
    const ApiHook* hook_;
    simToolApiId id_;
    simToolApiCall call_;  // filled only when there is a callback
    uint64_t outer_ = 0;
    bool entered_ = false;
};

// Where a copy's ends live (device_of: an agent, -1 for host memory) and its kind.
int device_of(const void* p);  // memory.cpp
simToolCopyKind copy_kind(int src_device, int dst_device);
// The copy callback, when one is set: fills size, kind and devices of c, then reports it.
void report_copy(simToolCopy& c);

}  // namespace gorocprof::sim
