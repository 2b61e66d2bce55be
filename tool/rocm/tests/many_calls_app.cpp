// A sim app making 50000 calls, more than the rocm tool's trace buffer takes before the SDK hands it
// over: every record must still reach the file (rocm.trace_every_record_of_a_long_run).
#include <gorocprof/sim.h>

#include <cstdio>

int main() {
    int device = -1;
    for (int i = 0; i < 50000; ++i) {
        if (simGetDevice(&device) != simSuccess) {
            std::printf("many-calls: simGetDevice failed\n");
            return 1;
        }
    }
    std::printf("many-calls: PASS\n");
    return 0;
}
