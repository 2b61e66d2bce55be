#include "sdk.hpp"

#include <algorithm>
#include <cstdio>

namespace gorocprof::rocm {

std::string status_text(rocprofiler_status_t st) {
    const char* name = rocprofiler_get_status_name(st);
    const char* text = rocprofiler_get_status_string(st);
    std::string s = name != nullptr ? name : "status " + std::to_string(static_cast<int>(st));
    if (text != nullptr && *text != '\0') s += std::string(": ") + text;
    return s;
}

bool check(rocprofiler_status_t st, const char* call, std::string* error) {
    if (st == ROCPROFILER_STATUS_SUCCESS) return true;
    *error = std::string(call) + ": " + status_text(st);
    return false;
}

const Counter* Agent::find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &counters[it->second];
}

const Counter* Agent::find(rocprofiler_counter_id_t id) const {
    auto it = by_handle.find(id.handle);
    return it == by_handle.end() ? nullptr : &counters[it->second];
}

namespace {

// The SDK's agents of one type, in the order it lists them; its agent records live as long as it does.
bool agents_of_type(rocprofiler_agent_type_t type, std::vector<const rocprofiler_agent_v0_t*>* out, std::string* error) {
    struct Query {
        rocprofiler_agent_type_t type;
        std::vector<const rocprofiler_agent_v0_t*>* out;
    } query{type, out};
    auto collect = [](rocprofiler_agent_version_t, const void** agents, size_t n, void* user) {
        auto* q = static_cast<Query*>(user);
        for (size_t i = 0; i < n; ++i) {
            const auto* a = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
            if (a->type == q->type) q->out->push_back(a);
        }
        return ROCPROFILER_STATUS_SUCCESS;
    };
    out->clear();
    return check(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, collect, sizeof(rocprofiler_agent_v0_t),
                                                    &query),
                 "rocprofiler_query_available_agents", error);
}

}  // namespace

bool gpu_agents(std::vector<Agent>* out, std::string* error) {
    std::vector<const rocprofiler_agent_v0_t*> found;
    if (!agents_of_type(ROCPROFILER_AGENT_TYPE_GPU, &found, error)) return false;
    out->clear();
    for (const auto* a : found) {
        Agent g;
        g.id = a->id;
        g.info = a;
        g.index = a->logical_node_type_id;
        out->push_back(std::move(g));
    }
    // logical_node_type_id is the GPU ordinal; keep that order whatever order the SDK lists them in.
    std::sort(out->begin(), out->end(), [](const Agent& a, const Agent& b) { return a.index < b.index; });
    return true;
}

bool load_counters(Agent& agent, std::string* error) {
    std::vector<rocprofiler_counter_id_t> ids;
    auto collect = [](rocprofiler_agent_id_t, rocprofiler_counter_id_t* counters, size_t n, void* user) {
        static_cast<std::vector<rocprofiler_counter_id_t>*>(user)->assign(counters, counters + n);
        return ROCPROFILER_STATUS_SUCCESS;
    };
    if (!check(rocprofiler_iterate_agent_supported_counters(agent.id, collect, &ids),
               "rocprofiler_iterate_agent_supported_counters", error))
        return false;
    agent.counters.clear();
    for (rocprofiler_counter_id_t id : ids) {
        rocprofiler_counter_info_v1_t info{};
        if (!check(rocprofiler_query_counter_info(id, ROCPROFILER_COUNTER_INFO_VERSION_1, &info),
                   "rocprofiler_query_counter_info", error))
            return false;
        Counter c;
        c.id = id;
        c.name = info.name != nullptr ? info.name : "";
        c.description = info.description != nullptr ? info.description : "";
        c.block = info.block != nullptr ? info.block : "";
        c.expression = info.expression != nullptr ? info.expression : "";
        c.derived = info.is_derived != 0;
        // The dimension structs lie one after another from dimensions[0].
        for (uint64_t d = 0; d < info.dimensions_count && info.dimensions != nullptr; ++d) {
            const rocprofiler_counter_record_dimension_info_t& di = (*info.dimensions)[d];
            c.dims.push_back({di.name != nullptr ? di.name : "", di.instance_size, di.id});
            c.instances *= di.instance_size;
        }
        agent.by_name[c.name] = agent.counters.size();
        agent.by_handle[c.id.handle] = agent.counters.size();
        agent.counters.push_back(std::move(c));
    }
    return true;
}

core::AgentInfo agent_info(const Agent& agent) {
    const rocprofiler_agent_v0_t& a = *agent.info;
    core::AgentInfo out;
    out.id = a.node_id;
    out.index = agent.index;
    out.name = a.name != nullptr ? a.name : "";
    out.product_name = a.product_name != nullptr ? a.product_name : "";
    out.vendor = a.vendor_name != nullptr ? a.vendor_name : "";
    out.type = "GPU";
    auto prop = [&](const char* key, int64_t v) { out.props.emplace_back(key, v); };
    prop("node_id", a.node_id);
    prop("logical_node_id", a.logical_node_id);
    prop("gpu_id", static_cast<int64_t>(a.gpu_id));
    prop("cu_count", a.cu_count);
    prop("simd_per_cu", a.simd_per_cu);
    prop("simd_count", a.simd_count);
    prop("wave_front_size", a.wave_front_size);
    prop("max_waves_per_simd", a.max_waves_per_simd);
    prop("max_waves_per_cu", a.max_waves_per_cu);
    prop("num_xcc", a.num_xcc);
    prop("num_shader_banks", a.num_shader_banks);
    prop("simd_arrays_per_engine", a.simd_arrays_per_engine);
    prop("array_count", a.array_count);
    prop("cu_per_simd_array", a.cu_per_simd_array);
    prop("cu_per_engine", a.cu_per_engine);
    // Not in the agent struct: the L2 channels are the instances of a TCC counter.
    for (const Counter& c : agent.counters) {
        if (c.block != "TCC" || c.derived) continue;
        prop("tcc_channels", static_cast<int64_t>(c.instances));
        break;
    }
    prop("lds_size_in_kb", a.lds_size_in_kb);
    prop("gfx_target_version", a.gfx_target_version);
    prop("family_id", a.family_id);
    prop("vendor_id", a.vendor_id);
    prop("device_id", a.device_id);
    prop("location_id", a.location_id);
    prop("max_engine_clk_fcompute", a.max_engine_clk_fcompute);
    prop("workgroup_max_size", a.workgroup_max_size);
    prop("local_mem_size", static_cast<int64_t>(a.local_mem_size));
    std::string uuid;
    bool any = false;
    for (uint8_t b : a.uuid.bytes) any = any || b != 0;
    if (any) {
        uuid = "GPU-";
        char hex[3];
        for (uint8_t b : a.uuid.bytes) {
            std::snprintf(hex, sizeof hex, "%02x", b);
            uuid += hex;
        }
    }
    std::string bus;
    if (a.location_id != 0 || a.domain != 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", a.domain, (a.location_id >> 8) & 0xff, (a.location_id >> 3) & 0x1f,
                      a.location_id & 0x7);
        bus = buf;
    }
    out.strings = {{"uuid", uuid}, {"pci_bus_id", bus}, {"compute_capability", ""}};
    return out;
}

bool cpu_agents(std::vector<core::AgentInfo>* out, std::string* error) {
    std::vector<const rocprofiler_agent_v0_t*> found;
    if (!agents_of_type(ROCPROFILER_AGENT_TYPE_CPU, &found, error)) return false;
    out->clear();
    for (const auto* a : found) {
        core::AgentInfo c;
        c.id = a->node_id;
        c.index = -1;
        c.name = a->name != nullptr ? a->name : "";
        c.product_name = a->product_name != nullptr ? a->product_name : "";
        c.vendor = a->vendor_name != nullptr ? a->vendor_name : "";
        c.type = "CPU";
        auto prop = [&](const char* key, int64_t v) { c.props.emplace_back(key, v); };
        prop("node_id", a->node_id);
        prop("logical_node_id", a->logical_node_id);
        prop("logical_node_type_id", a->logical_node_type_id);
        prop("cpu_cores_count", a->cpu_cores_count);
        prop("cpu_core_id_base", a->cpu_core_id_base);
        prop("max_engine_clk_ccompute", a->max_engine_clk_ccompute);
        prop("location_id", a->location_id);
        prop("domain", a->domain);
        prop("vendor_id", a->vendor_id);
        prop("device_id", a->device_id);
        prop("local_mem_size", static_cast<int64_t>(a->local_mem_size));
        c.strings = {{"model_name", a->model_name != nullptr ? a->model_name : ""}};
        out->push_back(std::move(c));
    }
    std::sort(out->begin(), out->end(), [](const core::AgentInfo& a, const core::AgentInfo& b) { return a.id < b.id; });
    return true;
}

bool agent_nodes(std::unordered_map<uint64_t, uint64_t>* out, std::string* error) {
    out->clear();
    for (rocprofiler_agent_type_t type : {ROCPROFILER_AGENT_TYPE_CPU, ROCPROFILER_AGENT_TYPE_GPU}) {
        std::vector<const rocprofiler_agent_v0_t*> found;
        if (!agents_of_type(type, &found, error)) return false;
        for (const auto* a : found) (*out)[a->id.handle] = a->node_id;
    }
    return true;
}

bool create_config(const Agent& agent, const std::vector<const Counter*>& counters,
                   rocprofiler_counter_config_id_t* config, rocprofiler_status_t* status, std::string* error) {
    std::vector<rocprofiler_counter_id_t> ids;
    std::string names;
    for (const Counter* c : counters) {
        ids.push_back(c->id);
        names += (names.empty() ? "" : ",") + c->name;
    }
    config->handle = 0;  // in/out: a non-zero handle would add that config's counters
    *status = rocprofiler_create_counter_config(agent.id, ids.data(), ids.size(), config);
    std::string call = "rocprofiler_create_counter_config(" + names + ")";
    return check(*status, call.c_str(), error);
}

bool find_replay_kind(rocprofiler_callback_tracing_kind_t* kind) {
    struct Search {
        rocprofiler_callback_tracing_kind_t kind = ROCPROFILER_CALLBACK_TRACING_NONE;
        bool found = false;
    } search;
    auto look = [](rocprofiler_callback_tracing_kind_t k, void* data) {
        const char* name = nullptr;
        uint64_t len = 0;
        if (rocprofiler_query_callback_tracing_kind_name(k, &name, &len) != ROCPROFILER_STATUS_SUCCESS || name == nullptr)
            return 0;
        if (std::string(name, len) != "KERNEL_REPLAY") return 0;
        auto* s = static_cast<Search*>(data);
        s->kind = k;
        s->found = true;
        return 1;
    };
    if (rocprofiler_iterate_callback_tracing_kinds(look, &search) != ROCPROFILER_STATUS_SUCCESS) return false;
    *kind = search.kind;
    return search.found;
}

std::string sdk_version() {
    uint32_t major = 0, minor = 0, patch = 0;
    rocprofiler_get_version(&major, &minor, &patch);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace gorocprof::rocm
