// Kernels and module globals: the __device__ variables a loaded cubin names, resolved to addresses at
// the first launch of one of its kernels, and each kernel described once (name, parameters, attributes).
#include "backend_state.hpp"
#include "check.hpp"
#include "core.hpp"

#include <mutex>
#include <string>
#include <vector>

namespace gorocprof::cuda {

using core::Core;

void on_module_loaded(const CUpti_ModuleResourceData* m) {
    if (!m || !m->pCubin) return;
    CubinRecord rec;
    if (!read_cubin_symbols(m->pCubin, m->cubinSize, &rec.symbols) || rec.symbols.globals.empty()) return;
    Backend& b = backend();
    std::lock_guard<std::mutex> lock(b.mu);
    size_t idx = b.cubins.size();
    for (const std::string& f : rec.symbols.functions) b.cubins_by_function[f].push_back(idx);
    b.cubins.push_back(std::move(rec));
}

// The driver allocation that holds a module global (its base), 0 when the driver does not say: globals
// of one allocation are saved as one range (PyTorch has hundreds, and every range is a driver copy call).
CUdeviceptr driver_extent(CUdeviceptr p) {
    CUdeviceptr base = 0;
    size_t size = 0;
    return cu(cuMemGetAddressRange(&base, &size, p), "cuMemGetAddressRange").ok && size ? base : 0;
}

namespace {

// Saves the __device__ variables of the kernel's module even when the host never looked them up:
// the module's cubin (seen at load time) names them, the driver gives their addresses.
void resolve_module_globals(CUcontext ctx, CUmodule mod, const std::string& symbol) {
    Backend& b = backend();
    if (!mod) return;
    // The cubins that name this kernel; each keeps its own sections (their indices are per cubin).
    std::vector<std::vector<CubinGlobal>> candidates;
    {
        std::lock_guard<std::mutex> lock(b.mu);
        if (b.modules_resolved.count(mod)) return;
        auto it = b.cubins_by_function.find(symbol);
        if (it == b.cubins_by_function.end()) return;  // no globals known for this kernel's cubin (yet)
        for (size_t idx : it->second) candidates.push_back(b.cubins[idx].symbols.globals);
    }
    for (const std::vector<CubinGlobal>& cubin : candidates) {
        std::vector<ResolvedGlobal> found;
        for (const CubinGlobal& g : cubin) {
            CUdeviceptr ptr = 0;
            size_t bytes = 0;
            // A symbol the module does not define (another module's, of the same cubin name) is skipped.
            if (cu(cuModuleGetGlobal(&ptr, &bytes, mod, g.name.c_str()), "cuModuleGetGlobal").ok && ptr && bytes)
                found.push_back({&g, ptr, bytes});
        }
        // A module section saved as one range instead of one per variable: every range is a driver copy call.
        for (const auto& [base, size] : global_spans(std::move(found)))
            b.tracker.add(ctx, base, size, AllocKind::Global, driver_extent(base), mod);
    }
    std::lock_guard<std::mutex> lock(b.mu);
    b.modules_resolved.insert(mod);
}

}  // namespace

const KernelEntry* known_kernel_entry(const ContextState& cs, CUfunction f) {
    Backend& b = backend();
    std::lock_guard<std::mutex> lock(b.mu);
    auto it = b.kernels.find(std::make_pair(cs.ctx, f));
    return it != b.kernels.end() ? &it->second : nullptr;
}

const KernelEntry* kernel_entry(ContextState& cs, CUfunction f, const char* symbol_name, bool app_launch) {
    Backend& b = backend();
    const std::pair<CUcontext, CUfunction> key(cs.ctx, f);
    if (const KernelEntry* known = known_kernel_entry(cs, f)) return known;
    core::KernelDesc desc;
    if (symbol_name && *symbol_name) {
        desc.mangled_name = symbol_name;
    } else {
        const char* n = nullptr;
        desc.mangled_name = (cu(cuFuncGetName(&n, f), "cuFuncGetName").ok && n) ? n : "unknown_kernel";
    }
    desc.agent_id = cs.agent_id;
    // The runtime may pass a context-independent CUkernel where a CUfunction is expected; the
    // attribute and module queries need the context's function.
    int regs = 0;
    if (!cu(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f), "cuFuncGetAttribute").ok) {
        CUfunction real = nullptr;
        if (cu(cuKernelGetFunction(&real, reinterpret_cast<CUkernel>(f)), "cuKernelGetFunction").ok && real) f = real;
    }
    KernelEntry e;
    size_t end = 0;
    for (size_t i = 0;; ++i) {
        size_t off = 0, sz = 0;
        // Not through cu(): which error it returns is the answer (the end of the list or an unknown list).
        const CUresult r = cuFuncGetParamInfo(f, i, &off, &sz);
        if (r != CUDA_SUCCESS) {
            // An index past the last parameter is an invalid value; anything else (an old driver) means
            // the list is not known, and snapshots of this kernel copy everything.
            e.params_known = r == CUDA_ERROR_INVALID_VALUE;
            break;
        }
        e.params.push_back({off, sz});
        end = off + sz;
    }
    desc.kernarg_size = static_cast<int64_t>(end);
    int v = 0;
    // An attribute the driver does not give stays 0 in the kernel's record.
    if (cu(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f), "cuFuncGetAttribute").ok) e.static_shared = v;
    if (cu(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f), "cuFuncGetAttribute").ok) e.local_bytes = v;
    desc.group_segment_size = e.static_shared;
    desc.private_segment_size = e.local_bytes;
    if (cu(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f), "cuFuncGetAttribute").ok) desc.vgpr = v;
    // No module known: its globals count as reached (reach.hpp).
    if (!cu(cuFuncGetModule(&e.module, f), "cuFuncGetModule").ok) e.module = nullptr;
    resolve_module_globals(cs.ctx, e.module, desc.mangled_name);
    // Once per kernel: the stack walk costs microseconds, and a kernel's launcher does not change.
    e.communication = b.comm.classify(desc.mangled_name, e.module, app_launch ? launching_communication_library() : "");
    e.name = desc.mangled_name;
    e.ref = Core::instance().register_kernel(desc);
    std::lock_guard<std::mutex> lock(b.mu);
    return &b.kernels.emplace(key, std::move(e)).first->second;
}

}  // namespace gorocprof::cuda
