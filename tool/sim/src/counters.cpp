// The counter model of the simulated agents. Counters that describe the work a kernel reported are
// computed from it (per shader engine, per XCC or per L2 channel, like the hardware's instances);
// every other counter reads 0: the model has no activity of that unit, and a made-up value would
// break the relations AMD's derived counters rely on (a subset no larger than its total, busy cycles
// within the kernel's). README.md lists the computed ones.
#include "sim_internal.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace gorocprof::sim {
namespace {

enum class Scope { ShaderEngine, Xcc, TccChannel };

Scope scope_of_block(const std::string& block) {
    if (block == "SQ" || block == "SPI" || block == "GRBM_SE") return Scope::ShaderEngine;
    if (block == "TCC") return Scope::TccChannel;
    return Scope::Xcc;
}

size_t instances(const simAgentDesc& a, Scope s) {
    switch (s) {
    case Scope::ShaderEngine: return a.num_shader_engines;
    case Scope::TccChannel: return a.tcc_channels;
    case Scope::Xcc: return a.num_xcc;
    }
    return 1;
}

std::string infer_block(const std::string& name) {
    static const char* const kPrefixes[] = {"GRBM_SE", "GRBM", "SQ", "SPI", "TCC", "TCP", "TCA", "TA", "TD", "CPC", "CPF"};
    for (const char* p : kPrefixes) {
        size_t n = std::strlen(p);
        if (name.size() > n && name.compare(0, n, p) == 0 && name[n] == '_') return p;
    }
    return name.substr(0, name.find('_'));
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Everything the formulas need, per shader engine, derived once per sample.
struct Model {
    const simAgentDesc* agent = nullptr;
    uint32_t n_se = 1, se_per_xcc = 1, tcc_per_xcc = 1, cu_per_se = 1;
    uint64_t threads_per_group = 0;
    uint32_t waves_per_group = 1;
    std::vector<uint64_t> busy;  // cycles each shader engine has waves
    uint64_t kernel_cycles = 0;
    uint32_t ea_read_bytes = 64;  // size of one L2-to-memory read request
    const simExecResult* r = nullptr;

    uint64_t w(uint32_t se, simWorkKind k) const { return r->se_work[se][k]; }

    // Cycles the SIMDs of one engine spend issuing: VALU is 4 cycles per wave instruction (wave64 on
    // SIMD16), MFMA 16, LDS 2, vector memory 4, scalar and branch 1.
    uint64_t issue(uint32_t se) const {
        return 4 * w(se, SIM_WORK_VALU) + w(se, SIM_WORK_SALU) + 2 * w(se, SIM_WORK_LDS) + w(se, SIM_WORK_SMEM) +
               w(se, SIM_WORK_BRANCH) + 16 * w(se, SIM_WORK_MFMA) +
               4 * (w(se, SIM_WORK_VMEM_RD) + w(se, SIM_WORK_VMEM_WR));
    }
    // Wave-cycles spent waiting: 64 per vector memory instruction, 16 per scalar load, 8 per LDS op.
    uint64_t wait_any(uint32_t se) const {
        return 64 * (w(se, SIM_WORK_VMEM_RD) + w(se, SIM_WORK_VMEM_WR)) + 16 * w(se, SIM_WORK_SMEM) +
               8 * w(se, SIM_WORK_LDS);
    }
    uint64_t xcc_bytes(uint32_t xcc, simWorkKind k) const {
        uint64_t sum = 0;
        for (uint32_t se = xcc * se_per_xcc; se < (xcc + 1) * se_per_xcc; ++se) sum += w(se, k);
        return sum;
    }
    // A total spread evenly over the channels of one XCC, the remainder on the first channels.
    static uint64_t share(uint64_t total, uint32_t parts, uint32_t i) {
        return total / parts + (i < total % parts ? 1 : 0);
    }
};

void build(Model& m, const simAgentDesc& a, const simLaunch& l, const simExecResult& r) {
    m.agent = &a;
    m.r = &r;
    m.n_se = a.num_shader_engines;
    m.se_per_xcc = std::max<uint32_t>(1, a.num_shader_engines / a.num_xcc);
    m.tcc_per_xcc = std::max<uint32_t>(1, a.tcc_channels / a.num_xcc);
    m.cu_per_se = std::max<uint32_t>(1, a.cu_count / a.num_shader_engines);
    m.threads_per_group = uint64_t{l.block.x} * l.block.y * l.block.z;
    m.waves_per_group = static_cast<uint32_t>(ceil_div(m.threads_per_group, a.wave_front_size));
    // MI300 parts (gfx94x, gfx950) read memory in 128-byte requests (TCC_BUBBLE), earlier ones in 64.
    m.ea_read_bytes = (std::strncmp(a.name, "gfx94", 5) == 0 || std::strncmp(a.name, "gfx95", 5) == 0) ? 128 : 64;
    m.busy.assign(m.n_se, 0);
    uint64_t longest = 0;
    for (uint32_t se = 0; se < m.n_se; ++se) {
        if (!r.se_waves[se]) continue;
        const uint64_t simds = uint64_t{m.cu_per_se} * a.simd_per_cu;
        const uint64_t mem = ceil_div(m.w(se, SIM_WORK_LOAD_BYTES) + m.w(se, SIM_WORK_STORE_BYTES), 64);
        m.busy[se] = ceil_div(m.issue(se), simds) + mem + 64;  // 64: wave launch latency
        longest = std::max(longest, m.busy[se]);
    }
    m.kernel_cycles = longest + 256;  // 256: dispatch set-up and drain
}

using Formula = std::function<double(const Model&, uint32_t instance)>;

struct Computed {
    const char* name;
    Scope scope;
    Formula f;
};

double tcc_reads(const Model& m, uint32_t c) {
    uint32_t xcc = c / m.tcc_per_xcc;
    return static_cast<double>(Model::share(ceil_div(m.xcc_bytes(xcc, SIM_WORK_LOAD_BYTES), 128), m.tcc_per_xcc, c % m.tcc_per_xcc));
}
double tcc_writes(const Model& m, uint32_t c) {
    uint32_t xcc = c / m.tcc_per_xcc;
    return static_cast<double>(Model::share(ceil_div(m.xcc_bytes(xcc, SIM_WORK_STORE_BYTES), 128), m.tcc_per_xcc, c % m.tcc_per_xcc));
}
// Requests from L2 to memory: reads of ea_read_bytes, writes of 64 bytes (every request full-size,
// so the 32-byte ones are 0 and FETCH_SIZE/WRITE_SIZE come out as the bytes moved).
double ea_reads(const Model& m, uint32_t c) {
    uint32_t xcc = c / m.tcc_per_xcc;
    return static_cast<double>(
        Model::share(ceil_div(m.xcc_bytes(xcc, SIM_WORK_LOAD_BYTES), m.ea_read_bytes), m.tcc_per_xcc, c % m.tcc_per_xcc));
}
double ea_writes(const Model& m, uint32_t c) {
    uint32_t xcc = c / m.tcc_per_xcc;
    return static_cast<double>(Model::share(ceil_div(m.xcc_bytes(xcc, SIM_WORK_STORE_BYTES), 64), m.tcc_per_xcc, c % m.tcc_per_xcc));
}
// Cycles the texture path (TA/TD/TCP) of an XCC works: the longest of its engines' vector memory
// issue and data transfer, within that engine's busy cycles.
double ta_busy(const Model& m, uint32_t x) {
    uint64_t b = 0;
    for (uint32_t s = x * m.se_per_xcc; s < (x + 1) * m.se_per_xcc; ++s) {
        if (!m.r->se_waves[s]) continue;
        const uint64_t simds = uint64_t{m.cu_per_se} * m.agent->simd_per_cu;
        const uint64_t issue = ceil_div(4 * (m.w(s, SIM_WORK_VMEM_RD) + m.w(s, SIM_WORK_VMEM_WR)), simds);
        b = std::max(b, issue + ceil_div(m.w(s, SIM_WORK_LOAD_BYTES) + m.w(s, SIM_WORK_STORE_BYTES), 64));
    }
    return static_cast<double>(b);
}

const std::vector<Computed>& computed() {
    using M = const Model&;
    auto d = [](uint64_t v) { return static_cast<double>(v); };
    static const std::vector<Computed> table = {
        {"SQ_WAVES", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.r->se_waves[s]); }},
        {"SPI_CSN_WAVE", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.r->se_waves[s]); }},
        {"SQ_INSTS_VALU", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_VALU)); }},
        {"SQ_INSTS_SALU", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_SALU)); }},
        {"SQ_INSTS_LDS", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_LDS)); }},
        {"SQ_INSTS_SMEM", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_SMEM)); }},
        {"SQ_INSTS_BRANCH", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_BRANCH)); }},
        {"SQ_INSTS_MFMA", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_MFMA)); }},
        {"SQ_INSTS_VMEM_RD", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_VMEM_RD)); }},
        {"SQ_INSTS_VMEM_WR", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_VMEM_WR)); }},
        {"SQ_INSTS_VMEM", Scope::ShaderEngine,
         [=](M m, uint32_t s) { return d(m.w(s, SIM_WORK_VMEM_RD) + m.w(s, SIM_WORK_VMEM_WR)); }},
        {"SQ_LDS_BANK_CONFLICT", Scope::ShaderEngine, [=](M, uint32_t) { return 0.0; }},
        {"SQ_CYCLES", Scope::ShaderEngine, [=](M m, uint32_t) { return d(m.kernel_cycles); }},
        {"SQ_BUSY_CYCLES", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.busy[s]); }},
        {"SQ_BUSY_CU_CYCLES", Scope::ShaderEngine,
         [=](M m, uint32_t s) { return d(m.busy[s] * std::min<uint64_t>(m.cu_per_se, m.r->se_workgroups[s]) / 4); }},
        {"SQ_WAIT_INST_ANY", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.wait_any(s) / 4); }},
        {"SQ_WAIT_INST_LDS", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(2 * m.w(s, SIM_WORK_LDS)); }},
        {"SQ_WAVE_CYCLES", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(m.issue(s) + m.wait_any(s)); }},
        {"SQ_ACTIVE_INST_VALU", Scope::ShaderEngine, [=](M m, uint32_t s) { return d(4 * m.w(s, SIM_WORK_VALU)); }},
        // Lanes active per VALU instruction: the group's work-items over its waves (a partial last wave).
        {"SQ_THREAD_CYCLES_VALU", Scope::ShaderEngine,
         [=](M m, uint32_t s) { return d(4 * m.w(s, SIM_WORK_VALU) * m.threads_per_group / m.waves_per_group); }},
        {"GRBM_COUNT", Scope::Xcc, [=](M m, uint32_t) { return d(m.kernel_cycles); }},
        {"GRBM_GUI_ACTIVE", Scope::Xcc, [=](M m, uint32_t) { return d(m.kernel_cycles); }},
        {"GRBM_SPI_BUSY", Scope::Xcc,
         [=](M m, uint32_t x) {
             uint64_t b = 0;
             for (uint32_t s = x * m.se_per_xcc; s < (x + 1) * m.se_per_xcc; ++s) b = std::max(b, m.busy[s]);
             return d(b);
         }},
        {"TCP_TOTAL_READ", Scope::Xcc, [=](M m, uint32_t x) { return d(ceil_div(m.xcc_bytes(x, SIM_WORK_LOAD_BYTES), 64)); }},
        {"TCP_TCC_READ_REQ", Scope::Xcc, [=](M m, uint32_t x) { return d(ceil_div(m.xcc_bytes(x, SIM_WORK_LOAD_BYTES), 64)); }},
        {"TCP_TOTAL_WRITE", Scope::Xcc, [=](M m, uint32_t x) { return d(ceil_div(m.xcc_bytes(x, SIM_WORK_STORE_BYTES), 64)); }},
        {"TCP_TCC_WRITE_REQ", Scope::Xcc, [=](M m, uint32_t x) { return d(ceil_div(m.xcc_bytes(x, SIM_WORK_STORE_BYTES), 64)); }},
        {"TA_TA_BUSY", Scope::Xcc, ta_busy},
        {"TD_TD_BUSY", Scope::Xcc, ta_busy},
        {"GRBM_TA_BUSY", Scope::Xcc, ta_busy},
        {"GRBM_TC_BUSY", Scope::Xcc, ta_busy},
        {"GRBM_CP_BUSY", Scope::Xcc, [](M, uint32_t) { return 256.0; }},  // dispatch set-up and drain
        {"TCC_READ", Scope::TccChannel, tcc_reads},
        {"TCC_EA_RDREQ", Scope::TccChannel, ea_reads},
        {"TCC_EA0_RDREQ", Scope::TccChannel, ea_reads},
        {"TCC_EA_RDREQ_DRAM", Scope::TccChannel, ea_reads},
        {"TCC_EA0_RDREQ_DRAM", Scope::TccChannel, ea_reads},
        {"TCC_BUBBLE", Scope::TccChannel, [](M m, uint32_t c) { return m.ea_read_bytes == 128 ? ea_reads(m, c) : 0.0; }},
        {"TCC_WRITE", Scope::TccChannel, tcc_writes},
        {"TCC_EA_WRREQ", Scope::TccChannel, ea_writes},
        {"TCC_EA0_WRREQ", Scope::TccChannel, ea_writes},
        {"TCC_EA_WRREQ_64B", Scope::TccChannel, ea_writes},
        {"TCC_EA0_WRREQ_64B", Scope::TccChannel, ea_writes},
        {"TCC_EA_WRREQ_DRAM", Scope::TccChannel, ea_writes},
        {"TCC_EA0_WRREQ_DRAM", Scope::TccChannel, ea_writes},
        // One request per cycle at most, within the kernel.
        {"TCC_BUSY", Scope::TccChannel,
         [=](M m, uint32_t c) { return std::min(d(m.kernel_cycles), tcc_reads(m, c) + tcc_writes(m, c)); }},
        {"TCC_CYCLE", Scope::TccChannel, [=](M m, uint32_t) { return d(m.kernel_cycles); }},
        // Cold L2: every request misses.
        {"TCC_REQ", Scope::TccChannel, [](M m, uint32_t c) { return tcc_reads(m, c) + tcc_writes(m, c); }},
        {"TCC_MISS", Scope::TccChannel, [](M m, uint32_t c) { return tcc_reads(m, c) + tcc_writes(m, c); }},
        {"TCC_HIT", Scope::TccChannel, [](M, uint32_t) { return 0.0; }},
    };
    return table;
}

const Computed* find_computed(const char* name) {
    for (const Computed& c : computed())
        if (std::strcmp(c.name, name) == 0) return &c;
    return nullptr;
}

}  // namespace
}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

simError_t simToolCounterInstances(int agent, const char* block, size_t* n) {
    if (simError_t e = enter_tool("simToolCounterInstances")) return e;
    if (!block || !n) return fail(simErrorInvalidValue, "simToolCounterInstances", "block and n are required");
    if (!valid_agent(agent))
        return fail(simErrorInvalidDevice, "simToolCounterInstances", "no agent " + std::to_string(agent));
    *n = instances(agents()[static_cast<size_t>(agent)], scope_of_block(block));
    return simSuccess;
}

int simToolCounterIsComputed(const char* name) { return name && find_computed(name) ? 1 : 0; }

simError_t simToolSampleCounter(const simLaunch* launch, const simExecResult* result, const char* name,
                                const char* block, int event, double* values, size_t max_values,
                                size_t* n_values) {
    const char* call = "simToolSampleCounter";
    if (simError_t e = enter_tool(call)) return e;
    const LaunchRec* rec = launch_rec(launch);
    if (!rec) return fail(simErrorInvalidHandle, call, "not a launch the runtime handed out");
    if (!result || !name || !*name || !n_values || (max_values && !values))
        return fail(simErrorInvalidValue, call, "result, a counter name and n_values are required");
    const simAgentDesc& a = agents()[static_cast<size_t>(launch->agent)];
    if (result->num_shader_engines != a.num_shader_engines)
        return fail(simErrorInvalidValue, call, "the result does not belong to an execution on this agent");
    const Computed* c = find_computed(name);
    const Scope scope = c ? c->scope : scope_of_block(block && *block ? std::string(block) : infer_block(name));
    const size_t n = instances(a, scope);
    *n_values = n;
    if (max_values < n)
        return fail(simErrorInvalidValue, call,
                    std::string(name) + " has " + std::to_string(n) + " instances on " + a.name + ", room for " +
                        std::to_string(max_values));
    if (c) {
        Model m;
        build(m, a, *launch, *result);
        for (size_t i = 0; i < n; ++i) values[i] = c->f(m, static_cast<uint32_t>(i));
    } else {
        std::fill(values, values + n, 0.0);
    }
    return simSuccess;
}

}  // extern "C"
