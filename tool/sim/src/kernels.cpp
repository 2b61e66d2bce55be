// Kernels: the registry (and the tool's kernel callback), and execution of one launch: every
// work-group in order on the calling thread, with the work it reports accounted per shader engine.
#include "sim_internal.hpp"

#include <cstring>
#include <memory>
#include <mutex>

namespace gorocprof::sim {
namespace {

struct Registry {
    // Recursive: the tool's kernel callback may enumerate kernels while being told about one.
    std::recursive_mutex mutex;
    std::vector<std::unique_ptr<KernelRec>> kernels;  // never shrinks: handles stay valid
    simToolKernelFn callback = nullptr;
    void* callback_user = nullptr;
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: launches may run during exit
    return *r;
}

simKernelInfo to_info(KernelRec* k) {
    simKernelInfo info{};
    info.handle = reinterpret_cast<simKernel_t>(k);
    info.serial = k->serial;
    info.mangled_name = k->name.c_str();
    info.attrs = k->attrs;
    return info;
}

// Per work-group accumulator behind simKernelCtx::internal_.
struct GroupWork {
    uint64_t amount[SIM_WORK_KIND_COUNT];
};

bool is_instruction_kind(int kind) { return kind < SIM_WORK_LOAD_BYTES; }

}  // namespace

bool valid_kernel(simKernel_t k) {
    if (!k) return false;
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    for (const auto& rec : r.kernels)
        if (reinterpret_cast<simKernel_t>(rec.get()) == k) return true;
    return false;
}

simError_t execute_launch(LaunchRec& rec, simExecResult* out) {
    const simLaunch& l = rec.pub;
    const simAgentDesc& agent = agents()[static_cast<size_t>(l.agent)];
    simExecResult local;
    simExecResult& res = out ? *out : local;
    std::memset(&res, 0, sizeof res);
    const uint32_t n_se = agent.num_shader_engines;
    res.num_shader_engines = n_se;

    const uint64_t threads = static_cast<uint64_t>(l.block.x) * l.block.y * l.block.z;
    const uint32_t waves_per_group = static_cast<uint32_t>((threads + agent.wave_front_size - 1) / agent.wave_front_size);
    std::vector<unsigned char> lds(l.group_segment_size);

    simKernelCtx ctx{};
    ctx.gridDim = l.grid_blocks;
    ctx.blockDim = l.block;
    ctx.waveSize = agent.wave_front_size;
    ctx.wavesPerGroup = waves_per_group;
    ctx.device = l.agent;
    ctx.lds = lds.empty() ? nullptr : lds.data();
    ctx.ldsBytes = lds.size();
    GroupWork work{};
    ctx.internal_ = &work;

    res.start_ns = now_ns();
    uint64_t group = 0;
    for (uint32_t z = 0; z < l.grid_blocks.z; ++z)
        for (uint32_t y = 0; y < l.grid_blocks.y; ++y)
            for (uint32_t x = 0; x < l.grid_blocks.x; ++x, ++group) {
                ctx.blockIdx = simDim3{x, y, z};
                std::memset(&work, 0, sizeof work);
                if (!lds.empty()) std::memset(lds.data(), 0, lds.size());
                rec.kernel->fn(&ctx, rec.args.empty() ? nullptr : rec.args.data());
                const uint32_t se = static_cast<uint32_t>(group % n_se);
                res.se_workgroups[se] += 1;
                res.se_waves[se] += waves_per_group;
                for (int k = 0; k < SIM_WORK_KIND_COUNT; ++k) {
                    uint64_t v = is_instruction_kind(k) ? work.amount[k] * waves_per_group : work.amount[k];
                    res.se_work[se][k] += v;
                    res.work[k] += v;
                }
            }
    res.end_ns = now_ns();
    res.workgroups = group;
    res.waves = group * waves_per_group;
    return simSuccess;
}

}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

void simWork(const simKernelCtx* ctx, simWorkKind kind, uint64_t amount) {
    if (!ctx || !ctx->internal_ || kind < 0 || kind >= SIM_WORK_KIND_COUNT) return;
    static_cast<GroupWork*>(ctx->internal_)->amount[kind] += amount;
}

void simWorkValu(const simKernelCtx* ctx, uint64_t n) { simWork(ctx, SIM_WORK_VALU, n); }
void simWorkSalu(const simKernelCtx* ctx, uint64_t n) { simWork(ctx, SIM_WORK_SALU, n); }

void simWorkLds(const simKernelCtx* ctx, uint64_t n, uint64_t bytes) {
    simWork(ctx, SIM_WORK_LDS, n);
    simWork(ctx, SIM_WORK_LDS_BYTES, bytes);
}

void simWorkGlobalLoad(const simKernelCtx* ctx, uint64_t n, uint64_t bytes) {
    simWork(ctx, SIM_WORK_VMEM_RD, n);
    simWork(ctx, SIM_WORK_LOAD_BYTES, bytes);
}

void simWorkGlobalStore(const simKernelCtx* ctx, uint64_t n, uint64_t bytes) {
    simWork(ctx, SIM_WORK_VMEM_WR, n);
    simWork(ctx, SIM_WORK_STORE_BYTES, bytes);
}

static simError_t simRegisterKernel_body(const char* mangled_name, simKernelFn fn, const simKernelAttrs* attrs,
                             simKernel_t* handle) {
    const char* call = "simRegisterKernel";
    if (simError_t e = enter_app(call)) return e;
    if (!mangled_name || !*mangled_name || !fn || !handle)
        return fail(simErrorInvalidValue, call, "a name, a function and a handle pointer are required");
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    for (const auto& k : r.kernels) {
        if (k->name != mangled_name) continue;
        if (k->fn != fn)
            return fail(simErrorInvalidValue, call, std::string("'") + mangled_name + "' is already registered with another function");
        *handle = reinterpret_cast<simKernel_t>(k.get());
        return simSuccess;
    }
    auto rec = std::make_unique<KernelRec>();
    rec->name = mangled_name;
    rec->fn = fn;
    if (attrs) rec->attrs = *attrs;
    rec->serial = r.kernels.size() + 1;
    KernelRec* k = rec.get();
    r.kernels.push_back(std::move(rec));
    *handle = reinterpret_cast<simKernel_t>(k);
    if (r.callback) {
        simKernelInfo info = to_info(k);
        r.callback(&info, r.callback_user);
    }
    return simSuccess;
}

simError_t simToolSetKernelCallback(simToolKernelFn fn, void* user) {
    if (simError_t e = enter_tool("simToolSetKernelCallback")) return e;
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    r.callback = fn;
    r.callback_user = user;
    if (fn)
        for (size_t i = 0; i < r.kernels.size(); ++i) {
            simKernelInfo info = to_info(r.kernels[i].get());
            fn(&info, user);
        }
    return simSuccess;
}

simError_t simToolForEachKernel(simToolKernelFn fn, void* user) {
    if (simError_t e = enter_tool("simToolForEachKernel")) return e;
    if (!fn) return fail(simErrorInvalidValue, "simToolForEachKernel", "fn is NULL");
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    for (size_t i = 0; i < r.kernels.size(); ++i) {
        simKernelInfo info = to_info(r.kernels[i].get());
        fn(&info, user);
    }
    return simSuccess;
}

simError_t simToolExecute(const simLaunch* launch, simExecResult* result) {
    LaunchRec* rec = launch_rec(launch);
    if (!rec) return fail(simErrorInvalidHandle, "simToolExecute", "not a launch the runtime handed out");
    return execute_launch(*rec, result);
}

}  // extern "C"

// The reported face of simRegisterKernel (sim_tool.h, "API and copy tracing").
extern "C" {

simError_t simRegisterKernel(const char* mangled_name, simKernelFn fn, const simKernelAttrs* attrs,
                             simKernel_t* handle) {
    ApiScope api(SIM_API_ID_simRegisterKernel);
    api.enter([&](simToolApiCall& c) { c.kernel_name = mangled_name; });
    return api.ret(simRegisterKernel_body(mangled_name, fn, attrs, handle));
}

}  // extern "C"
