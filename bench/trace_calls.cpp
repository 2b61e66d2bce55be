// The per-call cost of tracing a sim runtime call (docs/perf.md, "Tracing a call"): 200000 host-to-host
// copies of 64 bytes, then 200000 simGetDevice calls, under whatever injection the environment names.
#include <gorocprof/sim.h>
#include <chrono>
#include <cstdio>
int main() {
    char a[64] = {1}, b[64];
    int dev = 0;
    simGetDevice(&dev);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 200000; ++i) simMemcpy(b, a, sizeof a);
    auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < 200000; ++i) simGetDevice(&dev);
    auto t2 = std::chrono::steady_clock::now();
    std::printf("memcpy %.0f ns/call, getdevice %.0f ns/call\n",
                std::chrono::duration<double, std::nano>(t1 - t0).count() / 200000,
                std::chrono::duration<double, std::nano>(t2 - t1).count() / 200000);
}
