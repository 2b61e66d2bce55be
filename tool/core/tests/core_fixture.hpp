// The fixture of the core tests: each case initialises core in its own process (ctest runs one case
// per process) with a plan in a fresh run directory, and reads the record file back.
#pragma once

#include "check.hpp"
#include "files.hpp"

#include <core.hpp>
#include <core_internal.hpp>
#include <json.hpp>
#include <replay_service.hpp>
#include <state.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace core_fixture {

using namespace gorocprof::core;
using gorocprof::json::Value;
namespace replay = gorocprof::replay;

// Agent 0: three passes, agent 1: two, agent 2: one; agent 3 is not in the plan.
inline const char* kPlan = R"({"version": 1, "backend": "sim", "replay_mode": "%MODE%", "application_pass": %APP%, "group_interval": %INTERVAL%,
 "kernel_trace": true, "filters": {"include_regex": "%INCLUDE%", "name_kind": "%KIND%", "iteration_ranges": %RANGES%},
 "agents": [
  {"index": 0, "name": "gfx90a", "passes": [
     {"group": 0, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "A0", "block": "SQ", "event": 1}]},
     {"group": 1, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "B1", "block": "SQ", "event": 2}]},
     {"group": 2, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "C2", "block": "SQ", "event": 3}]}]},
  {"index": 1, "name": "gfx942", "passes": [
     {"group": 0, "counters": [{"name": "X0"}]},
     {"group": 1, "counters": [{"name": "Y1"}]}]},
  {"index": 2, "name": "gfx908", "passes": [{"group": 0, "counters": [{"name": "Z0"}]}]}
 ]})";

struct Setup {
    std::string mode = "kernel";
    int application_pass = -1;
    std::string include;
    std::string name_kind = "demangled";
    std::string ranges = "[]";
    std::string backend = "sim";
    int group_interval = 1;
};

inline std::string replace(std::string s, const std::string& from, const std::string& to) {
    size_t at = s.find(from);
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

inline std::string g_dir;

inline std::string records_path(pid_t pid = ::getpid()) { return g_dir + "/records/" + std::to_string(pid) + ".ndjson"; }

// Writes the plan, sets the environment and initialises core; agents are registered as ids 1..4.
inline bool start(const Setup& s = Setup{}, const char* plan_template = kPlan) {
    if (g_dir.empty()) g_dir = check::temp_dir();
    std::string plan = plan_template;
    plan = replace(plan, "%MODE%", s.mode);
    plan = replace(plan, "%APP%", std::to_string(s.application_pass));
    plan = replace(plan, "%INCLUDE%", s.include);
    plan = replace(plan, "%KIND%", s.name_kind);
    plan = replace(plan, "%RANGES%", s.ranges);
    plan = replace(plan, "%INTERVAL%", std::to_string(s.group_interval));
    check::write_file(g_dir + "/plan.json", plan);
    ::setenv("GOROCPROF_RUN_DIR", g_dir.c_str(), 1);
    ::setenv("GOROCPROF_CONTRACT", "1", 1);
    ::setenv("GOROCPROF_LOG_LEVEL", "error", 1);
    ::unsetenv("GOROCPROF_PLAN");
    return Core::initialize(s.backend.c_str());
}

inline void register_agents() {
    const char* names[] = {"gfx90a", "gfx942", "gfx908", "gfx950"};
    for (int i = 0; i < 4; ++i) {
        AgentInfo a;
        a.id = static_cast<uint64_t>(i + 1);
        a.index = i;
        a.name = names[i];
        a.product_name = "test agent";
        a.vendor = "AMD";
        a.props = {{"cu_count", 104}, {"wave_front_size", 64}};
        a.strings = {{"uuid", ""}};
        Core::instance().register_agent(a);
    }
}

inline std::vector<Value> read_records(pid_t pid = ::getpid()) {
    std::vector<Value> out;
    for (const std::string& line : check::lines_of(check::read_file(records_path(pid)))) {
        Value v;
        std::string error;
        if (!gorocprof::json::parse(line, &v, &error)) {
            check::fail(__FILE__, __LINE__, "record line does not parse: " + error + ": " + line);
            continue;
        }
        out.push_back(std::move(v));
    }
    return out;
}

inline std::vector<Value> of_type(const std::vector<Value>& records, const std::string& t) {
    std::vector<Value> out;
    for (const Value& v : records)
        if (v.find("t") != nullptr && v.find("t")->as_string() == t) out.push_back(v);
    return out;
}

inline int64_t num(const Value& v, const char* key) {
    const Value* f = v.find(key);
    return f != nullptr && f->is_integer() ? f->as_int() : -999;
}

inline std::string str(const Value& v, const char* key) {
    const Value* f = v.find(key);
    return f != nullptr && f->is_string() ? f->as_string() : "(none)";
}

// "SQ_WAVES,A0" for a dispatch record's counters.
inline std::string counter_names(const Value& d) {
    std::string s;
    const Value* cs = d.find("counters");
    if (cs == nullptr) return s;
    for (const Value& c : cs->items()) s += (s.empty() ? "" : ",") + str(c, "name");
    return s;
}

inline std::string names_of(const std::vector<PlanCounter>* counters) {
    if (counters == nullptr) return "(none)";
    std::string s;
    for (const PlanCounter& c : *counters) s += (s.empty() ? "" : ",") + c.name;
    return s;
}

// Counts write(2) calls on the record file.
inline std::atomic<int> g_writes{0};
inline ssize_t counting_write(int fd, const void* buf, size_t n) {
    ++g_writes;
    return ::write(fd, buf, n);
}
inline void count_writes() {
    detail::State* s = detail::state();
    s->file.attach(s->file.fd(), counting_write);
}

// A device port whose submit does what a backend's does: ask core for this pass's counters, "run",
// and record the pass. Values do not depend on the pass, as a deterministic kernel's would not.
class TestPort : public replay::DevicePort {
public:
    explicit TestPort(int agent_index) : agent_(agent_index) {}
    bool fail_snapshot = false;
    int submits = 0;

    replay::PortStatus drain(const replay::Dispatch&) override { return replay::PortStatus::success(); }
    replay::PortStatus snapshot(const replay::Dispatch&, replay::Snapshot** out) override {
        if (fail_snapshot) return replay::PortStatus::failure("snapshot", "test backup failure");
        *out = new replay::Snapshot;
        return replay::PortStatus::success();
    }
    replay::PortStatus restore(const replay::Dispatch&, replay::Snapshot&) override {
        return replay::PortStatus::success();
    }
    void release(replay::Snapshot* s) override { delete s; }
    replay::PortStatus submit(const replay::Dispatch&, uint64_t pass) override {
        ++submits;
        Core& core = Core::instance();
        rec_.pass = pass;
        rec_.passes = pass == kNotReplayed ? 1 : core.passes_for_agent(agent_).size();
        rec_.start_ns = 1000 + submits;
        rec_.end_ns = 2000 + submits;
        rec_.counters.clear();
        if (const std::vector<PlanCounter>* cs = core.counters_for_current_pass(agent_)) {
            for (const PlanCounter& c : *cs) rec_.counters.push_back({&c, {16.0, 16.0, NAN}});
        }
        core.record_pass(rec_);
        return replay::PortStatus::success();
    }
    void complete(const replay::Dispatch&) override {}

private:
    int agent_;
    PassRecord rec_;
};

inline replay::Outcome run_dispatch(int agent_index, const KernelRef& k, TestPort* port = nullptr) {
    TestPort local(agent_index);
    TestPort& p = port != nullptr ? *port : local;
    replay::Dispatch d;
    d.info.size = sizeof d.info;
    d.info.agent_id.handle = static_cast<uint64_t>(agent_index + 1);
    d.info.queue_id.handle = 7;
    d.info.kernel_id = k.kernel_id;
    d.info.dispatch_id = replay::ReplayService::instance().reserve_dispatch_id();
    d.info.grid_size = {256, 1, 1};
    d.info.workgroup_size = {64, 1, 1};
    d.info.group_segment_size = 128;
    Core& core = Core::instance();
    if (!core.select(k)) return replay::Outcome{};
    DispatchFacts f;
    f.info = d.info;
    f.correlation_id = d.info.dispatch_id;
    f.agent_index = agent_index;
    core.begin_dispatch(f);
    replay::Outcome o = replay::ReplayService::instance().execute(p, d);
    core.end_dispatch(o);
    return o;
}

inline KernelRef kernel(const char* mangled, uint64_t agent_id = 1) {
    KernelDesc d;
    d.mangled_name = mangled;
    d.agent_id = agent_id;
    d.kernarg_size = 24;
    d.sgpr = 16;
    d.vgpr = 8;
    return Core::instance().register_kernel(d);
}

inline gorocprof_callback_tracing_record_t pass_record(gorocprof_callback_tracing_kernel_replay_data_t* payload,
                                                uint32_t phase) {
    gorocprof_callback_tracing_record_t r{};
    r.kind = GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY;
    r.operation = GOROCPROF_KERNEL_REPLAY_PASS;
    r.phase = phase;
    r.payload = payload;
    return r;
}


// The child's record file, after it ended; each line must parse.
inline std::vector<std::string> child_lines(pid_t child) {
    std::string text = check::read_file(records_path(child));
    CHECK(!text.empty() && text.back() == '\n');
    std::vector<std::string> lines = check::lines_of(text);
    for (const std::string& l : lines) {
        Value v;
        std::string error;
        if (!gorocprof::json::parse(l, &v, &error)) check::fail(__FILE__, __LINE__, "bad line: " + l);
    }
    return lines;
}

inline size_t count_type(const std::vector<std::string>& lines, const std::string& t) {
    size_t n = 0;
    for (const std::string& l : lines) n += l.rfind("{\"t\":\"" + t + "\"", 0) == 0 ? 1 : 0;
    return n;
}

// A child that starts core in a fresh run directory with the agents registered: returns its pid in
// the parent, 0 in the child.
inline pid_t fork_started_child() {
    g_dir = check::temp_dir();
    pid_t child = ::fork();
    if (child == 0) {
        if (!start()) std::_Exit(3);
        register_agents();
    }
    return child;
}

inline int wait_status(pid_t child) {
    int status = 0;
    ::waitpid(child, &status, 0);
    return status;
}

}  // namespace core_fixture
