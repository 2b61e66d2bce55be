// sim-trace: the app of the tracing tests (docs/tracing.md). Two threads, one after the other, so
// that every thread's calls, markers and copies come in the same order on every run: nested
// push/pop ranges, a start/stop range that a second thread ends, marks, copies of every kind
// (host-to-device, device-to-host, device-to-device on one device and across two, host-to-host),
// asynchronous copies on streams, memsets, module globals, and kernels inside ranges. The kernels
// add to their data in place, so a replay that did not restore memory would change the results,
// which are checked at the end. Prints one line, and exits 0 only when every value is right.
#include "common.hpp"

#include <gorocprof/sim_marker.h>

#include <thread>
#include <vector>

using namespace examples;

namespace {

constexpr uint32_t kN = 4096;  // elements per buffer
constexpr size_t kBytes = kN * sizeof(uint32_t);

struct AddArgs {
    uint32_t* data;
    const uint32_t* step;  // the device's module global `__device__ unsigned g_step`
    uint32_t n;
};

// add_step(unsigned* data, unsigned n): data[i] += g_step.
void add_step_kernel(const simKernelCtx* ctx, const void* a) {
    const auto* args = static_cast<const AddArgs*>(a);
    uint64_t active = 0;
    for (uint32_t t = 0; t < ctx->blockDim.x; ++t) {
        uint64_t i = global_id(ctx, t);
        if (i >= args->n) continue;
        args->data[i] += *args->step;
        ++active;
    }
    simWorkGlobalLoad(ctx, 2, active * 8);
    simWorkValu(ctx, 2);
    simWorkSalu(ctx, 2);
    simWorkGlobalStore(ctx, 1, active * 4);
}

simKernel_t g_add = nullptr;

// The current device's g_step, 1 on device 0 and 2 on device 1.
const uint32_t* step_of_current_device() {
    int device = 0;
    SIM_CHECK(simGetDevice(&device));
    uint32_t init = static_cast<uint32_t>(device) + 1;
    void* p = nullptr;
    SIM_CHECK(simModuleGlobal("g_step", sizeof init, &init, &p));
    return static_cast<const uint32_t*>(p);
}

void launch_add(uint32_t* data, const uint32_t* step, simStream_t stream) {
    AddArgs args{data, step, kN};
    SIM_CHECK(simLaunchKernel(g_add, dim(kN / 64), dim(64), 0, stream, &args, sizeof args));
}

uint32_t* device_alloc() {
    void* p = nullptr;
    SIM_CHECK(simMalloc(&p, kBytes));
    return static_cast<uint32_t*>(p);
}

struct Buffers {
    uint32_t* a0 = nullptr;  // device 0
    uint32_t* b0 = nullptr;  // device 0
    uint32_t* c1 = nullptr;  // device 1
    std::vector<uint32_t> from1 = std::vector<uint32_t>(kN, 0);  // c1, copied back by thread 1
};

// Thread 1: device 1, a range of its own, the peer copy, a kernel and a copy back on its own stream,
// and the end of the range thread 0 started.
void thread1(Buffers* b, simRangeId_t cross) {
    SIM_CHECK(simSetDevice(1));
    simRangePushA("thread 1");
    const uint32_t* step1 = step_of_current_device();
    b->c1 = device_alloc();
    SIM_CHECK(simMemcpy(b->c1, b->b0, kBytes));  // device 0 -> device 1
    simStream_t s1 = nullptr;
    SIM_CHECK(simStreamCreate(&s1));
    simRangePushA("kernel on device 1");
    launch_add(b->c1, step1, s1);  // + 2
    simRangePop();
    SIM_CHECK(simMemcpyAsync(b->from1.data(), b->c1, kBytes, s1));  // device 1 -> host
    SIM_CHECK(simStreamSynchronize(s1));
    SIM_CHECK(simStreamDestroy(s1));
    simRangeStop(cross);
    simMarkA("thread 1 done");
    simRangePop();
}

bool check(const char* what, const std::vector<uint32_t>& got, uint32_t offset) {
    for (uint32_t i = 0; i < kN; ++i)
        if (got[i] != i + offset) {
            std::fprintf(stderr, "sim-trace: %s[%u] = %u, expected %u\n", what, i, got[i], i + offset);
            return false;
        }
    return true;
}

}  // namespace

int main() {
    g_app = "sim-trace";
    int devices = 0;
    SIM_CHECK(simGetDeviceCount(&devices));
    if (devices < 2) {
        std::fprintf(stderr, "sim-trace: needs 2 simulated devices, GOROCPROF_SIM_AGENTS gives %d\n", devices);
        return 2;
    }
    g_add = register_kernel("_Z8add_stepPjj", add_step_kernel, 16, 8);
    std::vector<uint32_t> host(kN);
    for (uint32_t i = 0; i < kN; ++i) host[i] = i;

    Buffers b;
    simRangePushA("setup");
    const uint32_t* step0 = step_of_current_device();
    b.a0 = device_alloc();
    b.b0 = device_alloc();
    SIM_CHECK(simMemcpy(b.a0, host.data(), kBytes));  // host -> device 0
    SIM_CHECK(simMemset(b.b0, 0, kBytes));
    simRangePop();

    simRangePushA("compute");
    for (int it = 0; it < 2; ++it) {
        simRangePushA(it == 0 ? "iteration 0" : "iteration 1");
        launch_add(b.a0, step0, nullptr);  // + 1 each
        simRangePop();
    }
    // Streams are not ordered with each other: the copy below waits for the kernels explicitly.
    SIM_CHECK(simStreamSynchronize(nullptr));
    simStream_t s0 = nullptr;
    SIM_CHECK(simStreamCreate(&s0));
    SIM_CHECK(simMemsetAsync(b.b0, 0xff, kBytes, s0));
    SIM_CHECK(simMemcpyAsync(b.b0, b.a0, kBytes, s0));  // device 0 -> device 0
    launch_add(b.b0, step0, s0);                         // + 1
    SIM_CHECK(simStreamSynchronize(s0));
    SIM_CHECK(simStreamDestroy(s0));
    simRangePop();
    simMarkA("device 0 done");

    simRangeId_t cross = simRangeStartA("handed to thread 1");
    std::thread t1(thread1, &b, cross);
    t1.join();

    std::vector<uint32_t> a0(kN), mirror(kN);
    SIM_CHECK(simMemcpy(a0.data(), b.a0, kBytes));             // device 0 -> host
    SIM_CHECK(simMemcpy(mirror.data(), b.from1.data(), kBytes));  // host -> host
    SIM_CHECK(simFree(b.a0));
    SIM_CHECK(simFree(b.b0));
    SIM_CHECK(simFree(b.c1));
    // a0: 2 x g_step 1; b0: a0 + 1; c1: b0 + 2 (device 1's g_step).
    if (!check("a0", a0, 2) || !check("c1", b.from1, 5) || !check("host copy of c1", mirror, 5)) return 1;
    std::printf("sim-trace: PASS: 2 threads, 4 kernels, 6 copies, 2 memsets\n");
    return 0;
}
