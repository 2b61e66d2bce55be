// sim-crash: runs and checks a few kernels, then abort()s. The end-to-end tests use it to prove that
// the records of every dispatch completed before a crash are kept.
#include "common.hpp"

using namespace examples;

int main() {
    g_app = "sim-crash";
    if (!increment_and_check(1000, 3)) return 1;
    std::printf("sim-crash: 3 kernels done and checked; aborting now\n");
    std::fflush(stdout);
    std::abort();
}
