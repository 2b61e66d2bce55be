// gorocprof-query-cuda: answers the Go front end's questions about NVIDIA devices before launch
// (docs/record-format.md, section 4). One JSON document on stdout and exit 0, or one line
// "gorocprof-query: <call>: <reason>" on stderr and exit 1.
#include "device_info.hpp"
#include "metric_host.hpp"

#include <cupti_profiler_target.h>

#include "json.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace gorocprof::cuda;
using gorocprof::json::append_string;

namespace {

int fail(const PortStatus& st) {
    std::fprintf(stderr, "gorocprof-query: %s\n", st.message().c_str());
    return 1;
}

const char* const kAgentsForm = "agents [--only METRIC[,METRIC...] [--passes METRIC[,METRIC...]]...]";
const char* const kMetricsForm = "metrics --agent N [--only METRIC[,METRIC...] [--passes METRIC[,METRIC...]]...]";

int usage(const char* why) {
    std::fprintf(stderr,
                 "gorocprof-query: usage: %s\n"
                 "usage: gorocprof-query-cuda %s | %s | passes --agent N METRIC[,METRIC...]\n",
                 why, kAgentsForm, kMetricsForm);
    return 1;
}

PortStatus init_driver(int* count) {
    PortStatus st = cu(cuInit(0), "cuInit");
    if (!st.ok) return st;
    return cu(cuDeviceGetCount(count), "cuDeviceGetCount");
}

void append_agent(std::string& out, const DeviceInfo& d) {
    out += "{\"id\":" + std::to_string(d.id) + ",\"index\":" + std::to_string(d.ordinal) + ",\"name\":";
    append_string(out, d.name);
    out += ",\"product_name\":";
    append_string(out, d.name);
    out += ",\"vendor\":\"NVIDIA\",\"type\":\"GPU\",\"props\":{";
    for (size_t i = 0; i < d.props.size(); ++i) {
        if (i) out += ',';
        append_string(out, d.props[i].first);
        out += ':' + std::to_string(d.props[i].second);
    }
    out += "},\"strings\":{";
    for (size_t i = 0; i < d.strings.size(); ++i) {
        if (i) out += ',';
        append_string(out, d.strings[i].first);
        out += ':';
        append_string(out, d.strings[i].second);
    }
    out += "}}";
}

// Everything metrics and passes need: the device's chip, its counter availability, a host object.
struct ChipSession {
    std::string chip;
    std::vector<uint8_t> availability;
    CUcontext ctx = nullptr;
    CUdevice dev = 0;
    ~ChipSession() {
        // Not through cu(): the helper is about to exit, which releases the context whatever this returns.
        if (ctx) cuDevicePrimaryCtxRelease(dev);
    }
};

PortStatus open_chip(int agent, ChipSession* s) {
    int count = 0;
    PortStatus st = init_driver(&count);
    if (!st.ok) return st;
    if (agent < 0 || agent >= count)
        return PortStatus::failure("--agent", "no CUDA device " + std::to_string(agent) + " (the machine has " +
                                                  std::to_string(count) + ")");
    if (!(st = cu(cuDeviceGet(&s->dev, agent), "cuDeviceGet")).ok) return st;
    if (!(st = ensure_profiler_initialized()).ok) return st;
    CUpti_Profiler_DeviceSupported_Params sup{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    sup.cuDevice = s->dev;
    sup.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (!(st = cupti(cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported")).ok) return st;
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        std::string why;
        if (sup.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " architecture (needs compute capability 7.0 or newer);";
        if (sup.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " vGPU profiling disabled or unsupported;";
        if (sup.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " confidential compute is on;";
        return PortStatus::failure("cuptiProfilerDeviceSupported",
                                   "device " + std::to_string(agent) + " does not support the Range Profiler:" + why);
    }
    if (!(st = chip_name(agent, &s->chip)).ok) return st;
    if (!(st = cu(cuDevicePrimaryCtxRetain(&s->ctx, s->dev), "cuDevicePrimaryCtxRetain")).ok) return st;
    if (!(st = cu(cuCtxSetCurrent(s->ctx), "cuCtxSetCurrent")).ok) return st;
    return counter_availability(s->ctx, &s->availability);
}

void append_metric(std::string& out, const MetricEntry& m) {
    out += "{\"name\":";
    append_string(out, m.name);
    out += ",\"description\":";
    append_string(out, m.description);
    out += ",\"unit\":";
    append_string(out, m.unit);
    out += '}';
}

void append_names(std::string& out, const std::vector<std::string>& names) {
    out += '[';
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) out += ',';
        append_string(out, names[i]);
    }
    out += ']';
}

// What `metrics --only` answers besides the names: the pass count of each set asked with --passes whose
// metrics the chip all has, each on a fresh host object as `passes` counts it. A set whose configuration
// CUPTI refuses is left out, so that the front end asks `passes` for it, which names the metric.
void append_set_passes(std::string& out, const ChipSession& s, const std::vector<std::vector<std::string>>& sets,
                       const std::vector<std::string>& missing) {
    out += ",\"passes\":[";
    bool first = true;
    for (const std::vector<std::string>& set : sets) {
        bool known = !set.empty();
        for (const std::string& n : set) known = known && std::find(missing.begin(), missing.end(), n) == missing.end();
        if (!known) continue;
        HostObject host;
        if (!host.init(s.chip, s.availability).ok) continue;
        std::vector<const char*> cnames;
        for (const std::string& n : set) cnames.push_back(n.c_str());
        std::vector<uint8_t> image;
        size_t passes = 0;
        if (!build_config(host, cnames, &image, &passes).ok) continue;
        if (!first) out += ',';
        first = false;
        out += "{\"metrics\":";
        append_names(out, set);
        out += ",\"passes\":" + std::to_string(passes) + '}';
    }
    out += ']';
}

// metrics --agent N: the chip's whole catalog. With --only, the named metrics alone (looked up, not
// enumerated), those the chip lacks under "missing", and the pass counts of the --passes sets: everything a
// run's planning asks, from one process (one CUDA start). The reply object, without a newline.
PortStatus metrics_reply(int agent, const std::vector<std::string>* only, const std::vector<std::vector<std::string>>& sets,
                         std::string* out) {
    ChipSession s;
    PortStatus st = open_chip(agent, &s);
    if (!st.ok) return st;
    HostObject host;
    if (!(st = host.init(s.chip, s.availability)).ok) return st;
    std::vector<MetricEntry> metrics;
    std::vector<std::string> missing;
    st = only ? metric_lookup(host, *only, &metrics, &missing) : metric_catalog(host, &metrics);
    if (!st.ok) return st;
    *out = "{\"version\":1,\"agent\":" + std::to_string(agent) + ",\"chip\":";
    append_string(*out, s.chip);
    *out += ",\"metrics\":[";
    for (size_t i = 0; i < metrics.size(); ++i) {
        if (i) *out += ",\n";
        append_metric(*out, metrics[i]);
    }
    *out += ']';
    if (only) {
        *out += ",\"missing\":";
        append_names(*out, missing);
        append_set_passes(*out, s, sets, missing);
    }
    *out += '}';
    return PortStatus::success();
}

int cmd_metrics(int agent, const std::vector<std::string>* only, const std::vector<std::vector<std::string>>& sets) {
    std::string out;
    PortStatus st = metrics_reply(agent, only, sets, &out);
    if (!st.ok) return fail(st);
    out += '\n';
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        if (comma > start) out.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

// agents: every device. With --only (and --passes), also the `metrics --only` reply of the first device of
// each chip under "catalogs", from the same process: a first run's planning then starts CUDA once. A chip
// whose lookup fails is left out, so that the front end asks `metrics`, which reports the failure.
int cmd_agents(const std::vector<std::string>* only, const std::vector<std::vector<std::string>>& sets) {
    int count = 0;
    PortStatus st = init_driver(&count);
    if (!st.ok) return fail(st);
    std::string out = "{\"version\":1,\"backend\":\"cuda\",\"agents\":[";
    std::vector<std::pair<int, std::string>> firsts;  // the first device of each chip
    for (int i = 0; i < count; ++i) {
        DeviceInfo d;
        if (!(st = describe_device(i, &d)).ok) return fail(st);
        if (i) out += ',';
        append_agent(out, d);
        const std::string& chip = d.chip;
        if (!chip.empty() &&
            std::none_of(firsts.begin(), firsts.end(), [&](const auto& f) { return f.second == chip; }))
            firsts.emplace_back(i, chip);
    }
    out += ']';
    if (only) {
        out += ",\"catalogs\":[";
        bool first = true;
        for (const auto& [ordinal, chip] : firsts) {
            std::string reply;
            if (!metrics_reply(ordinal, only, sets, &reply).ok) continue;
            if (!first) out += ',';
            first = false;
            out += reply;
        }
        out += ']';
    }
    out += "}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

int cmd_passes(int agent, const std::vector<std::string>& names) {
    if (names.empty()) return usage("passes needs at least one metric");
    ChipSession s;
    PortStatus st = open_chip(agent, &s);
    if (!st.ok) return fail(st);
    // One metric at a time first, so that an unknown name is reported by name.
    for (const std::string& n : names) {
        HostObject one;
        if (!(st = one.init(s.chip, s.availability)).ok) return fail(st);
        std::vector<const char*> single{n.c_str()};
        std::vector<uint8_t> image;
        size_t passes = 0;
        if (!(st = build_config(one, single, &image, &passes)).ok) {
            st.reason += " (metric " + n + " on " + s.chip + ")";
            return fail(st);
        }
    }
    HostObject host;
    if (!(st = host.init(s.chip, s.availability)).ok) return fail(st);
    std::vector<const char*> cnames;
    for (const std::string& n : names) cnames.push_back(n.c_str());
    std::vector<uint8_t> image;
    size_t passes = 0;
    if (!(st = build_config(host, cnames, &image, &passes)).ok) return fail(st);
    std::string out = "{\"version\":1,\"agent\":" + std::to_string(agent) + ",\"metrics\":";
    append_names(out, names);
    out += ",\"passes\":" + std::to_string(passes) + "}\n";
    std::fputs(out.c_str(), stdout);
    return 0;
}

bool parse_agent(int argc, char** argv, int* agent, std::vector<std::string>* rest) {
    bool have = false;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--agent") == 0 && i + 1 < argc) {
            char* end = nullptr;
            long v = std::strtol(argv[++i], &end, 10);
            if (!end || *end != '\0' || v < 0) return false;
            *agent = static_cast<int>(v);
            have = true;
        } else {
            rest->push_back(argv[i]);
        }
    }
    return have;
}

// --only METRIC[,METRIC...] (repeatable, names added) and --passes METRIC[,METRIC...] (one set each); --passes
// needs --only.
bool parse_scope(const std::vector<std::string>& args, bool* scoped, std::vector<std::string>* only,
                 std::vector<std::vector<std::string>>* sets) {
    for (size_t i = 0; i < args.size(); ++i) {
        if (i + 1 >= args.size() || (args[i] != "--only" && args[i] != "--passes")) return false;
        std::vector<std::string> names = split_commas(args[++i]);
        if (args[i - 1] == "--only") {
            *scoped = true;
            only->insert(only->end(), names.begin(), names.end());
        } else {
            sets->push_back(std::move(names));
        }
    }
    return *scoped || sets->empty();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage("missing command");
    std::string cmd = argv[1];
    int agent = 0;
    std::vector<std::string> rest;
    bool scoped = false;
    std::vector<std::string> only;
    std::vector<std::vector<std::string>> sets;
    if (cmd == "agents") {
        for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
        if (!parse_scope(rest, &scoped, &only, &sets)) return usage(kAgentsForm);
        return cmd_agents(scoped ? &only : nullptr, sets);
    }
    if (cmd == "metrics") {
        if (!parse_agent(argc, argv, &agent, &rest) || !parse_scope(rest, &scoped, &only, &sets)) return usage(kMetricsForm);
        return cmd_metrics(agent, scoped ? &only : nullptr, sets);
    }
    if (cmd == "passes") {
        if (!parse_agent(argc, argv, &agent, &rest)) return usage("passes --agent N METRIC[,METRIC...]");
        std::vector<std::string> names;
        for (const std::string& r : rest)
            for (std::string& n : split_commas(r)) names.push_back(std::move(n));
        return cmd_passes(agent, names);
    }
    return usage(("unknown command " + cmd).c_str());
}
