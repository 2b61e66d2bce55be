// The runtime loads GOROCPROF_SIM_INJECTION_PATH on the first call. argv[1] is "loaded" (the test
// library must have intercepted every launch) or "unloaded" (a bad path: the app runs normally).
#include "sim_check.hpp"

#include <string>

namespace {
void kernel(const simKernelCtx*, const void* a) { ++**static_cast<int* const*>(a); }
}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "loaded";
    simKernel_t k = nullptr;
    simKernelAttrs attrs{};
    CHECK_OK(simRegisterKernel("_Z6kernelPi", kernel, &attrs, &k));
    int* x = nullptr;
    CHECK_OK(simMalloc(reinterpret_cast<void**>(&x), sizeof(int)));
    CHECK_OK(simMemset(x, 0, sizeof(int)));
    for (int i = 0; i < 3; ++i) CHECK_OK(simLaunchKernel(k, simDim3{1, 1, 1}, simDim3{1, 1, 1}, 0, nullptr, &x, sizeof x));
    CHECK_OK(simDeviceSynchronize());
    int value = 0;
    CHECK_OK(simMemcpy(&value, x, sizeof value));
    CHECK(value == 3);
    uint64_t done = 0;
    CHECK_OK(simStreamCompletedLaunches(nullptr, &done));
    CHECK(done == 3);
    void* g = nullptr;
    CHECK_OK(simModuleGlobal("gorocprof_test_injection", 2 * sizeof(int), nullptr, &g));
    const int* seen = static_cast<const int*>(g);
    if (mode == "loaded") CHECK(seen[0] == 1 && seen[1] == 3);
    else CHECK(seen[0] == 0 && seen[1] == 0);
    CHECK_OK(simFree(x));
    return test_result(("test_injection " + mode).c_str());
}
