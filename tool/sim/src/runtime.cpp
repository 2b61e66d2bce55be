// Start-up of the simulated runtime: the agents (once, from the environment), the injected tool
// library (once, on the first application call), error reporting, devices and the clock.
#include "sim_internal.hpp"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>

namespace gorocprof::sim {
namespace {

thread_local std::string t_last_error;

struct AgentState {
    std::vector<simAgentDesc> list;
    std::string error;
};

const AgentState& agent_state() {
    // A function-local static: thread-safe, built on first use by any entry point.
    static const AgentState* state = [] {
        auto* s = new AgentState;
        parse_agents(std::getenv("GOROCPROF_SIM_AGENTS"), std::getenv("GOROCPROF_SIM_DEVICE_MEMORY"), &s->list,
                     &s->error);
        return s;
    }();
    return *state;
}

std::mutex g_injection_mutex;
std::atomic<bool> g_injection_done{false};
// The injection's initialize function may call back into the runtime on the same thread.
thread_local bool t_injecting = false;

void load_injection() {
    const char* path = std::getenv("GOROCPROF_SIM_INJECTION_PATH");
    if (!path || !*path) return;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* why = dlerror();
        std::fprintf(stderr, "gorocprof-sim: cannot load the tool library %s (GOROCPROF_SIM_INJECTION_PATH): %s; "
                             "the application runs unprofiled\n", path, why ? why : "unknown error");
        return;
    }
    dlerror();
    auto init = reinterpret_cast<simToolInjectionInitFn>(dlsym(lib, GOROCPROF_SIM_INJECTION_SYMBOL));
    if (!init) {
        const char* why = dlerror();
        std::fprintf(stderr, "gorocprof-sim: the tool library %s has no %s: %s; the application runs unprofiled\n",
                     path, GOROCPROF_SIM_INJECTION_SYMBOL, why ? why : "symbol not found");
        return;
    }
    int rc = init();
    if (rc != 0) {
        simToolSetLaunchHook(nullptr, nullptr);
        simToolSetKernelCallback(nullptr, nullptr);
        simToolSetApiCallback(nullptr, nullptr);
        simToolSetCopyCallback(nullptr, nullptr);
        std::fprintf(stderr, "gorocprof-sim: %s in %s returned %d; the application runs unprofiled\n",
                     GOROCPROF_SIM_INJECTION_SYMBOL, path, rc);
    }
    // The library stays loaded: its hooks and exit handlers may still run.
}

void ensure_injected() {
    if (g_injection_done.load(std::memory_order_acquire) || t_injecting) return;
    std::lock_guard<std::mutex> lock(g_injection_mutex);
    if (g_injection_done.load(std::memory_order_relaxed)) return;
    t_injecting = true;
    load_injection();
    t_injecting = false;
    g_injection_done.store(true, std::memory_order_release);
}

}  // namespace

simError_t fail(simError_t code, const std::string& call, const std::string& reason) {
    t_last_error = call + ": " + reason;
    return code;
}

simError_t enter_tool(const char* call) {
    const AgentState& s = agent_state();
    if (!s.error.empty()) return fail(simErrorNoDevice, call, s.error);
    return simSuccess;
}

simError_t enter_app(const char* call) {
    if (simError_t e = enter_tool(call)) {
        // An application may not print what its failing calls say: tell the user once.
        static std::once_flag told;
        std::call_once(told, [] { std::fprintf(stderr, "gorocprof-sim: %s\n", agent_state().error.c_str()); });
        return e;
    }
    ensure_injected();
    return simSuccess;
}

void inject_if_agents() {
    // The common case first: one load and a branch once the injection is done.
    if (g_injection_done.load(std::memory_order_acquire)) return;
    if (agent_state().error.empty()) ensure_injected();
}

uint64_t os_thread_id() {
    thread_local const uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    return tid;
}

const std::vector<simAgentDesc>& agents() { return agent_state().list; }

bool valid_agent(int index) { return index >= 0 && static_cast<size_t>(index) < agents().size(); }

int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

const char* simGetErrorString(simError_t error) {
    switch (error) {
    case simSuccess: return "no error";
    case simErrorInvalidValue: return "invalid value";
    case simErrorOutOfMemory: return "out of memory";
    case simErrorInvalidDevice: return "invalid device ordinal";
    case simErrorNoDevice: return "no simulated device (see GOROCPROF_SIM_AGENTS)";
    case simErrorInvalidHandle: return "invalid handle";
    case simErrorInvalidDevicePointer: return "invalid device pointer";
    case simErrorInvalidConfiguration: return "invalid launch configuration";
    case simErrorAlreadyDone: return "launch already completed or enqueued";
    case simErrorInjectedFailure: return "injected failure (GOROCPROF_SIM_FAIL)";
    case simErrorUnknown: return "unknown error";
    }
    return "unrecognised error code";
}

const char* simGetLastErrorMessage(void) { return t_last_error.c_str(); }

int simToolApiVersion(void) { return GOROCPROF_SIM_TOOL_API_VERSION; }

int64_t simToolClockNs(void) { return now_ns(); }

static simError_t simGetDeviceCount_body(int* count) {
    if (simError_t e = enter_app("simGetDeviceCount")) return e;
    if (!count) return fail(simErrorInvalidValue, "simGetDeviceCount", "count is NULL");
    *count = static_cast<int>(agents().size());
    return simSuccess;
}

static simError_t simSetDevice_body(int device) {
    if (simError_t e = enter_app("simSetDevice")) return e;
    if (!valid_agent(device))
        return fail(simErrorInvalidDevice, "simSetDevice",
                    "no device " + std::to_string(device) + " (" + std::to_string(agents().size()) + " devices)");
    set_current_device(device);
    return simSuccess;
}

static simError_t simGetDevice_body(int* device) {
    if (simError_t e = enter_app("simGetDevice")) return e;
    if (!device) return fail(simErrorInvalidValue, "simGetDevice", "device is NULL");
    *device = current_device();
    return simSuccess;
}

}  // extern "C"

// The reported faces of the calls above (sim_tool.h, "API and copy tracing").
extern "C" {

simError_t simGetDeviceCount(int* count) {
    ApiScope api(SIM_API_ID_simGetDeviceCount);
    api.enter();
    return api.ret(simGetDeviceCount_body(count));
}

simError_t simSetDevice(int device) {
    ApiScope api(SIM_API_ID_simSetDevice);
    api.enter([&](simToolApiCall& c) { c.device = device; });
    return api.ret(simSetDevice_body(device));
}

simError_t simGetDevice(int* device) {
    ApiScope api(SIM_API_ID_simGetDevice);
    api.enter();
    return api.ret(simGetDevice_body(device));
}

}  // extern "C"
