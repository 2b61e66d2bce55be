// Modules loaded and unloaded while the app runs: each round loads a module (PTX) with a __device__
// counter, launches its kernel three times (each launch bumps the counter and writes the new value to
// a buffer), checks 1, 2, 3 and unloads the module. A replay that kept the previous module's variable
// (same address, stale module) would leave the counter bumped once per pass.
#include "check.cuh"

static const char kPtx[] = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .global .align 4 .u32 counter;
.visible .entry bump(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.global.u32 %r1, [counter];
    add.u32 %r2, %r1, 1;
    st.global.u32 [counter], %r2;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r2;
    ret;
}
)";

int main() {
    CHECK(cudaFree(nullptr));  // the primary context, current for the driver calls below
    unsigned* out;
    CHECK(cudaMalloc(&out, sizeof(unsigned)));
    const int rounds = 3, launches = 3;
    for (int r = 0; r < rounds; ++r) {
        CUmodule mod;
        CUfunction bump;
        CHECK_CU(cuModuleLoadData(&mod, kPtx));
        CHECK_CU(cuModuleGetFunction(&bump, mod, "bump"));
        CUdeviceptr counter;
        size_t bytes;
        CHECK_CU(cuModuleGetGlobal(&counter, &bytes, mod, "counter"));
        for (int k = 1; k <= launches; ++k) {
            CUdeviceptr p = reinterpret_cast<CUdeviceptr>(out);
            void* args[] = {&p};
            CHECK_CU(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
            unsigned got = 0, in_module = 0;
            CHECK_CU(cuMemcpyDtoH(&got, p, sizeof got));
            CHECK_CU(cuMemcpyDtoH(&in_module, counter, sizeof in_module));
            if (got != unsigned(k) || in_module != unsigned(k)) {
                std::fprintf(stderr, "FAIL module_unload: round %d launch %d: kernel saw %u, counter %u, want %d\n", r, k,
                             got, in_module, k);
                return 1;
            }
        }
        CHECK_CU(cuModuleUnload(mod));
    }
    CHECK(cudaFree(out));
    std::printf("PASS module_unload (%d rounds of %d launches)\n", rounds, launches);
    return 0;
}
