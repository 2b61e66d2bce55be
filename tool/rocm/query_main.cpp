// gorocprof-query-rocm: answers the front end's questions before launch from the rocprofiler-sdk
// (docs/record-format.md section 4): the GPU agents, an agent's counters with their dimensions, and
// how many passes a group of counters takes (what rocprofiler_create_counter_config accepts).
#include "json.hpp"
#include "records.hpp"
#include "sdk.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace gorocprof::rocm {
namespace {

using json::append_string;

int fail(const std::string& message) {
    std::fprintf(stderr, "gorocprof-query: %s\n", message.c_str());
    return 1;
}

int usage(const std::string& why) {
    std::fprintf(stderr, "gorocprof-query: usage: %s\nusage: gorocprof-query-rocm agents | metrics --agent N | passes --agent N "
                         "COUNTER[,COUNTER...]\n", why.c_str());
    return 1;
}

int print(const std::string& doc) {
    std::fputs(doc.c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : fail("writing stdout failed");
}

bool load(std::vector<Agent>* agents, std::string* error) {
    if (!gpu_agents(agents, error)) return false;
    for (Agent& a : *agents)
        if (!load_counters(a, error)) return false;
    return true;
}

int cmd_agents() {
    std::vector<Agent> agents;
    std::string error;
    if (!load(&agents, &error)) return fail(error);
    rocprofiler_callback_tracing_kind_t kind{};
    std::string out = "{\"version\":1,\"backend\":\"rocm\",\"sdk\":{\"version\":";
    append_string(out, sdk_version());
    out += ",\"kernel_replay\":";
    out += find_replay_kind(&kind) ? "true" : "false";
    out += "},\"agents\":[";
    for (size_t i = 0; i < agents.size(); ++i) {
        std::string line;
        core::records::append_agent(line, agent_info(agents[i]));
        // The record's agent object without its type tag and newline.
        const std::string tag = "{\"t\":\"agent\",";
        if (line.compare(0, tag.size(), tag) == 0) line = "{" + line.substr(tag.size());
        while (!line.empty() && line.back() == '\n') line.pop_back();
        out += (i ? "," : "") + line;
    }
    return print(out + "]}\n");
}

const Agent* pick(const std::vector<Agent>& agents, int index) {
    for (const Agent& a : agents)
        if (a.index == index) return &a;
    return nullptr;
}

int cmd_metrics(int index) {
    std::vector<Agent> agents;
    std::string error;
    if (!load(&agents, &error)) return fail(error);
    const Agent* a = pick(agents, index);
    if (a == nullptr) return fail("metrics: no GPU agent " + std::to_string(index));
    std::string out = "{\"version\":1,\"agent\":" + std::to_string(index) + ",\"chip\":";
    append_string(out, a->info->name != nullptr ? a->info->name : "");
    out += ",\"metrics\":[";
    for (size_t i = 0; i < a->counters.size(); ++i) {
        const Counter& c = a->counters[i];
        out += i ? ",{\"name\":" : "{\"name\":";
        append_string(out, c.name);
        out += ",\"description\":";
        append_string(out, c.description);
        out += ",\"unit\":\"\",\"block\":";
        append_string(out, c.block);
        out += ",\"expression\":";
        append_string(out, c.expression);
        out += c.derived ? ",\"derived\":true" : ",\"derived\":false";
        out += ",\"dimensions\":[";
        for (size_t d = 0; d < c.dims.size(); ++d) {
            out += d ? ",{\"name\":" : "{\"name\":";
            append_string(out, c.dims[d].name);
            out += ",\"size\":" + std::to_string(c.dims[d].size) + "}";
        }
        out += "]}";
    }
    return print(out + "]}\n");
}

// The passes a group needs: counters go into the current pass while the SDK accepts the config, and
// start a new pass when it answers EXCEEDS_HW_LIMIT.
int cmd_passes(int index, const std::vector<std::string>& names) {
    if (names.empty()) return usage("passes needs at least one counter");
    std::vector<Agent> agents;
    std::string error;
    if (!load(&agents, &error)) return fail(error);
    const Agent* a = pick(agents, index);
    if (a == nullptr) return fail("passes: no GPU agent " + std::to_string(index));
    std::vector<const Counter*> all;
    for (const std::string& n : names) {
        const Counter* c = a->find(n);
        if (c == nullptr) return fail("passes: agent " + std::to_string(index) + " (" + a->info->name + ") has no counter " + n);
        all.push_back(c);
    }
    size_t passes = 0;
    std::vector<const Counter*> current;
    for (const Counter* c : all) {
        std::vector<const Counter*> trial = current;
        trial.push_back(c);
        rocprofiler_counter_config_id_t cfg{};
        rocprofiler_status_t st{};
        if (create_config(*a, trial, &cfg, &st, &error)) {
            rocprofiler_destroy_counter_config(cfg);
            current = trial;
            if (passes == 0) passes = 1;
            continue;
        }
        if (st != ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT || current.empty()) return fail(error);
        ++passes;
        current = {c};
    }
    std::string out = "{\"version\":1,\"agent\":" + std::to_string(index) + ",\"metrics\":[";
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) out += ',';
        append_string(out, names[i]);
    }
    return print(out + "],\"passes\":" + std::to_string(passes) + "}\n");
}

bool parse_agent(int argc, char** argv, int* agent, std::vector<std::string>* rest) {
    bool have = false;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--agent") == 0 && i + 1 < argc) {
            char* end = nullptr;
            long v = std::strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || v < 0) return false;
            *agent = static_cast<int>(v);
            have = true;
        } else {
            rest->push_back(argv[i]);
        }
    }
    return have;
}

}  // namespace
}  // namespace gorocprof::rocm

int main(int argc, char** argv) {
    using namespace gorocprof::rocm;
    if (argc < 2) return usage("missing command");
    std::string cmd = argv[1];
    int agent = -1;
    std::vector<std::string> rest;
    if (cmd == "agents") return argc == 2 ? cmd_agents() : usage("agents takes no arguments");
    if (cmd == "metrics") {
        if (!parse_agent(argc, argv, &agent, &rest) || !rest.empty()) return usage("metrics --agent N");
        return cmd_metrics(agent);
    }
    if (cmd == "passes") {
        if (!parse_agent(argc, argv, &agent, &rest) || rest.size() != 1) return usage("passes --agent N COUNTER[,COUNTER...]");
        std::vector<std::string> names;
        std::stringstream ss(rest[0]);
        for (std::string n; std::getline(ss, n, ',');)
            if (!n.empty()) names.push_back(n);
        return cmd_passes(agent, names);
    }
    return usage("unknown command " + cmd);
}
