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
    if (!increment_and_check(256, 4)) return 1;
    std::printf("sim-exit: 4 kernels done and checked; exiting with %ld\n", status);
    std::fflush(stdout);
    std::exit(static_cast<int>(status));
}
