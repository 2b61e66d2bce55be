// sim-exit STATUS: runs and checks a few kernels, then exits with STATUS (0-255) through exit(), so
// atexit handlers run. Used to test that the front end passes the app's exit status through.
#include "common.hpp"

#include <cstring>

using namespace examples;

int main(int argc, char** argv) {
    g_app = "sim-exit";
    char* end = nullptr;
    long status = argc > 1 ? std::strtol(argv[1], &end, 10) : 0;
    if (argc > 1 && (*end != '\0' || status < 0 || status > 255)) {
        std::fprintf(stderr, "sim-exit: '%s' is not an exit status (0-255)\n", argv[1]);
        return 2;
    }
    simKernel_t inc = register_increment();
    const uint32_t n = 256;
    uint32_t* data = nullptr;
    SIM_CHECK(simMalloc(reinterpret_cast<void**>(&data), n * sizeof(uint32_t)));
    SIM_CHECK(simMemset(data, 0, n * sizeof(uint32_t)));
    for (int i = 0; i < 4; ++i) launch_increment(inc, data, n, nullptr);
    SIM_CHECK(simDeviceSynchronize());
    if (!check_all(data, n, 4, "data")) return 1;
    std::printf("sim-exit: 4 kernels done and checked; exiting with %ld\n", status);
    std::fflush(stdout);
    std::exit(static_cast<int>(status));
}
