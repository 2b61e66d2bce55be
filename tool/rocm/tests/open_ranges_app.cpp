// A sim app that leaves a push/pop range and a start/stop range open when it exits, after one closed
// range: what the rocm tool writes for ranges the SDK never ends (rocm.trace_open_ranges_at_exit).
#include <gorocprof/sim.h>
#include <gorocprof/sim_marker.h>

#include <cstdio>

int main() {
    int count = 0;
    if (simGetDeviceCount(&count) != simSuccess || count < 1) {
        std::printf("open-ranges: no device\n");
        return 1;
    }
    simRangePushA("closed");
    simRangePop();
    simRangePushA("left open");
    simRangeStartA("never stopped");
    std::printf("open-ranges: PASS\n");
    return 0;
}
