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
    if (!increment_and_check(512, 2)) return 1;
    std::printf("sim-signal: 2 kernels done and checked; raising SIG%s\n", sig == SIGTERM ? "TERM" : "KILL");
    std::fflush(stdout);
    std::raise(sig);
    return 3;  // only reached if the signal was ignored
}
