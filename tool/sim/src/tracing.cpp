// API and copy tracing: the callbacks a tool sets, the ENTER/EXIT of every reported call, the names
// and domains of the calls, the markers (sim_marker.h) and the copies' reports.
#include "sim_internal.hpp"

namespace gorocprof::sim {

std::atomic<const ApiHook*> g_api_hook{nullptr};
std::atomic<const CopyHook*> g_copy_hook{nullptr};

namespace {

struct ApiEntry {
    const char* name;
    simToolApiDomain domain;
};

// Indexed by simToolApiId.
constexpr ApiEntry kApis[] = {
    {nullptr, static_cast<simToolApiDomain>(0)},
    {"simGetDeviceCount", SIM_API_DOMAIN_RUNTIME},
    {"simSetDevice", SIM_API_DOMAIN_RUNTIME},
    {"simGetDevice", SIM_API_DOMAIN_RUNTIME},
    {"simMemGetInfo", SIM_API_DOMAIN_RUNTIME},
    {"simMalloc", SIM_API_DOMAIN_RUNTIME},
    {"simFree", SIM_API_DOMAIN_RUNTIME},
    {"simMemcpy", SIM_API_DOMAIN_RUNTIME},
    {"simMemset", SIM_API_DOMAIN_RUNTIME},
    {"simMemcpyAsync", SIM_API_DOMAIN_RUNTIME},
    {"simMemsetAsync", SIM_API_DOMAIN_RUNTIME},
    {"simStreamCreate", SIM_API_DOMAIN_RUNTIME},
    {"simStreamDestroy", SIM_API_DOMAIN_RUNTIME},
    {"simStreamSynchronize", SIM_API_DOMAIN_RUNTIME},
    {"simDeviceSynchronize", SIM_API_DOMAIN_RUNTIME},
    {"simStreamCompletedLaunches", SIM_API_DOMAIN_RUNTIME},
    {"simLaunchKernel", SIM_API_DOMAIN_RUNTIME},
    {"simRegisterKernel", SIM_API_DOMAIN_COMPILER},
    {"simModuleGlobal", SIM_API_DOMAIN_COMPILER},
    {"simMarkA", SIM_API_DOMAIN_MARKER},
    {"simRangePushA", SIM_API_DOMAIN_MARKER},
    {"simRangePop", SIM_API_DOMAIN_MARKER},
    {"simRangeStartA", SIM_API_DOMAIN_MARKER},
    {"simRangeStop", SIM_API_DOMAIN_MARKER},
};
static_assert(sizeof(kApis) / sizeof(kApis[0]) == SIM_API_ID_LAST + 1, "one entry per simToolApiId");

bool known(simToolApiId id) { return id > SIM_API_ID_NONE && id <= SIM_API_ID_LAST; }

thread_local uint64_t t_api_value = 0;
thread_local int t_depth = 0;              // simRangePushA nesting
std::atomic<uint64_t> g_next_range{1};     // simRangeStartA ids

}  // namespace

uint64_t current_api_value() { return t_api_value; }

ApiScope::ApiScope(simToolApiId id) {
    inject_if_agents();
    hook_ = g_api_hook.load(std::memory_order_acquire);
    id_ = id;
}

void ApiScope::do_enter() {
    call_.size = sizeof call_;
    call_.id = id_;
    call_.domain = kApis[id_].domain;
    call_.name = kApis[id_].name;
    call_.phase = SIM_API_PHASE_ENTER;
    call_.thread_id = os_thread_id();
    call_.timestamp_ns = now_ns();
    call_.enter_ns = call_.timestamp_ns;
    uint64_t value = hook_->fn(&call_, hook_->user);
    call_.enter_value = value;
    outer_ = t_api_value;
    t_api_value = value;
    entered_ = true;
}

ApiScope::~ApiScope() {
    if (!entered_) return;
    t_api_value = outer_;
    call_.phase = SIM_API_PHASE_EXIT;
    call_.timestamp_ns = now_ns();
    hook_->fn(&call_, hook_->user);
}

simToolCopyKind copy_kind(int src_device, int dst_device) {
    if (src_device < 0) return dst_device < 0 ? SIM_COPY_HOST_TO_HOST : SIM_COPY_HOST_TO_DEVICE;
    return dst_device < 0 ? SIM_COPY_DEVICE_TO_HOST : SIM_COPY_DEVICE_TO_DEVICE;
}

void report_copy(simToolCopy& c) {
    const CopyHook* hook = g_copy_hook.load(std::memory_order_acquire);
    if (hook == nullptr) return;
    c.size = sizeof c;
    c.src_device = device_of(c.src);
    c.dst_device = device_of(c.dst);
    c.kind = copy_kind(c.src_device, c.dst_device);
    hook->fn(&c, hook->user);
}

}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

const char* simToolApiName(simToolApiId id) { return known(id) ? kApis[id].name : nullptr; }

simToolApiDomain simToolApiDomainOf(simToolApiId id) {
    return known(id) ? kApis[id].domain : static_cast<simToolApiDomain>(0);
}

simError_t simToolSetApiCallback(simToolApiCallbackFn fn, void* user) {
    if (simError_t e = enter_tool("simToolSetApiCallback")) return e;
    // The old hook is never freed: a call entered with it still makes its EXIT through it.
    g_api_hook.store(fn ? new ApiHook{fn, user} : nullptr, std::memory_order_release);
    return simSuccess;
}

simError_t simToolSetCopyCallback(simToolCopyCallbackFn fn, void* user) {
    if (simError_t e = enter_tool("simToolSetCopyCallback")) return e;
    // Never freed either: a stream worker may be reporting through the old one.
    g_copy_hook.store(fn ? new CopyHook{fn, user} : nullptr, std::memory_order_release);
    return simSuccess;
}

void simMarkA(const char* message) {
    ApiScope api(SIM_API_ID_simMarkA);
    api.enter([&](simToolApiCall& c) { c.message = message; });
}

int simRangePushA(const char* message) {
    ApiScope api(SIM_API_ID_simRangePushA);
    api.enter([&](simToolApiCall& c) { c.message = message; });
    api.call().depth = t_depth++;
    return api.call().depth;
}

int simRangePop(void) {
    ApiScope api(SIM_API_ID_simRangePop);
    api.enter();
    api.call().depth = t_depth > 0 ? --t_depth : -1;
    return api.call().depth;
}

simRangeId_t simRangeStartA(const char* message) {
    ApiScope api(SIM_API_ID_simRangeStartA);
    api.enter([&](simToolApiCall& c) { c.message = message; });
    api.call().range_id = g_next_range.fetch_add(1, std::memory_order_relaxed);
    return api.call().range_id;
}

void simRangeStop(simRangeId_t id) {
    ApiScope api(SIM_API_ID_simRangeStop);
    api.enter([&](simToolApiCall& c) { c.range_id = id; });
}

}  // extern "C"
