// sim-signal: runs and checks a few kernels, then kills itself: `sim-signal term` (default) raises
// SIGTERM, `sim-signal kill` raises SIGKILL. Used to test how the front end reports a signalled app.
// `sim-signal catch` is an app that handles Ctrl-C itself: it says "waiting for SIGINT", waits up to
// 10 s for SIGINT or SIGTERM, then runs two more kernels and exits 0 (status 4 if none came).
#include "common.hpp"

#include <csignal>
#include <cstring>
#include <unistd.h>

using namespace examples;

namespace {

volatile std::sig_atomic_t g_caught = 0;

void on_signal(int sig) { g_caught = sig; }

int catch_and_exit() {
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, nullptr) != 0 || sigaction(SIGTERM, &sa, nullptr) != 0) {
        std::perror("sim-signal: sigaction");
        return 2;
    }
    if (!increment_and_check(512, 2)) return 1;
    std::printf("sim-signal: 2 kernels done and checked; waiting for SIGINT\n");
    std::fflush(stdout);
    for (int i = 0; i < 1000 && g_caught == 0; ++i) usleep(10000);
    if (g_caught == 0) {
        std::fprintf(stderr, "sim-signal: no signal came within 10 s\n");
        return 4;
    }
    if (!increment_and_check(512, 2)) return 1;
    std::printf("sim-signal: caught SIG%s, 2 more kernels done; exiting 0\n", g_caught == SIGINT ? "INT" : "TERM");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    g_app = "sim-signal";
    const char* how = argc > 1 ? argv[1] : "term";
    if (std::strcmp(how, "catch") == 0) return catch_and_exit();
    int sig = 0;
    if (std::strcmp(how, "term") == 0) sig = SIGTERM;
    else if (std::strcmp(how, "kill") == 0) sig = SIGKILL;
    else {
        std::fprintf(stderr, "sim-signal: unknown signal '%s' (use term, kill or catch)\n", how);
        return 2;
    }
    if (!increment_and_check(512, 2)) return 1;
    std::printf("sim-signal: 2 kernels done and checked; raising SIG%s\n", sig == SIGTERM ? "TERM" : "KILL");
    std::fflush(stdout);
    std::raise(sig);
    return 3;  // only reached if the signal was ignored
}
