// Agents, counters, dimensions and counter configurations of the emulated SDK, built from the sim
// runtime's agents and the SDK's counter definitions.
#include "emulator.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace gorocprof::rocmemu {
namespace {

constexpr rocprofiler_counter_dimension_id_t kDimXcc = 1, kDimShaderEngine = 3, kDimInstance = 7;
constexpr int kPositionBits = 6;
// Agent handles are opaque in the SDK; these differ from node ids on purpose, so a tool that mixes
// the two up is caught by the tests.
constexpr uint64_t kAgentHandleBase = 0x1000;

std::string library_dir() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&library_dir), &info) == 0 || info.dli_fname == nullptr) return ".";
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

Options read_options() {
    Options o;
    if (const char* v = std::getenv("ROCP_TOOL_LIBRARIES")) {
        std::string list = v;
        size_t start = 0;
        while (start <= list.size()) {
            size_t colon = list.find(':', start);
            std::string item = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            if (!item.empty()) o.tool_libraries.push_back(item);
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
    }
    if (const char* v = std::getenv("GOROCPROF_ROCM_EMULATOR_KERNEL_REPLAY")) o.kernel_replay = std::strcmp(v, "0") != 0;
    if (const char* v = std::getenv("GOROCPROF_ROCM_EMULATOR_REPLAY_KIND")) {
        int kind = std::atoi(v);
        if (kind > ROCPROFILER_CALLBACK_TRACING_NONE && kind != ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT)
            o.replay_kind = kind;
        else
            say("GOROCPROF_ROCM_EMULATOR_REPLAY_KIND: '" + std::string(v) + "' is not a free kind number; using " +
                std::to_string(o.replay_kind));
    }
    o.share_dir = library_dir() + "/../share/rocprofiler-sdk";
    return o;
}

// Instances of a block on a simulated agent, as the sim's counter model lays them out: per shader
// engine, per L2 channel or per XCC, an XCC owning consecutive engines and channels.
std::vector<Dimension> block_dims(const simAgentDesc& d, const std::string& block) {
    std::vector<Dimension> dims{{"DIMENSION_XCC", d.num_xcc, kDimXcc}};
    uint32_t xcc = d.num_xcc == 0 ? 1 : d.num_xcc;
    if (block == "SQ" || block == "SPI" || block == "GRBM_SE")
        dims.push_back({"DIMENSION_SHADER_ENGINE", d.num_shader_engines / xcc, kDimShaderEngine});
    else if (block == "TCC")
        dims.push_back({"DIMENSION_INSTANCE", d.tcc_channels / xcc, kDimInstance});
    return dims;
}

void fill_instances(AgentCounter& c) {
    c.instances = 1;
    for (const Dimension& d : c.dims) c.instances *= d.size;
    for (const Dimension& d : c.dims) c.dim_infos.push_back({d.name.c_str(), d.size, d.id});
    for (auto& d : c.dim_infos) c.dim_ptrs.push_back(&d);
    c.inst_dim_infos.reserve(c.instances * c.dims.size());
    c.inst_infos.reserve(c.instances);
    for (size_t i = 0; i < c.instances; ++i) {
        size_t rest = i, first = c.inst_dim_infos.size();
        std::vector<size_t> pos(c.dims.size());
        for (size_t k = c.dims.size(); k-- > 0;) {
            pos[k] = rest % c.dims[k].size;
            rest /= c.dims[k].size;
        }
        for (size_t k = 0; k < c.dims.size(); ++k)
            c.inst_dim_infos.push_back({sizeof(rocprofiler_counter_dimension_info_t), c.dims[k].name.c_str(), pos[k]});
        c.inst_infos.push_back({sizeof(rocprofiler_counter_record_dimension_instance_info_t), encode_instance(c, i),
                                c.id.handle, c.dims.size(), nullptr});
        c.inst_infos.back().dimensions = reinterpret_cast<const rocprofiler_counter_dimension_info_t**>(first);
    }
    c.inst_dim_ptrs.reserve(c.inst_dim_infos.size());
    for (auto& d : c.inst_dim_infos) c.inst_dim_ptrs.push_back(&d);
    for (auto& inst : c.inst_infos) {
        inst.dimensions = c.inst_dim_ptrs.data() + reinterpret_cast<uintptr_t>(inst.dimensions);
        c.inst_ptrs.push_back(&inst);
    }
}

void add_cpu(State& s) {
    auto a = std::make_unique<Agent>();
    a->name = "CPU (simulated host)";
    a->product = a->name;
    a->vendor = "CPU";
    a->model = a->name;
    rocprofiler_agent_v0_t& i = a->info;
    i.size = sizeof i;
    i.id.handle = kAgentHandleBase;
    i.type = ROCPROFILER_AGENT_TYPE_CPU;
    i.cpu_cores_count = 1;
    i.node_id = 0;
    i.logical_node_id = 0;
    i.logical_node_type_id = 0;
    s.agents.push_back(std::move(a));
}

bool add_gpu(State& s, int index, int gpu_slot, std::string* error) {
    simAgentDesc d{};
    if (simToolGetAgent(index, &d) != simSuccess) {
        *error = std::string("simToolGetAgent: ") + simGetLastErrorMessage();
        return false;
    }
    auto a = std::make_unique<Agent>();
    a->name = d.name;
    a->product = d.product_name;
    a->vendor = d.vendor;
    a->model = d.product_name;
    a->sim_index = index;
    rocprofiler_agent_v0_t& i = a->info;
    uint32_t node = static_cast<uint32_t>(index) + 1;  // KFD: the CPU is node 0
    i.size = sizeof i;
    i.id.handle = kAgentHandleBase + 0x10 * node;
    i.type = ROCPROFILER_AGENT_TYPE_GPU;
    i.simd_count = d.cu_count * d.simd_per_cu;
    i.max_waves_per_simd = d.max_waves_per_simd;
    i.lds_size_in_kb = d.lds_size_kb;
    i.wave_front_size = d.wave_front_size;
    i.num_xcc = d.num_xcc;
    i.cu_count = d.cu_count;
    i.array_count = d.num_shader_engines * d.simd_arrays_per_engine;
    i.num_shader_banks = d.num_shader_engines;
    i.simd_arrays_per_engine = d.simd_arrays_per_engine;
    i.cu_per_simd_array = d.cu_per_simd_array;
    i.simd_per_cu = d.simd_per_cu;
    i.gfx_target_version = d.gfx_target_version;
    i.vendor_id = static_cast<uint16_t>(d.vendor_id);
    i.device_id = static_cast<uint16_t>(d.device_id);
    i.location_id = d.location_id;
    i.max_engine_clk_fcompute = d.max_engine_clk_mhz;
    i.cu_per_engine = d.num_shader_engines ? d.cu_count / d.num_shader_engines : 0;
    i.max_waves_per_cu = d.max_waves_per_simd * d.simd_per_cu;
    i.family_id = d.family_id;
    i.workgroup_max_size = d.workgroup_max_size;
    i.local_mem_size = d.local_mem_size;
    i.gpu_id = (static_cast<uint64_t>(d.device_id) << 8) | static_cast<uint64_t>(index);
    i.workgroup_max_dim = {d.workgroup_max_size, d.workgroup_max_size, d.workgroup_max_size};
    i.node_id = node;
    i.logical_node_id = static_cast<int32_t>(node);
    i.logical_node_type_id = index;
    i.runtime_visibility.hsa = 1;
    i.runtime_visibility.hip = 1;
    a->catalog = catalog_for(a->name, error);
    if (a->catalog == nullptr) return false;
    for (size_t k = 0; k < a->catalog->counters.size(); ++k) {
        auto c = std::make_unique<AgentCounter>();
        c->def = &a->catalog->counters[k];
        c->id.handle = static_cast<uint64_t>(gpu_slot) * 1024 + k + 1;
        if (!c->def->derived()) c->dims = block_dims(d, c->def->block);
        fill_instances(*c);
        a->counter_ids.push_back(c->id);
        a->counters.push_back(std::move(c));
    }
    s.agents.push_back(std::move(a));
    return true;
}

bool build_locked(State& s, std::string* error) {
    if (!load_definitions(s.options.share_dir, error)) return false;
    int count = 0;
    if (simToolAgentCount(&count) != simSuccess) {
        *error = std::string("simToolAgentCount: ") + simGetLastErrorMessage();
        return false;
    }
    add_cpu(s);
    for (int i = 0; i < count; ++i)
        if (!add_gpu(s, i, i + 1, error)) return false;
    for (auto& a : s.agents) {
        a->info.name = a->name.c_str();
        a->info.vendor_name = a->vendor.c_str();
        a->info.product_name = a->product.c_str();
        a->info.model_name = a->model.c_str();
        s.agent_ptrs.push_back(&a->info);
    }
    return true;
}

}  // namespace

State& state() {
    static State* s = [] {
        auto* created = new State;  // never freed, see emulator.hpp
        created->options = read_options();
        return created;
    }();
    return *s;
}

void say(const std::string& text) { std::fprintf(stderr, "rocprofiler-sdk-emulator: %s\n", text.c_str()); }

bool start(std::string* error) {
    static std::mutex mu;
    static int result = -1;
    static std::string first_error;
    std::lock_guard<std::mutex> lock(mu);
    if (result < 0) {
        State& s = state();
        std::lock_guard<std::mutex> state_lock(s.mu);
        result = build_locked(s, &first_error) ? 1 : 0;
    }
    if (result == 0) *error = first_error;
    return result == 1;
}

rocprofiler_counter_instance_id_t encode_instance(const AgentCounter& c, size_t linear) {
    rocprofiler_counter_instance_id_t id = c.id.handle << 48;
    for (size_t k = c.dims.size(); k-- > 0;) {
        uint64_t pos = linear % c.dims[k].size;
        linear /= c.dims[k].size;
        id |= pos << ((c.dims[k].id - 1) * kPositionBits);
    }
    return id;
}

const Agent* agent_by_handle(uint64_t handle) {
    for (const auto& a : state().agents)
        if (a->info.id.handle == handle) return a.get();
    return nullptr;
}

const Agent* agent_by_sim_index(int index) {
    for (const auto& a : state().agents)
        if (a->sim_index == index) return a.get();
    return nullptr;
}

const AgentCounter* counter_by_id(uint64_t handle, const Agent** agent) {
    for (const auto& a : state().agents) {
        for (const auto& c : a->counters) {
            if (c->id.handle != handle) continue;
            if (agent != nullptr) *agent = a.get();
            return c.get();
        }
    }
    return nullptr;
}

const CounterConfig* config_by_handle(uint64_t handle) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    return handle == 0 || handle > s.configs.size() ? nullptr : s.configs[handle - 1].get();
}

}  // namespace gorocprof::rocmemu

using namespace gorocprof::rocmemu;

extern "C" {

rocprofiler_status_t rocprofiler_query_available_agents(rocprofiler_agent_version_t version,
                                                        rocprofiler_query_available_agents_cb_t callback,
                                                        size_t agent_size, void* user_data) {
    std::string error;
    if (!start(&error)) return ROCPROFILER_STATUS_ERROR;
    if (version != ROCPROFILER_AGENT_INFO_VERSION_0 || callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (agent_size > sizeof(rocprofiler_agent_v0_t)) return ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI;
    State& s = state();
    return callback(version, s.agent_ptrs.data(), s.agent_ptrs.size(), user_data);
}

rocprofiler_status_t rocprofiler_iterate_agent_supported_counters(rocprofiler_agent_id_t agent_id,
                                                                  rocprofiler_available_counters_cb_t cb, void* user_data) {
    const Agent* a = agent_by_handle(agent_id.handle);
    if (a == nullptr) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    if (cb == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (a->counter_ids.empty()) return ROCPROFILER_STATUS_ERROR;
    // The SDK owns the array; a tool that writes to it must not change ours.
    std::vector<rocprofiler_counter_id_t> copy = a->counter_ids;
    return cb(agent_id, copy.data(), copy.size(), user_data);
}

rocprofiler_status_t rocprofiler_query_counter_info(rocprofiler_counter_id_t counter_id,
                                                    rocprofiler_counter_info_version_id_t version, void* info) {
    const AgentCounter* c = counter_by_id(counter_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    if (info == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const CounterDef& d = *c->def;
    if (version == ROCPROFILER_COUNTER_INFO_VERSION_0) {
        auto* v0 = static_cast<rocprofiler_counter_info_v0_t*>(info);
        std::memset(v0, 0, sizeof *v0);
        v0->id = c->id;
        v0->name = d.name.c_str();
        v0->description = d.description.c_str();
        v0->block = d.block.c_str();
        v0->expression = d.expression.c_str();
        v0->is_derived = d.derived() ? 1 : 0;
        return ROCPROFILER_STATUS_SUCCESS;
    }
    if (version != ROCPROFILER_COUNTER_INFO_VERSION_1) return ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI;
    auto* v1 = static_cast<rocprofiler_counter_info_v1_t*>(info);
    std::memset(v1, 0, sizeof *v1);
    v1->size = sizeof *v1;
    v1->id = c->id;
    v1->name = d.name.c_str();
    v1->description = d.description.c_str();
    v1->block = d.block.c_str();
    v1->expression = d.expression.c_str();
    v1->is_derived = d.derived() ? 1 : 0;
    v1->dimensions_count = c->dim_ptrs.size();
    v1->dimensions = const_cast<const rocprofiler_counter_record_dimension_info_t**>(c->dim_ptrs.data());
    v1->dimensions_instances_count = c->inst_ptrs.size();
    v1->dimensions_instances =
        const_cast<const rocprofiler_counter_record_dimension_instance_info_t**>(c->inst_ptrs.data());
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_record_counter_id(rocprofiler_counter_instance_id_t id,
                                                         rocprofiler_counter_id_t* counter_id) {
    if (counter_id == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    counter_id->handle = id >> 48;
    return counter_by_id(counter_id->handle) != nullptr ? ROCPROFILER_STATUS_SUCCESS : ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
}

rocprofiler_status_t rocprofiler_query_record_dimension_position(rocprofiler_counter_instance_id_t id,
                                                                 rocprofiler_counter_dimension_id_t dim, size_t* pos) {
    if (pos == nullptr || dim == 0 || dim > 7) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *pos = static_cast<size_t>((id >> ((dim - 1) * kPositionBits)) & ((1u << kPositionBits) - 1));
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_counter_instance_count(rocprofiler_agent_id_t agent_id,
                                                              rocprofiler_counter_id_t counter_id, size_t* instance_count) {
    const Agent* a = nullptr;
    const AgentCounter* c = counter_by_id(counter_id.handle, &a);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    if (a->info.id.handle != agent_id.handle) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
    if (instance_count == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *instance_count = c->instances;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_create_counter_config(rocprofiler_agent_id_t agent_id,
                                                       rocprofiler_counter_id_t* counters_list, size_t counters_count,
                                                       rocprofiler_counter_config_id_t* config_id) {
    const Agent* agent = agent_by_handle(agent_id.handle);
    if (agent == nullptr) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    if (config_id == nullptr || (counters_count > 0 && counters_list == nullptr))
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    auto cfg = std::make_unique<CounterConfig>();
    cfg->agent = agent;
    if (config_id->handle != 0) {
        const CounterConfig* base = config_by_handle(config_id->handle);
        if (base == nullptr) return ROCPROFILER_STATUS_ERROR_CONFIG_NOT_FOUND;
        if (base->agent != agent) return ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH;
        cfg->counters = base->counters;
    }
    for (size_t i = 0; i < counters_count; ++i) {
        const Agent* owner = nullptr;
        const AgentCounter* c = counter_by_id(counters_list[i].handle, &owner);
        if (c == nullptr) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
        if (owner != agent) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
        // The emulator collects base counters only (gorocprof evaluates derived ones in Go).
        if (c->def->derived()) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
        bool duplicate = false;
        for (const AgentCounter* have : cfg->counters) duplicate = duplicate || have == c;
        if (!duplicate) cfg->counters.push_back(c);
    }
    if (cfg->counters.empty()) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::map<std::string, int> per_block;
    for (const AgentCounter* c : cfg->counters) {
        int used = ++per_block[c->def->block];
        auto limit = agent->catalog->limits.find(c->def->block);
        if (limit != agent->catalog->limits.end() && used > limit->second) return ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT;
    }
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    s.configs.push_back(std::move(cfg));
    config_id->handle = s.configs.size();
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_destroy_counter_config(rocprofiler_counter_config_id_t config_id) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    if (config_id.handle == 0 || config_id.handle > s.configs.size() || !s.configs[config_id.handle - 1])
        return ROCPROFILER_STATUS_ERROR_CONFIG_NOT_FOUND;
    // Kept alive: a dispatch in flight may still read it; the handle is dead from now on.
    s.retired_configs.push_back(std::move(s.configs[config_id.handle - 1]));
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
