// Agents from GOROCPROF_SIM_AGENTS: the default pair, a custom list, and an unknown architecture
// (every call fails with a message naming it and the known ones). The mode is argv[1]; CMakeLists.txt
// sets the environment for each.
#include "sim_check.hpp"

#include <gorocprof/sim_tool.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct Props {
    std::vector<std::pair<std::string, int64_t>> list;
    int64_t get(const char* key) const {
        for (const auto& [k, v] : list)
            if (k == key) return v;
        return -1;
    }
};

void collect(const char* k, int64_t v, void* u) { static_cast<Props*>(u)->list.emplace_back(k, v); }

Props props(int i) {
    Props p;
    CHECK_OK(simToolForEachAgentProp(i, collect, &p));
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "default";
    int count = 0;
    if (mode == "bad") {
        CHECK(simGetDeviceCount(&count) == simErrorNoDevice);
        const std::string msg = simGetLastErrorMessage();
        CHECK(msg.find("simGetDeviceCount: GOROCPROF_SIM_AGENTS: unknown architecture 'gfx1234'") == 0);
        CHECK(msg.find("gfx908, gfx90a, gfx940, gfx941, gfx942, gfx950") != std::string::npos);
        CHECK(simToolAgentCount(&count) == simErrorNoDevice);
        void* p = nullptr;
        CHECK(simMalloc(&p, 16) == simErrorNoDevice);
        return test_result("test_agents bad");
    }
    CHECK_OK(simGetDeviceCount(&count));
    simAgentDesc a{};
    if (mode == "default") {
        CHECK(count == 2);
        CHECK_OK(simToolGetAgent(0, &a));
        CHECK(std::strcmp(a.name, "gfx90a") == 0 && a.cu_count == 104 && a.num_xcc == 1 && a.num_shader_engines == 8);
        CHECK(a.gfx_target_version == 90010 && a.wave_front_size == 64 && a.tcc_channels == 16);
        Props p = props(0);
        CHECK(!p.list.empty() && p.list[0].first == "node_id");
        // Each agent is its own node (the id the output files join on) with its own gpu_id.
        CHECK(p.get("node_id") == 1 && p.get("logical_node_id") == 1 && props(1).get("node_id") == 2);
        CHECK(props(1).get("logical_node_id") == 2 && p.get("gpu_id") > 0 && p.get("gpu_id") != props(1).get("gpu_id"));
        CHECK(p.get("simd_count") == 416 && p.get("num_shader_banks") == 8 && p.get("array_count") == 8);
        CHECK(p.get("lds_size_in_kb") == 64 && p.get("vendor_id") == 4098 && p.get("device_id") == 29711);
        CHECK(p.get("local_mem_size") == 68719476736LL && p.get("max_engine_clk_fcompute") == 1700);
        CHECK_OK(simToolGetAgent(1, &a));
        CHECK(std::strcmp(a.name, "gfx942") == 0 && a.cu_count == 304 && a.num_xcc == 8 && a.num_shader_engines == 32);
        CHECK(props(1).get("location_id") == 256);
        CHECK(simToolGetAgent(2, &a) == simErrorInvalidDevice);
        CHECK(simSetDevice(2) == simErrorInvalidDevice);
        CHECK_OK(simSetDevice(1));
        int d = -1;
        CHECK_OK(simGetDevice(&d));
        CHECK(d == 1);
    } else if (mode == "custom") {
        CHECK(count == 3);
        const char* want[] = {"gfx908", "gfx950", "gfx908"};
        for (int i = 0; i < 3 && i < count; ++i) {
            CHECK_OK(simToolGetAgent(i, &a));
            CHECK(std::strcmp(a.name, want[i]) == 0 && a.index == i);
            CHECK(props(i).get("node_id") == i + 1);
        }
        CHECK_OK(simToolGetAgent(1, &a));
        CHECK(a.lds_size_kb == 160 && a.num_xcc == 8 && a.cu_count == 256);
        CHECK(a.local_mem_size == (64ull << 20));  // GOROCPROF_SIM_DEVICE_MEMORY=64M
        CHECK(props(0).get("gpu_id") != props(2).get("gpu_id"));  // the same target twice
    }
    return test_result(("test_agents " + mode).c_str());
}
