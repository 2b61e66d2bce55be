// What every backend shares: configuration (environment + plan), kernel filters, the pass -> group
// mapping, and the record writer. A backend (sim, cuda) calls these from its interception points:
//
//   Core& core = Core::instance();            // after Core::initialize() in the injection entry point
//   core.register_agent(info)                 // once per runtime agent
//   k = core.register_kernel(desc)            // once per kernel symbol
//   id = ReplayService::instance().reserve_dispatch_id();
//   if (!core.select(k)) -> run normally, no record      // the filter, ONCE per logical dispatch
//   core.begin_dispatch(...); ReplayService::execute(port, d); core.end_dispatch(...)
//   inside port.submit():  counters = core.counters_for_current_pass(agent)  -> arm, run, read
//                          core.record_pass(...)
#pragma once

#include <gorocprof/kernel_replay.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gorocprof::replay {
struct Outcome;
}

namespace gorocprof::core {

// The contract version this library speaks (docs/record-format.md).
constexpr int kContractVersion = 1;

// PassRecord::pass of the single run of a dispatch that is not replayed (DevicePort::submit gets
// UINT64_MAX then): core writes pass 0 of 1, or application_pass of the agent's pass count under
// application replay.
constexpr uint64_t kNotReplayed = UINT64_MAX;

enum class ReplayMode { None, Kernel, Application, Rotation };
enum class LogLevel { Error = 0, Warning = 1, Info = 2, Trace = 3 };
enum class KernelNameKind { Demangled, Truncated, Mangled };

struct PlanCounter {
    std::string name;
    std::string block;
    int event = 0;
};

struct PlanPass {
    int group = 0;
    std::vector<PlanCounter> counters;
};

struct PlanAgent {
    int index = 0;
    std::string name;
    std::vector<PlanPass> passes;
};

struct Config {
    int contract_version = 0;
    std::string run_dir;
    std::string plan_path;
    LogLevel log_level = LogLevel::Warning;
    std::string backend;
    ReplayMode replay_mode = ReplayMode::None;
    int application_pass = -1;
    // Rotation: the selected dispatches of an agent take its passes in turn, group_interval
    // dispatches each (rocprofv3's pmc_group_interval).
    uint64_t group_interval = 1;
    bool kernel_trace = false;
    std::string include_regex;
    std::string exclude_regex;
    // The name the filters see: the name output displays (mangled under -M, truncated under -T,
    // demangled otherwise), as rocprofv3 filters.
    KernelNameKind filter_name = KernelNameKind::Demangled;
    std::vector<std::pair<int64_t, int64_t>> iteration_ranges;
    std::vector<PlanAgent> agents;
    // The domains the plan traces (docs/tracing.md), as the plan spells them; checked by parse_plan.
    std::vector<std::string> trace_domains;
};

// Reads the environment and the plan file. Returns false with *error naming the variable or file and
// the reason.
bool load_config(Config* out, std::string* error);
// The plan half of load_config: parses the plan text into *out (environment fields untouched).
// `path` only names the file in errors: "plan /x/plan.json: version 2, this tool library speaks contract 1".
bool parse_plan(const std::string& text, const std::string& path, Config* out, std::string* error);

// Nanoseconds on the clock of the records' timestamps (init_time, fini_time). Backends that take their
// own kernel timestamps must convert them to this clock.
int64_t now_ns();

// Agent as the runtime reports it (written as an "agent" record).
struct AgentInfo {
    uint64_t id = 0;       // handle used in records
    int index = 0;         // device ordinal, matched to the plan's agents[].index
    std::string name;      // gfx target or NVIDIA device name
    std::string product_name;
    std::string vendor;
    std::string type = "GPU";
    std::vector<std::pair<std::string, int64_t>> props;
    std::vector<std::pair<std::string, std::string>> strings;
};

struct KernelDesc {
    std::string mangled_name;
    uint64_t agent_id = 0;
    int64_t kernarg_size = 0;
    int64_t group_segment_size = 0;
    int64_t private_segment_size = 0;
    int64_t sgpr = 0, vgpr = 0, accum_vgpr = 0;
};

// A kernel known to core: its id and the names the filters and output use.
struct KernelRef {
    uint64_t kernel_id = 0;
    std::string mangled;
    std::string demangled;
    std::string truncated;
    uint64_t agent_id = 0;  // the agent the kernel was registered on: rotation counts per agent

    const std::string& name(KernelNameKind kind) const {
        switch (kind) {
            case KernelNameKind::Mangled: return mangled;
            case KernelNameKind::Truncated: return truncated;
            case KernelNameKind::Demangled: break;
        }
        return demangled;
    }
};

// One counter's values on one pass (one element per hardware instance; NaN = not delivered).
struct CounterSample {
    const PlanCounter* counter = nullptr;
    std::vector<double> values;
};

// Everything about one executed pass that goes into a "dispatch" record.
struct PassRecord {
    uint64_t pass = 0;
    uint64_t passes = 1;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    std::vector<CounterSample> counters;
};

// The launch-side facts of one logical dispatch, shared by all its passes.
struct DispatchFacts {
    gorocprof_kernel_dispatch_info_t info{};
    uint64_t correlation_id = 0;
    uint64_t external_id = 0;
    uint64_t stream_id = 0;
    uint64_t thread_id = 0;
    int agent_index = 0;
    // Rotation: the pass select() chose for this dispatch, for a backend that records it on another
    // thread than the one that selected it; kNotReplayed takes the calling thread's selection.
    uint64_t rotation_pass = UINT64_MAX;
};

class Core {
public:
    // Loads the configuration, opens the record file, writes the header, creates and starts the
    // replay context (kernel replay mode only) and the counter-collection context, registers the
    // exit flush. Idempotent and thread-safe. Returns false (after printing and recording why) when
    // the process must run unprofiled.
    static bool initialize(const char* backend);
    static Core& instance();

    const Config& config() const;

    void register_agent(const AgentInfo& agent);
    // Writes the record of an agent the run does not profile (a CPU), so that the outputs list every
    // agent as rocprofv3 does; its dispatches, if it had any, are not profiled.
    void describe_agent(const AgentInfo& agent);
    KernelRef register_kernel(const KernelDesc& desc);

    // Applies include/exclude regexes and the iteration range. Call exactly once per logical dispatch.
    // Under rotation a selected dispatch also takes its agent's next place in the rotation:
    // dispatch k (from 1) of the agent collects pass ((k-1) / group_interval) mod passes, kept for
    // this thread (selected_rotation_pass) until the next select.
    bool select(const KernelRef& kernel);

    // The pass the last dispatch this thread selected collects under rotation; kNotReplayed in the
    // other modes or when that dispatch's agent has no passes.
    uint64_t selected_rotation_pass() const;

    // Passes planned for an agent (by device ordinal); empty when the agent is not profiled.
    const std::vector<PlanPass>& passes_for_agent(int agent_index) const;

    // The base counters the dispatch being executed on this thread must collect now: group i of the
    // agent during replay pass i, pass application_pass under application replay, the pass the
    // rotation chose for the dispatch (the open dispatch's, else this thread's selection) under
    // rotation, pass 0 otherwise.
    // nullptr when the agent has no such pass or the counter context is not effective for this pass
    // (localized stop). Outside a replay pass under kernel replay (one planned pass, or a declined
    // replay) it is pass 0.
    const std::vector<PlanCounter>* counters_for_current_pass(int agent_index) const;

    // Collects the passes of one logical dispatch and writes them with one write(2) at end_dispatch.
    // record_pass formats the pass at once and keeps nothing of it, so a caller may reuse one
    // PassRecord (and its vectors' capacity) for every pass. Dispatches may nest on one thread (a
    // kernel launched from a replay callback); each end_dispatch closes the innermost one.
    void begin_dispatch(const DispatchFacts& facts);
    void record_pass(PassRecord&& pass);
    void record_pass(const PassRecord& pass);
    void end_dispatch();
    // Same, after ReplayService::execute: a declined replay adds its "decline" line to the same write,
    // and the end record's replayed/declined counts come from the outcome.
    void end_dispatch(const replay::Outcome& outcome);

    void record_decline(uint64_t dispatch_id, const std::string& reason);
    void warn(const std::string& message);
    void fatal(const std::string& message);

    // Writes the "end" record (also run from atexit). Lines written after it are dropped, so a
    // thread still dispatching while another calls exit() cannot append behind `end`. The file stays
    // open: closing it could let the descriptor be reused by the app while such a thread writes.
    void finish();

    // True after a successful initialize().
    bool active() const;
};

// The pass published by the core's PASS ENTER callback on this thread (UINT64_MAX outside PASS).
uint64_t published_pass();

}  // namespace gorocprof::core
