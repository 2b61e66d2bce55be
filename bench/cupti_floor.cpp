// The floor of any CUPTI-based tracer (scripts/gpu-bench.sh, trace and calls workloads): an injection library
// (CUDA_INJECTION64_PATH) that turns on what CUPTI_FLOOR names and does nothing with it, so an application run
// under it pays CUPTI's own cost alone. CUPTI_FLOOR is a comma-separated list of:
//   callbacks  the runtime and driver callback domains, with a callback that returns at once
//   activity   the RUNTIME and DRIVER activity kinds, records dropped unread
//   kernels    the CONCURRENT_KERNEL activity kind, records dropped unread
//   copies     the MEMCPY, MEMCPY2 and MEMSET activity kinds, records dropped unread
// What gorocprof adds to a traced call is its own cost over this floor, for the same domains.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr size_t kBufferBytes = 4 << 20;

bool check(CUptiResult r, const char* call) {
    if (r == CUPTI_SUCCESS) return true;
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    std::fprintf(stderr, "cupti_floor: %s: %s\n", call, s ? s : "unknown error");
    return false;
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer != nullptr ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) { std::free(buffer); }

bool wants(const std::string& list, const char* item) {
    const std::string padded = "," + list + ",";
    return padded.find("," + std::string(item) + ",") != std::string::npos;
}

bool enable(CUpti_ActivityKind kind) { return check(cuptiActivityEnable(kind), "cuptiActivityEnable"); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    const char* env = std::getenv("CUPTI_FLOOR");
    const std::string floor = env != nullptr ? env : "";
    bool ok = true;
    if (wants(floor, "callbacks")) {
        CUpti_SubscriberHandle subscriber = nullptr;
        ok = check(cuptiSubscribe(&subscriber, ignore_callback, nullptr), "cuptiSubscribe") &&
             check(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "cuptiEnableDomain") &&
             check(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API), "cuptiEnableDomain");
    }
    const bool activity = wants(floor, "activity"), kernels = wants(floor, "kernels"), copies = wants(floor, "copies");
    if (ok && (activity || kernels || copies))
        ok = check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
    if (ok && activity) ok = enable(CUPTI_ACTIVITY_KIND_RUNTIME) && enable(CUPTI_ACTIVITY_KIND_DRIVER);
    if (ok && kernels) ok = enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (ok && copies) ok = enable(CUPTI_ACTIVITY_KIND_MEMCPY) && enable(CUPTI_ACTIVITY_KIND_MEMCPY2) && enable(CUPTI_ACTIVITY_KIND_MEMSET);
    if (ok && (activity || kernels || copies))
        std::atexit([] { check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll"); });
    if (!ok) std::fprintf(stderr, "cupti_floor: '%s' is not all on\n", floor.c_str());
    return 1;
}
