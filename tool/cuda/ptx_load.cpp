#include "ptx_load.hpp"

#include <cstdint>
#include <string>

namespace gorocprof::cuda {

PortStatus load_ptx_kernel(const char* ptx, const char* entry, CUmodule* module, CUfunction* fn) {
    char log[4096] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log))};
    PortStatus st = cu(cuModuleLoadDataEx(module, ptx, 2, opts, vals), "cuModuleLoadDataEx");
    if (!st.ok) {
        if (log[0]) st.reason += std::string(" (") + log + ")";
        return st;
    }
    return cu(cuModuleGetFunction(fn, *module, entry), "cuModuleGetFunction");
}

}  // namespace gorocprof::cuda
