#include "fake_driver.hpp"

#include <cupti.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

namespace fakecuda {

State& state() {
    static State s;
    return s;
}

// Live blocks outlast a reset: a scanner's tables allocated before it are still the tool's memory.
void reset() {
    std::map<CUdeviceptr, size_t> blocks = std::move(state().blocks);
    state() = State{};
    state().blocks = std::move(blocks);
}

namespace {
// The live cuMemAlloc block that p lies in, or blocks.end().
std::map<CUdeviceptr, size_t>::const_iterator block_holding(CUdeviceptr p) {
    const auto& blocks = state().blocks;
    auto it = blocks.upper_bound(p);
    if (it == blocks.begin()) return blocks.end();
    --it;
    return p < it->first + it->second ? it : blocks.end();
}
}  // namespace

bool fits_its_block(CUdeviceptr p, size_t bytes) {
    auto it = block_holding(p);
    return it == state().blocks.end() || p + bytes <= it->first + it->second;
}

bool in_a_block(CUdeviceptr p, size_t bytes) {
    auto it = block_holding(p);
    return it != state().blocks.end() && p + bytes <= it->first + it->second;
}

}  // namespace fakecuda

namespace {
int module_token, function_token, flush_module_token, flush_token;
}

extern "C" {

CUresult cuGetErrorName(CUresult error, const char** pStr) {
    *pStr = error == CUDA_SUCCESS ? "CUDA_SUCCESS" : error == CUDA_ERROR_INVALID_PTX ? "CUDA_ERROR_INVALID_PTX" : "CUDA_ERROR";
    return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** pStr) {
    *pStr = error == CUDA_ERROR_INVALID_PTX ? "a PTX JIT compilation failed" : "fake driver error";
    return CUDA_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult, const char** str) {
    *str = "fake CUPTI result";
    return CUPTI_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr* dptr, size_t bytesize) {
    void* p = std::calloc(1, bytesize);
    if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
    *dptr = reinterpret_cast<uintptr_t>(p);
    ++fakecuda::state().mem_allocs;
    fakecuda::state().blocks[*dptr] = bytesize;
    return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr dptr) {
    fakecuda::state().blocks.erase(dptr);
    std::free(reinterpret_cast<void*>(static_cast<uintptr_t>(dptr)));
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream) {
    if (!fakecuda::fits_its_block(dst, bytes)) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(dst)), src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream) {
    if (!fakecuda::fits_its_block(src, bytes)) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(dst, reinterpret_cast<const void*>(static_cast<uintptr_t>(src)), bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream) {
    ++fakecuda::state().memsets;
    if (!fakecuda::fits_its_block(dst, count * sizeof(uint32_t))) return CUDA_ERROR_INVALID_VALUE;
    auto* p = reinterpret_cast<uint32_t*>(static_cast<uintptr_t>(dst));
    for (size_t i = 0; i < count; ++i) p[i] = value;
    return CUDA_SUCCESS;
}

CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count) { return cuMemsetD32Async(dst, value, count, nullptr); }

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
    if (attribute != CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) return CUDA_ERROR_INVALID_VALUE;
    *value = fakecuda::state().l2_bytes;
    return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent ev) {
    auto& st = fakecuda::state();
    ++st.event_queries;
    auto it = st.queries_until_ready.find(ev);
    if (it == st.queries_until_ready.end() || it->second == 0) return CUDA_SUCCESS;
    if (it->second != fakecuda::kNever) --it->second;
    return CUDA_ERROR_NOT_READY;
}

CUresult cuStreamSynchronize(CUstream) {
    ++fakecuda::state().syncs;
    return CUDA_SUCCESS;
}

// The tool's two PTX modules: the reach scan and the cache flush.
CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*, void**) {
    if (fakecuda::state().load_fails || !image) return CUDA_ERROR_INVALID_PTX;
    const char* ptx = static_cast<const char*>(image);
    if (std::strstr(ptx, ".entry gorocprof_reach_scan")) *module = reinterpret_cast<CUmodule>(&module_token);
    else if (std::strstr(ptx, ".entry gorocprof_l2_flush")) *module = reinterpret_cast<CUmodule>(&flush_module_token);
    else return CUDA_ERROR_INVALID_PTX;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
    if (module == reinterpret_cast<CUmodule>(&module_token) && std::strcmp(name, "gorocprof_reach_scan") == 0)
        *f = reinterpret_cast<CUfunction>(&function_token);
    else if (module == reinterpret_cast<CUmodule>(&flush_module_token) && std::strcmp(name, "gorocprof_l2_flush") == 0)
        *f = reinterpret_cast<CUfunction>(&flush_token);
    else
        return CUDA_ERROR_NOT_FOUND;
    return CUDA_SUCCESS;
}

namespace {
// The flush kernel's parameters, in its PTX order: it reads n16 16-byte vectors from buf.
CUresult run_flush(unsigned gx, unsigned bx, void** params) {
    if (gx == 0 || bx == 0 || !params) return CUDA_ERROR_INVALID_VALUE;
    const auto buf = *static_cast<uint64_t*>(params[0]);
    const auto n16 = *static_cast<uint64_t*>(params[1]);
    const auto sink = *static_cast<uint64_t*>(params[2]);
    if (!buf || !sink || buf % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
    const auto* v = reinterpret_cast<const uint32_t*>(static_cast<uintptr_t>(buf));
    uint32_t acc = 0;
    for (uint64_t i = 0; i < 4 * n16; ++i) acc ^= v[i];
    if (acc == 0x9E3779B9u) *reinterpret_cast<uint32_t*>(static_cast<uintptr_t>(sink)) = acc;
    ++fakecuda::state().flushes;
    fakecuda::state().flush_bytes = 16 * n16;
    return CUDA_SUCCESS;
}
}  // namespace

namespace {
// An application kernel (State::kernels): its body, then the hook.
CUresult run_app_kernel(CUfunction f, void** params) {
    auto it = fakecuda::state().kernels.find(f);
    if (it == fakecuda::state().kernels.end()) return CUDA_ERROR_INVALID_VALUE;
    ++fakecuda::state().app_launches;
    it->second(params);
    if (fakecuda::state().on_kernel) fakecuda::state().on_kernel(f);
    return CUDA_SUCCESS;
}
}  // namespace

namespace {
// The scan kernel (reach.cpp's PTX), thread by thread in its order: its parameters, then each of `threads`
// threads' grid-stride loop over the round's words, finding each word's range from the previous one's on and
// the allocation a word points into by binary search over the sorted bases. The list of ranges is read from
// device memory the tool allocated (a table freed or too small fails the launch); a misaligned word load fails
// it as it would fault the kernel.
CUresult run_scan(uint64_t threads, void** params) {
    const auto ranges_ptr = *static_cast<uint64_t*>(params[0]);
    const auto nwords = *static_cast<uint64_t*>(params[1]);
    const auto* bases = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(*static_cast<uint64_t*>(params[2])));
    const auto* ends = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(*static_cast<uint64_t*>(params[3])));
    auto* hits = reinterpret_cast<uint32_t*>(static_cast<uintptr_t>(*static_cast<uint64_t*>(params[4])));
    const auto lo = *static_cast<uint64_t*>(params[5]);
    const auto hi = *static_cast<uint64_t*>(params[6]);
    const auto nranges = *static_cast<uint32_t*>(params[7]);
    const auto n = *static_cast<uint32_t*>(params[8]);
    if (!fakecuda::in_a_block(ranges_ptr, uint64_t(nranges) * 16)) return CUDA_ERROR_INVALID_VALUE;
    const auto* ranges = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(ranges_ptr));
    fakecuda::state().scan_ranges.push_back(nranges);
    for (uint64_t t = 0; t < threads; ++t) {
        uint32_t r = 0;
        for (uint64_t g = t; g < nwords; g += threads) {
            uint32_t rb = nranges;
            while (rb - r > 1) {
                const uint32_t mid = (r + rb) / 2;
                if (ranges[2 * mid + 1] <= g) r = mid;
                else rb = mid;
            }
            const uint64_t at = ranges[2 * r] + (g - ranges[2 * r + 1]) * 8;
            if (at % 8 != 0) return CUDA_ERROR_INVALID_VALUE;
            const uint64_t w = *reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(at));
            if (w < lo || w >= hi) continue;
            uint32_t a = 0, b = n;
            while (b - a > 1) {
                const uint32_t mid = (a + b) / 2;
                if (bases[mid] <= w) a = mid;
                else b = mid;
            }
            if (w < ends[a]) hits[a] = 1;
        }
    }
    return CUDA_SUCCESS;
}
}  // namespace

CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void**) {
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    ++fakecuda::state().ex_launches;
    return run_app_kernel(f, params);
}

CUresult cuKernelGetFunction(CUfunction* f, CUkernel kernel) {
    *f = reinterpret_cast<CUfunction>(kernel);  // one context: the kernel's function is itself
    return kernel ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned,
                        CUstream, void** params, void**) {
    if (fakecuda::state().kernels.count(f)) return run_app_kernel(f, params);
    if (f == reinterpret_cast<CUfunction>(&flush_token)) return run_flush(gx, bx, params);
    if (f != reinterpret_cast<CUfunction>(&function_token) || gx == 0 || bx == 0 || !params)
        return CUDA_ERROR_INVALID_VALUE;
    ++fakecuda::state().launches;
    return run_scan(uint64_t(gx) * bx, params);
}

CUresult cuMemGetAccess(unsigned long long* flags, const CUmemLocation*, CUdeviceptr ptr) {
    *flags = fakecuda::state().unreadable.count(ptr) ? CU_MEM_ACCESS_FLAGS_PROT_NONE : CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return CUDA_SUCCESS;
}

}  // extern "C"
