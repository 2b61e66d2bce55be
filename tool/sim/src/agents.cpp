// The simulated agents: one table row per supported architecture, modelled on the AMD Instinct part
// that carries it, and the parsing of GOROCPROF_SIM_AGENTS.
#include "sim_internal.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gorocprof::sim {
namespace {

struct Arch {
    const char* name;
    const char* product;
    uint32_t cu_count;
    uint32_t num_xcc;
    uint32_t se_per_xcc;
    uint32_t cu_per_simd_array;  // rounded up where an engine's CUs do not divide evenly
    uint32_t max_waves_per_simd;
    uint32_t lds_kb;
    uint32_t gfx_target_version;
    uint32_t device_id;
    uint32_t clk_mhz;
    uint64_t mem_gib;
    uint32_t tcc_per_xcc;
};

constexpr uint64_t kGiB = 1ull << 30;

// Figures of the public product specifications (CUs, XCDs, shader engines, clocks, HBM size).
const Arch kArchs[] = {
    {"gfx908", "AMD Instinct MI100 (simulated)", 120, 1, 8, 15, 10, 64, 90008, 0x738c, 1502, 32, 16},
    {"gfx90a", "AMD Instinct MI210 (simulated)", 104, 1, 8, 13, 8, 64, 90010, 0x740f, 1700, 64, 16},
    {"gfx940", "AMD Instinct MI300A (simulated)", 228, 6, 4, 10, 8, 64, 90400, 0x74a0, 2100, 128, 16},
    {"gfx941", "AMD Instinct MI300X (simulated, gfx941)", 304, 8, 4, 10, 8, 64, 90401, 0x74a1, 2100, 192, 16},
    {"gfx942", "AMD Instinct MI300X (simulated)", 304, 8, 4, 10, 8, 64, 90402, 0x74a1, 2100, 192, 16},
    {"gfx950", "AMD Instinct MI355X (simulated)", 256, 8, 4, 8, 8, 160, 90500, 0x75a3, 2400, 288, 16},
};

std::string known_list() {
    std::string s;
    for (const Arch& a : kArchs) {
        if (!s.empty()) s += ", ";
        s += a.name;
    }
    return s;
}

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

simAgentDesc make_desc(const Arch& a, int index, uint64_t mem_override) {
    simAgentDesc d{};
    d.index = index;
    std::snprintf(d.name, sizeof d.name, "%s", a.name);
    std::snprintf(d.product_name, sizeof d.product_name, "%s", a.product);
    std::snprintf(d.vendor, sizeof d.vendor, "AMD");
    d.cu_count = a.cu_count;
    d.simd_per_cu = 4;
    d.num_xcc = a.num_xcc;
    d.num_shader_engines = a.num_xcc * a.se_per_xcc;
    d.simd_arrays_per_engine = 1;
    d.cu_per_simd_array = a.cu_per_simd_array;
    d.wave_front_size = 64;
    d.max_waves_per_simd = a.max_waves_per_simd;
    d.lds_size_kb = a.lds_kb;
    d.gfx_target_version = a.gfx_target_version;
    d.vendor_id = 0x1002;
    d.device_id = a.device_id;
    d.location_id = static_cast<uint32_t>(index) << 8;  // PCI bus = ordinal, device 0, function 0
    d.family_id = 141;                                   // AMDGPU_FAMILY_AI: every gfx9 part
    d.max_engine_clk_mhz = a.clk_mhz;
    d.workgroup_max_size = 1024;
    d.tcc_channels = a.num_xcc * a.tcc_per_xcc;
    d.local_mem_size = mem_override ? mem_override : a.mem_gib * kGiB;
    return d;
}

}  // namespace

bool parse_bytes(const char* text, uint64_t* out) {
    if (!text || !*text) return false;
    char* end = nullptr;
    unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text) return false;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k') mul = 1ull << 10, ++end;
    else if (*end == 'M' || *end == 'm') mul = 1ull << 20, ++end;
    else if (*end == 'G' || *end == 'g') mul = 1ull << 30, ++end;
    if (*end != '\0') return false;
    *out = v * mul;
    return true;
}

bool parse_agents(const char* spec, const char* device_memory, std::vector<simAgentDesc>* out,
                  std::string* error) {
    uint64_t mem_override = 0;
    if (device_memory && *device_memory && !parse_bytes(device_memory, &mem_override)) {
        *error = "GOROCPROF_SIM_DEVICE_MEMORY: '" + std::string(device_memory) +
                 "' is not a byte count (digits with an optional K, M or G)";
        return false;
    }
    std::string list = (spec && *spec) ? spec : "gfx90a,gfx942";
    out->clear();
    size_t pos = 0;
    while (true) {
        size_t comma = list.find(',', pos);
        std::string item = trim(list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        const Arch* found = nullptr;
        for (const Arch& a : kArchs)
            if (item == a.name) found = &a;
        if (!found) {
            *error = "GOROCPROF_SIM_AGENTS: unknown architecture '" + item + "' in '" + list +
                     "' (known: " + known_list() + ")";
            out->clear();
            return false;
        }
        out->push_back(make_desc(*found, static_cast<int>(out->size()), mem_override));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return true;
}

void agent_props(const simAgentDesc& a, simToolAgentPropFn fn, void* user) {
    const uint32_t cu_per_engine = a.cu_count / a.num_shader_engines;
    // KFD numbers the CPU node 0 and the GPUs from 1; the agent's id (index + 1) is its node, so
    // Agent_Id in the CSV files and Node_Id in agent_info.csv join. KFD's gpu_id is a per-GPU
    // number; here the device id and the ordinal make one that differs for every agent.
    const int64_t node = static_cast<int64_t>(a.index) + 1;
    fn("node_id", node, user);
    fn("logical_node_id", node, user);
    fn("gpu_id", (static_cast<int64_t>(a.device_id) << 8) | static_cast<int64_t>(a.index), user);
    fn("cu_count", a.cu_count, user);
    fn("simd_per_cu", a.simd_per_cu, user);
    fn("simd_count", static_cast<int64_t>(a.cu_count) * a.simd_per_cu, user);
    fn("wave_front_size", a.wave_front_size, user);
    fn("max_waves_per_simd", a.max_waves_per_simd, user);
    fn("max_waves_per_cu", static_cast<int64_t>(a.max_waves_per_simd) * a.simd_per_cu, user);
    fn("num_xcc", a.num_xcc, user);
    fn("num_shader_banks", a.num_shader_engines, user);
    fn("simd_arrays_per_engine", a.simd_arrays_per_engine, user);
    fn("array_count", static_cast<int64_t>(a.num_shader_engines) * a.simd_arrays_per_engine, user);
    fn("cu_per_simd_array", a.cu_per_simd_array, user);
    fn("cu_per_engine", cu_per_engine, user);
    // Not an agent_info.csv column, but the front end sizes TCC's channel dimension from it.
    fn("tcc_channels", a.tcc_channels, user);
    fn("lds_size_in_kb", a.lds_size_kb, user);
    fn("gfx_target_version", a.gfx_target_version, user);
    fn("family_id", a.family_id, user);
    fn("vendor_id", a.vendor_id, user);
    fn("device_id", a.device_id, user);
    fn("location_id", a.location_id, user);
    fn("max_engine_clk_fcompute", a.max_engine_clk_mhz, user);
    fn("workgroup_max_size", a.workgroup_max_size, user);
    fn("local_mem_size", static_cast<int64_t>(a.local_mem_size), user);
}

void agent_strings(const simAgentDesc& a, simToolAgentStringFn fn, void* user) {
    // A simulated device has no UUID and no PCI slot; the keys are present so output columns exist.
    fn("uuid", "", user);
    fn("pci_bus_id", "", user);
    fn("compute_capability", "", user);
}

}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

simError_t simToolAgentCount(int* count) {
    if (simError_t e = enter_tool("simToolAgentCount")) return e;
    if (!count) return fail(simErrorInvalidValue, "simToolAgentCount", "count is NULL");
    *count = static_cast<int>(agents().size());
    return simSuccess;
}

simError_t simToolGetAgent(int index, simAgentDesc* out) {
    if (simError_t e = enter_tool("simToolGetAgent")) return e;
    if (!out) return fail(simErrorInvalidValue, "simToolGetAgent", "out is NULL");
    if (!valid_agent(index))
        return fail(simErrorInvalidDevice, "simToolGetAgent", "no agent " + std::to_string(index));
    *out = agents()[static_cast<size_t>(index)];
    return simSuccess;
}

simError_t simToolForEachAgentProp(int index, simToolAgentPropFn fn, void* user) {
    if (simError_t e = enter_tool("simToolForEachAgentProp")) return e;
    if (!fn) return fail(simErrorInvalidValue, "simToolForEachAgentProp", "fn is NULL");
    if (!valid_agent(index))
        return fail(simErrorInvalidDevice, "simToolForEachAgentProp", "no agent " + std::to_string(index));
    agent_props(agents()[static_cast<size_t>(index)], fn, user);
    return simSuccess;
}

simError_t simToolForEachAgentString(int index, simToolAgentStringFn fn, void* user) {
    if (simError_t e = enter_tool("simToolForEachAgentString")) return e;
    if (!fn) return fail(simErrorInvalidValue, "simToolForEachAgentString", "fn is NULL");
    if (!valid_agent(index))
        return fail(simErrorInvalidDevice, "simToolForEachAgentString", "no agent " + std::to_string(index));
    agent_strings(agents()[static_cast<size_t>(index)], fn, user);
    return simSuccess;
}

}  // extern "C"
