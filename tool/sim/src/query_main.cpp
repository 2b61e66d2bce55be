// gorocprof-query-sim: answers the front end's questions about the simulated agents before launch
// (docs/record-format.md section 4). Uses only the tool API, so no injected library is ever loaded.
#include <gorocprof/sim_tool.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

std::string json_string(const char* s) {
    std::string out = "\"";
    for (const char* p = s; *p; ++p) {
        unsigned char c = static_cast<unsigned char>(*p);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

struct Members {
    std::string text;
    void add(const char* key, const std::string& value) {
        if (!text.empty()) text += ',';
        text += json_string(key) + ':' + value;
    }
};

int fail(const char* call, const std::string& reason) {
    std::fprintf(stderr, "gorocprof-query: %s: %s\n", call, reason.c_str());
    return 1;
}

// The runtime's message already reads "<call>: <reason>".
int fail_runtime() {
    std::fprintf(stderr, "gorocprof-query: %s\n", simGetLastErrorMessage());
    return 1;
}

int agents() {
    int count = 0;
    if (simToolAgentCount(&count) != simSuccess) return fail_runtime();
    std::string list;
    for (int i = 0; i < count; ++i) {
        simAgentDesc a;
        if (simToolGetAgent(i, &a) != simSuccess) return fail_runtime();
        Members props, strings, agent;
        simToolForEachAgentProp(
            i, [](const char* k, int64_t v, void* u) { static_cast<Members*>(u)->add(k, std::to_string(v)); }, &props);
        simToolForEachAgentString(
            i, [](const char* k, const char* v, void* u) { static_cast<Members*>(u)->add(k, json_string(v)); }, &strings);
        agent.add("id", std::to_string(i + 1));
        agent.add("index", std::to_string(i));
        agent.add("name", json_string(a.name));
        agent.add("product_name", json_string(a.product_name));
        agent.add("vendor", json_string(a.vendor));
        agent.add("type", json_string("GPU"));
        agent.add("props", "{" + props.text + "}");
        agent.add("strings", "{" + strings.text + "}");
        if (!list.empty()) list += ',';
        list += "{" + agent.text + "}";
    }
    std::printf("{\"version\":1,\"backend\":\"sim\",\"agents\":[%s]}\n", list.c_str());
    return std::fflush(stdout) == 0 ? 0 : fail("agents", "writing stdout failed");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return fail("usage", "gorocprof-query-sim agents");
    if (std::strcmp(argv[1], "agents") == 0) {
        if (argc != 2) return fail("agents", "takes no arguments");
        return agents();
    }
    if (std::strcmp(argv[1], "metrics") == 0 || std::strcmp(argv[1], "passes") == 0)
        return fail(argv[1], "not answered by the sim backend: simulated agents use the AMD counter definitions the front end embeds");
    return fail(argv[1], "unknown query (known: agents)");
}
