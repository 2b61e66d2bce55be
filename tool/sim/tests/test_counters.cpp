// The counter model: instance counts per block and agent, values computed from the reported work,
// identical across executions of the same launch (replay passes) and across launches that differ
// only in their buffers, and 0 for every counter of a unit the model has no activity for.
#include "sim_check.hpp"

#include <gorocprof/sim_tool.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

struct AxpyArgs {
    float* x;
    uint32_t n;
};

// x = 2x + 1 over n floats: per wave 1 load, 2 VALU, 1 store; 4 bytes each way per active item.
void axpy(const simKernelCtx* ctx, const void* a) {
    const auto* args = static_cast<const AxpyArgs*>(a);
    uint64_t first = uint64_t{ctx->blockIdx.x} * ctx->blockDim.x;
    uint64_t active = 0;
    for (uint32_t t = 0; t < ctx->blockDim.x; ++t)
        if (first + t < args->n) {
            args->x[first + t] = 2 * args->x[first + t] + 1;
            ++active;
        }
    simWorkGlobalLoad(ctx, 1, active * 4);
    simWorkValu(ctx, 2);
    simWorkSalu(ctx, 5);
    simWorkGlobalStore(ctx, 1, active * 4);
}

struct Captured {
    std::vector<std::vector<double>> first, second;  // per counter, for two executions
    simExecResult r1, r2;
};

const char* const kCounters[] = {"SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_VMEM_RD",
                                 "SQ_INSTS_VMEM_WR", "SQ_CYCLES", "SQ_BUSY_CYCLES", "GRBM_GUI_ACTIVE",
                                 "GRBM_COUNT", "TCC_READ", "TCC_WRITE", "TCC_REQ", "TCP_TCC_READ_REQ",
                                 "SQ_WAIT_INST_ANY", "SQ_INSTS_FLAT", "TA_BUSY_avr", "TCC_EA_RDREQ",
                                 "TCC_EA_RDREQ_32B", "TA_TA_BUSY", "TCC_BUSY", "TCC_BUBBLE"};

Captured* g_cap = nullptr;

std::vector<double> sample(const simLaunch* l, const simExecResult* r, const char* name) {
    double values[256];
    size_t n = 0;
    if (simToolSampleCounter(l, r, name, "", 0, values, 256, &n) != simSuccess) {
        std::fprintf(stderr, "sample %s: %s\n", name, simGetLastErrorMessage());
        return {};
    }
    return std::vector<double>(values, values + n);
}

void hook(const simLaunch* l, void*) {
    simToolDrain(l->agent);
    simToolExecute(l, &g_cap->r1);
    for (const char* c : kCounters) g_cap->first.push_back(sample(l, &g_cap->r1, c));
    simToolExecute(l, &g_cap->r2);
    for (const char* c : kCounters) g_cap->second.push_back(sample(l, &g_cap->r2, c));
    // Too little room: the error says how much is needed.
    double one = 0;
    size_t need = 0;
    CHECK(simToolSampleCounter(l, &g_cap->r1, "SQ_WAVES", "SQ", 4, &one, 1, &need) == simErrorInvalidValue);
    CHECK(need == g_cap->first[0].size());
    simToolComplete(l);
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

Captured run(simKernel_t k, int device, uint32_t n, uint32_t block) {
    Captured cap;
    g_cap = &cap;
    CHECK_OK(simSetDevice(device));
    float* x = nullptr;
    CHECK_OK(simMalloc(reinterpret_cast<void**>(&x), n * sizeof(float)));
    CHECK_OK(simMemset(x, 0, n * sizeof(float)));
    AxpyArgs args{x, n};
    CHECK_OK(simLaunchKernel(k, simDim3{(n + block - 1) / block, 1, 1}, simDim3{block, 1, 1}, 0, nullptr, &args, sizeof args));
    CHECK_OK(simDeviceSynchronize());
    float first = -1;
    CHECK_OK(simMemcpy(&first, x, sizeof first));
    CHECK(first == 3.0f);  // executed twice: 0 -> 1 -> 3
    CHECK_OK(simFree(x));
    g_cap = nullptr;
    return cap;
}

}  // namespace

int main() {
    size_t n = 0;
    CHECK_OK(simToolCounterInstances(0, "SQ", &n));
    CHECK(n == 8);
    CHECK_OK(simToolCounterInstances(0, "TCC", &n));
    CHECK(n == 16);
    CHECK_OK(simToolCounterInstances(0, "GRBM", &n));
    CHECK(n == 1);
    CHECK_OK(simToolCounterInstances(1, "SQ", &n));
    CHECK(n == 32);
    CHECK_OK(simToolCounterInstances(1, "SPI", &n));
    CHECK(n == 32);
    CHECK_OK(simToolCounterInstances(1, "TCC", &n));
    CHECK(n == 128);
    CHECK_OK(simToolCounterInstances(1, "GRBM", &n));
    CHECK(n == 8);
    CHECK(simToolCounterIsComputed("SQ_WAVES") == 1);
    CHECK(simToolCounterIsComputed("TA_BUSY_avr") == 0);

    simKernel_t k = nullptr;
    simKernelAttrs attrs{};
    CHECK_OK(simRegisterKernel("_Z4axpyPfj", axpy, &attrs, &k));
    CHECK_OK(simToolSetLaunchHook(hook, nullptr));

    // gfx90a: 1000 items in groups of 96 -> 11 groups of 2 waves = 22 waves over 8 engines.
    const uint32_t items = 1000, block = 96;
    Captured a = run(k, 0, items, block);
    Captured b = run(k, 0, items, block);  // another buffer, another run: same values
    CHECK(a.first.size() == std::size(kCounters));
    for (size_t i = 0; i < a.first.size() && i < a.second.size() && i < b.first.size(); ++i) {
        if (a.first[i] != a.second[i] || a.first[i] != b.first[i])
            std::fprintf(stderr, "counter %s differs between executions\n", kCounters[i]);
        CHECK(a.first[i] == a.second[i]);
        CHECK(a.first[i] == b.first[i]);
    }
    if (a.first.size() == std::size(kCounters)) {
        const auto& waves = a.first[0];
        CHECK(waves.size() == 8);
        CHECK(sum(waves) == 22);
        CHECK(waves[0] == 4 && waves[2] == 4 && waves[3] == 2);  // groups 0,8 / 2,10 on engines 0 and 2
        CHECK(sum(a.first[1]) == 44);                            // 2 VALU per wave
        CHECK(sum(a.first[2]) == 110);                           // 5 SALU per wave
        CHECK(sum(a.first[3]) == 22 && sum(a.first[4]) == 22);
        CHECK(a.first[5].size() == 8 && a.first[5][0] == a.first[5][7]);  // SQ_CYCLES: the kernel's length
        CHECK(a.first[7].size() == 1 && a.first[7][0] == a.first[5][0]);  // GRBM_GUI_ACTIVE
        CHECK(a.first[7][0] > *std::max_element(a.first[6].begin(), a.first[6].end()));
        CHECK(a.first[9].size() == 16);
        // 4000 bytes read in 11 groups: engines 0..2 read two groups each.
        double tcc_reads = sum(a.first[9]);
        CHECK(tcc_reads >= 4000.0 / 128 && tcc_reads <= 4000.0 / 128 + 8);
        CHECK(sum(a.first[11]) == sum(a.first[9]) + sum(a.first[10]));
        CHECK(a.first[12].size() == 1 && a.first[12][0] == std::ceil(4000.0 / 64));
        // Counters the model does not compute: 0, one value per instance of their block.
        CHECK(a.first[14].size() == 8);
        CHECK(a.first[15].size() == 1);
        CHECK(sum(a.first[14]) == 0 && sum(a.first[15]) == 0);
        // Memory requests are full-size: 64-byte reads on gfx90a, none of 32 or 128 bytes, so
        // FETCH_SIZE is the bytes read; busy cycles stay within the kernel's.
        CHECK(sum(a.first[16]) >= 4000.0 / 64 && sum(a.first[16]) <= 4000.0 / 64 + 8);
        CHECK(sum(a.first[17]) == 0 && sum(a.first[20]) == 0);
        CHECK(a.first[18].size() == 1 && a.first[18][0] > 0 && a.first[18][0] <= a.first[7][0]);
        for (double v : a.first[19]) CHECK(v <= a.first[7][0]);
    }
    CHECK(a.r1.workgroups == 11 && a.r1.waves == 22);
    CHECK(a.r1.work[SIM_WORK_LOAD_BYTES] == 4000 && a.r1.work[SIM_WORK_STORE_BYTES] == 4000);

    // gfx942: the same launch spreads over 32 engines and 128 channels.
    Captured c = run(k, 1, items, block);
    if (c.first.size() == std::size(kCounters)) {
        CHECK(c.first[0].size() == 32);
        CHECK(sum(c.first[0]) == 22);
        CHECK(c.first[7].size() == 8);
        CHECK(c.first[9].size() == 128);
        CHECK(c.first[14].size() == 32);
        // MI300: 128-byte reads, every one of them counted by TCC_BUBBLE as well.
        CHECK(sum(c.first[16]) >= 4000.0 / 128 && sum(c.first[16]) <= 4000.0 / 128 + 8);
        CHECK(c.first[20] == c.first[16]);
    }

    CHECK_OK(simToolSetLaunchHook(nullptr, nullptr));
    return test_result("test_counters");
}
