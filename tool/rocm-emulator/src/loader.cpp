// How the emulated SDK finds and starts tools, as the SDK does: rocprofiler_force_configure, then each
// library of ROCP_TOOL_LIBRARIES, then a rocprofiler_configure visible in the process; each tool's
// rocprofiler_configure, then every initialize, then the configuration is locked. The sim runtime
// starts it: this library is its injection (GOROCPROF_SIM_INJECTION_PATH).
#include "emulator.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace gorocprof::rocmemu {
namespace {

struct Tool {
    rocprofiler_configure_func_t configure = nullptr;
    std::string origin;
    rocprofiler_client_id_t* client = nullptr;
    rocprofiler_tool_configure_result_t* result = nullptr;
    bool finalized = false;
};

std::mutex g_tools_mu;
std::vector<rocprofiler_configure_func_t> g_forced;
std::vector<Tool>* g_tools = new std::vector<Tool>;  // never freed: finalizers run from atexit

bool add_tool(rocprofiler_configure_func_t fn, const std::string& origin) {
    if (fn == nullptr) return false;
    for (const Tool& t : *g_tools)
        if (t.configure == fn) return false;  // the same function found twice
    g_tools->push_back(Tool{fn, origin});
    return true;
}

bool discover(const Options& o, std::string* error) {
    for (rocprofiler_configure_func_t fn : g_forced) add_tool(fn, "rocprofiler_force_configure");
    for (const std::string& path : o.tool_libraries) {
        void* handle = dlopen(path.c_str(), RTLD_NOLOAD | RTLD_LAZY);
        if (handle == nullptr) handle = dlopen(path.c_str(), RTLD_LOCAL | RTLD_LAZY);
        if (handle == nullptr) {
            const char* why = dlerror();
            *error = "ROCP_TOOL_LIBRARIES: cannot load " + path + ": " + (why != nullptr ? why : "unknown error");
            return false;
        }
        auto fn = reinterpret_cast<rocprofiler_configure_func_t>(dlsym(handle, "rocprofiler_configure"));
        if (fn == nullptr) say("warning: " + path + " (ROCP_TOOL_LIBRARIES) has no rocprofiler_configure");
        add_tool(fn, path);
    }
    add_tool(reinterpret_cast<rocprofiler_configure_func_t>(dlsym(RTLD_DEFAULT, "rocprofiler_configure")), "the process");
    return true;
}

void client_finalize(rocprofiler_client_id_t client) {
    std::lock_guard<std::mutex> lock(g_tools_mu);
    for (Tool& t : *g_tools) {
        if (t.client == nullptr || t.client->handle != client.handle || t.finalized || t.result == nullptr) continue;
        t.finalized = true;
        if (t.result->finalize != nullptr) t.result->finalize(t.result->tool_data);
    }
}

void finalize_all() {
    for (Tool& t : *g_tools)
        if (t.client != nullptr) client_finalize(*t.client);
    state().finalized.store(1);
}

// Configures and initialises every tool found. A tool whose initialize fails keeps nothing running.
void configure_tools() {
    State& s = state();
    uint32_t version = ROCPROFILER_VERSION_MAJOR * 10000;
    if (s.options.kernel_replay) version += ROCPROFILER_VERSION_MINOR * 100 + ROCPROFILER_VERSION_PATCH;
    std::string runtime = "rocprofiler-sdk-emulator " + std::to_string(version) + " (gorocprof sim runtime)";
    for (size_t i = 0; i < g_tools->size(); ++i) {
        Tool& t = (*g_tools)[i];
        t.client = new rocprofiler_client_id_t{sizeof(rocprofiler_client_id_t), nullptr, static_cast<uint32_t>(i + 1)};
        t.result = t.configure(version, runtime.c_str(), static_cast<uint32_t>(i), t.client);
    }
    for (Tool& t : *g_tools) {
        if (t.result == nullptr || t.result->initialize == nullptr) continue;
        bool before[kMaxContexts];
        for (int c = 0; c < kMaxContexts; ++c) before[c] = s.contexts[c].created;
        if (t.result->initialize(client_finalize, t.result->tool_data) == 0) continue;
        say("warning: " + t.origin + ": tool initialization failed; its contexts are ignored");
        for (int c = 0; c < kMaxContexts; ++c)
            if (!before[c] && s.contexts[c].created) s.contexts[c].started.store(false);
        t.finalized = true;
    }
}

int initialize_injection() {
    std::string error;
    if (!start(&error)) {
        say("error: " + error);
        return 1;
    }
    State& s = state();
    s.initialized.store(-1);
    {
        std::lock_guard<std::mutex> lock(g_tools_mu);
        if (!discover(s.options, &error)) {
            say("error: " + error);
            return 1;
        }
    }
    configure_tools();
    s.locked.store(true);
    s.initialized.store(1);
    std::atexit(finalize_all);
    if (!install_hooks(&error)) {
        say("error: " + error);
        return 1;
    }
    return 0;
}

}  // namespace
}  // namespace gorocprof::rocmemu

using namespace gorocprof::rocmemu;

extern "C" {

rocprofiler_status_t rocprofiler_force_configure(rocprofiler_configure_func_t configure_func) {
    if (state().initialized.load() != 0) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    if (configure_func == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lock(g_tools_mu);
    g_forced.push_back(configure_func);
    return ROCPROFILER_STATUS_SUCCESS;
}

__attribute__((visibility("default"))) int gorocprof_sim_initialize_injection(void) {
    try {
        return initialize_injection();
    } catch (const std::exception& e) {
        say(std::string("error: ") + e.what());
        return 1;
    }
}

}  // extern "C"
