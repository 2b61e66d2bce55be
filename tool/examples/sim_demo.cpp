// sim-demo: five distinct kernels on every simulated agent, over three iterations and two streams,
// then a check that device memory holds EXACTLY what one unprofiled run leaves (the reference is
// computed on the host, independently of the kernels). Exit 0 only when everything matches: under
// kernel replay this is the proof that snapshot/restore left the app's memory as it should.
#include "common.hpp"

#include <cstring>
#include <string>
#include <vector>

using namespace examples;

namespace {

constexpr uint32_t kN = 1u << 14;   // elements per buffer
constexpr uint32_t kBlock = 256;    // work-items per work-group
constexpr uint32_t kGroups = kN / kBlock;
constexpr int kIterations = 3;

// Per device, the address of the module-scope `__device__ unsigned long long g_calls[2]`
// (launches of count_calls, items it counted), as compiled code would have it baked in.
std::vector<uint64_t*> g_calls;

// ---- kernels ----

struct UpdateArgs {
    float* x;
    uint32_t n;
    float a, b;
};
// template <typename T> void update(T* x, unsigned n, T a, T b): x = a*x + b in place.
void update_kernel(const simKernelCtx* ctx, const void* p) {
    const auto* args = static_cast<const UpdateArgs*>(p);
    uint64_t active = 0;
    for (uint32_t t = 0; t < ctx->blockDim.x; ++t) {
        uint64_t i = global_id(ctx, t);
        if (i >= args->n) continue;
        args->x[i] = args->a * args->x[i] + args->b;
        ++active;
    }
    simWorkGlobalLoad(ctx, 1, active * 4);
    simWorkValu(ctx, 3);
    simWorkSalu(ctx, 4);
    simWorkGlobalStore(ctx, 1, active * 4);
}

struct SaxpyArgs {
    const float* x;
    const float* y;
    float* out;
    uint32_t n;
    float a;
};
// saxpy(const float* x, const float* y, float* out, unsigned n, float a): out = a*x + y.
void saxpy_kernel(const simKernelCtx* ctx, const void* p) {
    const auto* args = static_cast<const SaxpyArgs*>(p);
    uint64_t active = 0;
    for (uint32_t t = 0; t < ctx->blockDim.x; ++t) {
        uint64_t i = global_id(ctx, t);
        if (i >= args->n) continue;
        args->out[i] = args->a * args->x[i] + args->y[i];
        ++active;
    }
    simWorkGlobalLoad(ctx, 2, active * 8);
    simWorkValu(ctx, 3);
    simWorkSalu(ctx, 5);
    simWorkGlobalStore(ctx, 1, active * 4);
}

struct ReduceArgs {
    const uint32_t* in;
    uint32_t n;
    uint32_t* partial;
};
// reduce_sum(const unsigned* in, unsigned n, unsigned* partial): one sum per work-group, by a tree
// in dynamic LDS.
void reduce_kernel(const simKernelCtx* ctx, const void* p) {
    const auto* args = static_cast<const ReduceArgs*>(p);
    auto* lds = static_cast<uint32_t*>(ctx->lds);
    const uint32_t block = ctx->blockDim.x;
    for (uint32_t t = 0; t < block; ++t) {
        uint64_t i = global_id(ctx, t);
        lds[t] = i < args->n ? args->in[i] : 0;
    }
    uint32_t steps = 0;
    for (uint32_t stride = block / 2; stride > 0; stride /= 2, ++steps)
        for (uint32_t t = 0; t < stride; ++t) lds[t] += lds[t + stride];
    args->partial[ctx->blockIdx.x] = lds[0];
    simWorkGlobalLoad(ctx, 1, uint64_t{block} * 4);
    simWorkLds(ctx, 1 + 2 * steps, uint64_t{block} * 4 * (1 + 2 * steps));
    simWorkValu(ctx, 2 + steps);
    simWorkSalu(ctx, 6 + steps);
    simWorkGlobalStore(ctx, 1, 4);
}

struct ReverseArgs {
    int32_t* data;
    uint32_t n;
};
constexpr uint32_t kReverseLds = kBlock * sizeof(int32_t);
// block_reverse(int* data, unsigned n): reverses each work-group's chunk through static LDS.
void reverse_kernel(const simKernelCtx* ctx, const void* p) {
    const auto* args = static_cast<const ReverseArgs*>(p);
    auto* lds = static_cast<int32_t*>(ctx->lds);
    const uint32_t block = ctx->blockDim.x;
    const uint64_t base = global_id(ctx, 0);
    for (uint32_t t = 0; t < block; ++t) lds[t] = args->data[base + t];
    for (uint32_t t = 0; t < block; ++t) args->data[base + t] = lds[block - 1 - t];
    simWorkGlobalLoad(ctx, 1, uint64_t{block} * 4);
    simWorkLds(ctx, 2, uint64_t{block} * 8);
    simWorkValu(ctx, 2);
    simWorkGlobalStore(ctx, 1, uint64_t{block} * 4);
}

struct CountArgs {
    uint32_t n;
};
// count_calls(unsigned n): bumps the module-scope counters (launches, items).
void count_kernel(const simKernelCtx* ctx, const void* p) {
    const auto* args = static_cast<const CountArgs*>(p);
    uint64_t* calls = g_calls[static_cast<size_t>(ctx->device)];
    if (ctx->blockIdx.x == 0) calls[0] += 1;
    uint64_t active = 0;
    for (uint32_t t = 0; t < ctx->blockDim.x; ++t)
        if (global_id(ctx, t) < args->n) ++active;
    calls[1] += active;
    simWorkSalu(ctx, 4);
    simWorkValu(ctx, 1);
    simWorkGlobalStore(ctx, 1, 8);
}

// ---- the reference: what one unprofiled run leaves, computed on the host ----

struct Buffers {
    std::vector<float> x, y, out;
    std::vector<uint32_t> u, partial;
    std::vector<int32_t> r;
    uint64_t calls[2] = {0, 0};
};

Buffers initial() {
    Buffers b;
    b.x.resize(kN);
    b.y.resize(kN);
    b.out.assign(kN, 0.0f);
    b.u.resize(kN);
    b.partial.assign(kGroups, 0);
    b.r.resize(kN);
    for (uint32_t i = 0; i < kN; ++i) {
        b.x[i] = static_cast<float>(i % 97) * 0.25f;
        b.y[i] = static_cast<float>(i % 13) - 6.0f;
        b.u[i] = static_cast<uint32_t>((uint64_t{i} * 2654435761u) % 1000u);
        b.r[i] = static_cast<int32_t>(i) - 5000;
    }
    return b;
}

float update_a(int it) { return 0.5f + 0.25f * static_cast<float>(it); }
float update_b(int it) { return static_cast<float>(it + 1); }
constexpr float kSaxpyA = 2.0f;

Buffers reference() {
    Buffers b = initial();
    for (int it = 0; it < kIterations; ++it) {
        for (uint32_t i = 0; i < kN; ++i) b.x[i] = update_a(it) * b.x[i] + update_b(it);
        for (uint32_t i = 0; i < kN; ++i) b.out[i] = kSaxpyA * b.x[i] + b.y[i];
        for (uint32_t g = 0; g < kGroups; ++g) {
            uint32_t s = 0;
            for (uint32_t t = 0; t < kBlock; ++t) s += b.u[g * kBlock + t];
            b.partial[g] = s;
        }
        for (uint32_t g = 0; g < kGroups; ++g)
            for (uint32_t t = 0; t < kBlock / 2; ++t) std::swap(b.r[g * kBlock + t], b.r[g * kBlock + kBlock - 1 - t]);
        b.calls[0] += 1;
        b.calls[1] += kN;
    }
    return b;
}

template <typename T>
bool compare(const char* what, int device, const std::vector<T>& got, const std::vector<T>& want) {
    for (size_t i = 0; i < want.size(); ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
            std::fprintf(stderr, "sim-demo: device %d: %s[%zu] = %s, expected %s\n", device, what, i,
                         std::to_string(got[i]).c_str(), std::to_string(want[i]).c_str());
            return false;
        }
    return true;
}

template <typename T>
T* device_copy(const std::vector<T>& host) {
    T* p = nullptr;
    SIM_CHECK(simMalloc(reinterpret_cast<void**>(&p), host.size() * sizeof(T)));
    SIM_CHECK(simMemcpy(p, host.data(), host.size() * sizeof(T)));
    return p;
}

template <typename T>
std::vector<T> host_copy(const T* p, size_t n) {
    std::vector<T> v(n);
    SIM_CHECK(simMemcpy(v.data(), p, n * sizeof(T)));
    return v;
}

struct Kernels {
    simKernel_t update, saxpy, reduce, reverse, count;
};

// Runs the whole sequence on one device; returns whether its memory matches the reference.
bool run_device(int device, const Kernels& k, const Buffers& want) {
    SIM_CHECK(simSetDevice(device));
    const uint64_t zero[2] = {0, 0};
    void* calls = nullptr;
    SIM_CHECK(simModuleGlobal("g_calls", sizeof zero, zero, &calls));
    g_calls[static_cast<size_t>(device)] = static_cast<uint64_t*>(calls);

    const Buffers init = initial();
    float* x = device_copy(init.x);
    float* y = device_copy(init.y);
    float* out = device_copy(init.out);
    uint32_t* u = device_copy(init.u);
    uint32_t* partial = device_copy(init.partial);
    int32_t* r = device_copy(init.r);

    simStream_t sa = nullptr, sb = nullptr;
    SIM_CHECK(simStreamCreate(&sa));
    SIM_CHECK(simStreamCreate(&sb));
    for (int it = 0; it < kIterations; ++it) {
        UpdateArgs ua{x, kN, update_a(it), update_b(it)};
        SIM_CHECK(simLaunchKernel(k.update, dim(kGroups), dim(kBlock), 0, sa, &ua, sizeof ua));
        SaxpyArgs sx{x, y, out, kN, kSaxpyA};
        SIM_CHECK(simLaunchKernel(k.saxpy, dim(kGroups), dim(kBlock), 0, sa, &sx, sizeof sx));
        ReduceArgs ra{u, kN, partial};
        SIM_CHECK(simLaunchKernel(k.reduce, dim(kGroups), dim(kBlock), kBlock * 4, sb, &ra, sizeof ra));
        ReverseArgs rv{r, kN};
        SIM_CHECK(simLaunchKernel(k.reverse, dim(kGroups), dim(kBlock), 0, sb, &rv, sizeof rv));
        CountArgs ca{kN};
        SIM_CHECK(simLaunchKernel(k.count, dim(kGroups), dim(kBlock), 0, sb, &ca, sizeof ca));
    }
    SIM_CHECK(simStreamSynchronize(sa));
    SIM_CHECK(simStreamSynchronize(sb));
    uint64_t done_a = 0, done_b = 0;
    SIM_CHECK(simStreamCompletedLaunches(sa, &done_a));
    SIM_CHECK(simStreamCompletedLaunches(sb, &done_b));

    bool ok = true;
    if (done_a != 2 * kIterations || done_b != 3 * kIterations) {
        std::fprintf(stderr, "sim-demo: device %d: %llu and %llu completions seen, expected %d and %d\n", device,
                     static_cast<unsigned long long>(done_a), static_cast<unsigned long long>(done_b),
                     2 * kIterations, 3 * kIterations);
        ok = false;
    }
    ok &= compare("x", device, host_copy(x, kN), want.x);
    ok &= compare("out", device, host_copy(out, kN), want.out);
    ok &= compare("partial", device, host_copy(partial, kGroups), want.partial);
    ok &= compare("r", device, host_copy(r, kN), want.r);
    ok &= compare("u", device, host_copy(u, kN), init.u);  // read-only input: must be untouched
    std::vector<uint64_t> got_calls = host_copy(static_cast<const uint64_t*>(calls), 2);
    ok &= compare("g_calls", device, got_calls, std::vector<uint64_t>{want.calls[0], want.calls[1]});

    SIM_CHECK(simStreamDestroy(sa));
    SIM_CHECK(simStreamDestroy(sb));
    for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(out), static_cast<void*>(u),
                    static_cast<void*>(partial), static_cast<void*>(r)})
        SIM_CHECK(simFree(p));
    return ok;
}

}  // namespace

int main() {
    g_app = "sim-demo";
    int devices = 0;
    SIM_CHECK(simGetDeviceCount(&devices));
    g_calls.assign(static_cast<size_t>(devices), nullptr);
    Kernels k{};
    k.update = register_kernel("_Z6updateIfEvPT_jS0_S0_", update_kernel, 16, 8);
    k.saxpy = register_kernel("_Z5saxpyPKfS0_Pfjf", saxpy_kernel, 20, 10);
    k.reduce = register_kernel("_Z10reduce_sumPKjjPj", reduce_kernel, 18, 6);
    k.reverse = register_kernel("_Z13block_reversePij", reverse_kernel, 14, 4, kReverseLds);
    k.count = register_kernel("_Z11count_callsj", count_kernel, 12, 2);

    const Buffers want = reference();
    bool ok = true;
    for (int d = 0; d < devices; ++d) ok &= run_device(d, k, want);
    const int launches = devices * kIterations * 5;
    if (!ok) {
        std::printf("sim-demo: FAIL: results differ from an unprofiled run (see above)\n");
        return 1;
    }
    std::printf("sim-demo: PASS: %d agents x %d iterations x 5 kernels (%d launches); every result matches an unprofiled run\n",
                devices, kIterations, launches);
    return 0;
}
