// The tracing hooks (sim_tool.h, "API and copy tracing"): every call's ENTER and EXIT in order with
// its name and domain, the ENTER value handed back at EXIT, to the launch and to the copy the call
// issued (also when the copy finishes on a stream's worker), copies of every kind with their devices,
// memsets not reported as copies, the markers' depths and ids, and nothing reported without a callback.
#include "sim_check.hpp"

#include <gorocprof/sim_marker.h>
#include <gorocprof/sim_tool.h>

#include <mutex>
#include <string>
#include <vector>

namespace {

struct Seen {
    simToolApiPhase phase;
    std::string name;
    simToolApiDomain domain;
    uint64_t value;  // ENTER: what the callback returned; EXIT: enter_value
    uint64_t thread_id;
    int depth;
    uint64_t range_id;
    std::string message;
};

std::mutex g_mu;
std::vector<Seen> g_calls;
std::vector<simToolCopy> g_copies;
std::vector<uint64_t> g_copy_threads;
uint64_t g_next_value = 100;
uint64_t g_launch_value = 0;

uint64_t on_api(const simToolApiCall* c, void*) {
    std::lock_guard<std::mutex> lock(g_mu);
    CHECK_EQ(c->size, sizeof(simToolApiCall));
    CHECK_EQ(std::string(c->name), std::string(simToolApiName(c->id)));
    CHECK_EQ(c->domain, simToolApiDomainOf(c->id));
    uint64_t value = c->phase == SIM_API_PHASE_ENTER ? g_next_value++ : c->enter_value;
    if (c->phase == SIM_API_PHASE_EXIT) CHECK(c->timestamp_ns >= c->enter_ns);
    g_calls.push_back(Seen{c->phase, c->name, c->domain, value, c->thread_id, c->depth, c->range_id,
                           c->message ? c->message : ""});
    return value;
}

void on_copy(const simToolCopy* c, void*) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_copies.push_back(*c);
    CHECK(c->start_ns <= c->end_ns);
}

void on_launch(const simLaunch* l, void*) {
    g_launch_value = l->api_value;
    CHECK_OK(simToolEnqueue(l));
}

void nop_kernel(const simKernelCtx*, const void*) {}

// The ENTER value the callback returned for the n-th ENTER of `name` (from 0).
uint64_t enter_value_of(const std::string& name, int n = 0) {
    for (const Seen& s : g_calls)
        if (s.phase == SIM_API_PHASE_ENTER && s.name == name && n-- == 0) return s.value;
    return 0;
}

}  // namespace

int main() {
    // Without a callback: nothing reported, markers still count.
    void* d0 = nullptr;
    CHECK_OK(simMalloc(&d0, 4096));
    CHECK_EQ(simRangePushA("untraced"), 0);
    CHECK_EQ(simRangePop(), 0);
    CHECK_EQ(simRangePop(), -1);

    CHECK_EQ(simToolApiName(SIM_API_ID_simMemcpy), std::string("simMemcpy"));
    CHECK(simToolApiName(static_cast<simToolApiId>(SIM_API_ID_LAST + 1)) == nullptr);
    CHECK_EQ(simToolApiDomainOf(SIM_API_ID_simRegisterKernel), SIM_API_DOMAIN_COMPILER);
    CHECK_EQ(simToolApiDomainOf(SIM_API_ID_simRangeStop), SIM_API_DOMAIN_MARKER);

    CHECK_OK(simToolSetApiCallback(on_api, nullptr));
    CHECK_OK(simToolSetCopyCallback(on_copy, nullptr));
    CHECK_OK(simToolSetLaunchHook(on_launch, nullptr));

    std::vector<unsigned char> host(4096, 7), back(4096, 0), host2(4096, 0);
    void* d1 = nullptr;
    CHECK_OK(simSetDevice(1));
    CHECK_OK(simMalloc(&d1, 4096));
    CHECK_OK(simSetDevice(0));
    simStream_t s = nullptr;
    CHECK_OK(simStreamCreate(&s));
    CHECK_EQ(simRangePushA("outer"), 0);
    CHECK_EQ(simRangePushA("inner"), 1);
    CHECK_OK(simMemcpy(d0, host.data(), host.size()));              // H2D
    CHECK_OK(simMemcpy(d1, d0, 4096));                              // D2D across devices
    CHECK_OK(simMemcpyAsync(back.data(), d1, 4096, s));             // D2H on the stream's worker
    CHECK_OK(simMemsetAsync(d0, 0, 4096, s));                       // not a copy
    simMarkA("mark");
    CHECK_EQ(simRangePop(), 1);
    simRangeId_t r = simRangeStartA("span");
    simKernel_t k = nullptr;
    simKernelAttrs attrs{};
    CHECK_OK(simRegisterKernel("_Z3nopv", nop_kernel, &attrs, &k));
    CHECK_OK(simLaunchKernel(k, simDim3{1, 1, 1}, simDim3{64, 1, 1}, 0, s, nullptr, 0));
    CHECK_OK(simStreamSynchronize(s));
    simRangeStop(r);
    CHECK_EQ(simRangePop(), 0);
    CHECK_OK(simMemcpy(host2.data(), host.data(), 16));  // H2H
    CHECK_OK(simStreamDestroy(s));
    CHECK(back == host);

    CHECK_OK(simToolSetApiCallback(nullptr, nullptr));
    CHECK_OK(simToolSetCopyCallback(nullptr, nullptr));
    CHECK_OK(simToolSetLaunchHook(nullptr, nullptr));
    CHECK_OK(simMemcpy(d0, host.data(), 16));  // nothing more reported
    simMarkA("after");

    const std::vector<std::string> names = {
        "simSetDevice", "simMalloc", "simSetDevice", "simStreamCreate", "simRangePushA", "simRangePushA",
        "simMemcpy", "simMemcpy", "simMemcpyAsync", "simMemsetAsync", "simMarkA", "simRangePop",
        "simRangeStartA", "simRegisterKernel", "simLaunchKernel", "simStreamSynchronize", "simRangeStop",
        "simRangePop", "simMemcpy", "simStreamDestroy"};
    std::lock_guard<std::mutex> lock(g_mu);
    CHECK_EQ(g_calls.size(), 2 * names.size());
    for (size_t i = 0; i < names.size() && 2 * i + 1 < g_calls.size(); ++i) {
        const Seen& enter = g_calls[2 * i];
        const Seen& exit = g_calls[2 * i + 1];
        CHECK_EQ(enter.name, names[i]);
        CHECK_EQ(enter.phase, SIM_API_PHASE_ENTER);
        CHECK_EQ(exit.name, names[i]);
        CHECK_EQ(exit.phase, SIM_API_PHASE_EXIT);
        CHECK_EQ(exit.value, enter.value);
        CHECK_EQ(exit.thread_id, enter.thread_id);
    }
    CHECK_EQ(g_calls[8].message, std::string("outer"));
    CHECK_EQ(g_calls[9].depth, 0);   // EXIT of the first push
    CHECK_EQ(g_calls[23].depth, 1);  // EXIT of the first pop
    CHECK_EQ(g_calls[25].range_id, r);
    CHECK_EQ(g_calls[32].range_id, r);
    CHECK_EQ(g_calls[26].domain, SIM_API_DOMAIN_COMPILER);
    CHECK_EQ(g_calls[20].domain, SIM_API_DOMAIN_MARKER);
    CHECK_EQ(g_calls[0].domain, SIM_API_DOMAIN_RUNTIME);
    CHECK_EQ(g_launch_value, enter_value_of("simLaunchKernel"));

    // Copies: in completion order, which the synchronous ones and the stream's FIFO fix here.
    CHECK_EQ(g_copies.size(), 4u);
    if (g_copies.size() == 4) {
        const simToolCopy& h2d = g_copies[0];
        CHECK_EQ(h2d.kind, SIM_COPY_HOST_TO_DEVICE);
        CHECK_EQ(h2d.src_device, -1);
        CHECK_EQ(h2d.dst_device, 0);
        CHECK_EQ(h2d.bytes, 4096u);
        CHECK_EQ(h2d.id, SIM_API_ID_simMemcpy);
        CHECK_EQ(h2d.api_value, enter_value_of("simMemcpy", 0));
        CHECK_EQ(h2d.stream_id, 0u);
        const simToolCopy& d2d = g_copies[1];
        CHECK_EQ(d2d.kind, SIM_COPY_DEVICE_TO_DEVICE);
        CHECK_EQ(d2d.src_device, 0);
        CHECK_EQ(d2d.dst_device, 1);
        CHECK_EQ(d2d.api_value, enter_value_of("simMemcpy", 1));
        const simToolCopy& d2h = g_copies[2];
        CHECK_EQ(d2h.kind, SIM_COPY_DEVICE_TO_HOST);
        CHECK_EQ(d2h.id, SIM_API_ID_simMemcpyAsync);
        CHECK(d2h.stream == s);
        CHECK(d2h.stream_id > 2);  // a created stream: after the default streams' ids
        CHECK_EQ(d2h.api_value, enter_value_of("simMemcpyAsync"));
        CHECK_EQ(d2h.thread_id, g_calls[0].thread_id);  // the issuing thread, not the worker
        const simToolCopy& h2h = g_copies[3];
        CHECK_EQ(h2h.kind, SIM_COPY_HOST_TO_HOST);
        CHECK_EQ(h2h.api_value, enter_value_of("simMemcpy", 2));
    }
    return test_result("test_trace");
}
