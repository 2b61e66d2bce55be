// sim-many [LAUNCHES] [--threads N]: many small launches (default 300), optionally from N threads at
// once (each on its own stream, devices taken in turn), to exercise the serialisation of profiled
// dispatches. Checks every buffer and every stream's completion count.
#include "common.hpp"

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace examples;

namespace {

bool parse_count(const char* s, long max, long* out) {
    char* end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 1 || v > max) return false;
    *out = v;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    g_app = "sim-many";
    long launches = 300, threads = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 64, &threads)) {
                std::fprintf(stderr, "sim-many: --threads wants 1..64, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!parse_count(argv[i], 1000000, &launches)) {
            std::fprintf(stderr, "usage: sim-many [LAUNCHES] [--threads N]\n");
            return 2;
        }
    }
    int devices = 0;
    SIM_CHECK(simGetDeviceCount(&devices));
    simKernel_t inc = register_increment();
    const uint32_t n = 128;

    std::atomic<bool> ok{true};
    std::vector<std::thread> workers;
    for (long t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            SIM_CHECK(simSetDevice(static_cast<int>(t % devices)));
            uint32_t* data = nullptr;
            SIM_CHECK(simMalloc(reinterpret_cast<void**>(&data), n * sizeof(uint32_t)));
            SIM_CHECK(simMemset(data, 0, n * sizeof(uint32_t)));
            simStream_t s = nullptr;
            SIM_CHECK(simStreamCreate(&s));
            const long mine = launches / threads + (t < launches % threads ? 1 : 0);
            for (long i = 0; i < mine; ++i) launch_increment(inc, data, n, s);
            SIM_CHECK(simStreamSynchronize(s));
            uint64_t done = 0;
            SIM_CHECK(simStreamCompletedLaunches(s, &done));
            if (done != static_cast<uint64_t>(mine)) {
                std::fprintf(stderr, "sim-many: thread %ld saw %llu completions, expected %ld\n", t,
                             static_cast<unsigned long long>(done), mine);
                ok = false;
            }
            if (!check_all(data, n, static_cast<uint32_t>(mine), ("thread " + std::to_string(t) + " data").c_str()))
                ok = false;
            SIM_CHECK(simStreamDestroy(s));
            SIM_CHECK(simFree(data));
        });
    for (auto& w : workers) w.join();
    if (!ok) {
        std::printf("sim-many: FAIL\n");
        return 1;
    }
    std::printf("sim-many: PASS: %ld launches from %ld thread(s)\n", launches, threads);
    return 0;
}
