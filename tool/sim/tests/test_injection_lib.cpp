// A minimal injected tool for test_injection: it subscribes to kernels and intercepts launches,
// counting both in a module global of agent 0 that the test reads back.
#include <gorocprof/sim_tool.h>

namespace {

int* counters() {  // [0] = kernels seen, [1] = launches intercepted
    void* p = nullptr;
    int device = 0;
    simGetDevice(&device);
    simSetDevice(0);
    simModuleGlobal("gorocprof_test_injection", 2 * sizeof(int), nullptr, &p);
    simSetDevice(device);
    return static_cast<int*>(p);
}

void on_kernel(const simKernelInfo*, void*) { ++counters()[0]; }

void on_launch(const simLaunch* l, void*) {
    simToolDrain(l->agent);
    simToolExecute(l, nullptr);
    ++counters()[1];
    simToolComplete(l);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gorocprof_sim_initialize_injection(void) {
    // Calls into the runtime from inside its own start-up must not deadlock.
    int n = 0;
    if (simGetDeviceCount(&n) != simSuccess || n < 1) return 1;
    simToolSetKernelCallback(on_kernel, nullptr);
    simToolSetLaunchHook(on_launch, nullptr);
    return 0;
}
