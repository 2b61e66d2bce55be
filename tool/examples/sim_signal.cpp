// sim-signal: runs and checks a few kernels, then kills itself: `sim-signal term` (default) raises
// SIGTERM, `sim-signal kill` raises SIGKILL. Used to test how the front end reports a signalled app.
#include "common.hpp"

#include <csignal>
#include <cstring>

using namespace examples;

int main(int argc, char** argv) {
    g_app = "sim-signal";
    const char* how = argc > 1 ? argv[1] : "term";
    int sig = 0;
    if (std::strcmp(how, "term") == 0) sig = SIGTERM;
    else if (std::strcmp(how, "kill") == 0) sig = SIGKILL;
    else {
        std::fprintf(stderr, "sim-signal: unknown signal '%s' (use term or kill)\n", how);
        return 2;
    }
    simKernel_t inc = register_increment();
    const uint32_t n = 512;
    uint32_t* data = nullptr;
    SIM_CHECK(simMalloc(reinterpret_cast<void**>(&data), n * sizeof(uint32_t)));
    SIM_CHECK(simMemset(data, 0, n * sizeof(uint32_t)));
    for (int i = 0; i < 2; ++i) launch_increment(inc, data, n, nullptr);
    SIM_CHECK(simDeviceSynchronize());
    if (!check_all(data, n, 2, "data")) return 1;
    std::printf("sim-signal: 2 kernels done and checked; raising SIG%s\n", sig == SIGTERM ? "TERM" : "KILL");
    std::fflush(stdout);
    std::raise(sig);
    return 3;  // only reached if the signal was ignored
}
