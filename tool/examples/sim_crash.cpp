// sim-crash: runs and checks a few kernels, then abort()s. The end-to-end tests use it to prove that
// the records of every dispatch completed before a crash are kept.
#include "common.hpp"

using namespace examples;

int main() {
    g_app = "sim-crash";
    simKernel_t inc = register_increment();
    const uint32_t n = 1000;
    uint32_t* data = nullptr;
    SIM_CHECK(simMalloc(reinterpret_cast<void**>(&data), n * sizeof(uint32_t)));
    SIM_CHECK(simMemset(data, 0, n * sizeof(uint32_t)));
    for (int i = 0; i < 3; ++i) launch_increment(inc, data, n, nullptr);
    SIM_CHECK(simDeviceSynchronize());
    if (!check_all(data, n, 3, "data")) return 1;
    std::printf("sim-crash: 3 kernels done and checked; aborting now\n");
    std::fflush(stdout);
    std::abort();
}
