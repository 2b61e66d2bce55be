// Internal to tool/core: the process-wide state behind Core. Allocated once by Core::initialize and
// never freed: static destructors run at exit() while other threads may still be dispatching.
#pragma once

#include "core.hpp"
#include "filter.hpp"
#include "records.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gorocprof::core::detail {

constexpr int kMaxAgents = 64;

struct AgentSlot {
    uint64_t id = 0;
    int index = 0;
    const PlanAgent* plan = nullptr;  // nullptr: not profiled (absent from the plan, or another name)
    std::atomic<uint64_t> rotation_count{0};  // rotation: dispatches of the agent selected so far
};

struct State {
    Config config;
    std::string backend;
    int64_t pid = 0;
    std::atomic<bool> active{false};  // set at the end of a successful initialize

    records::File file;
    std::mutex registry_mu;  // agents, kernels, preamble
    // Lines after `end` are dropped. A writer announces itself in `writers` before it checks
    // `finished`; finish() sets `finished` and waits for `writers` to drain (both seq_cst), so no line
    // lands behind `end`. Plain atomics rather than a rwlock: a forked child can reset them.
    std::atomic<int> writers{0};
    std::atomic<bool> finished{false};
    std::atomic<bool> write_failed{false};  // report a failing record file once

    // Agent and kernel lines already written, so that a forked child's own file starts complete.
    std::string preamble;
    // A forked child opens its own file at its first line (write_lines), so that a child that
    // records nothing (it execs another program, or ends with _exit) leaves no file behind that
    // would read as a crash. Until then `open_pending` is set and `inherited` holds the parent's
    // preamble at the fork. Lock order: registry_mu, open_mu, the file's own lock.
    std::atomic<bool> open_pending{false};
    std::mutex open_mu;
    std::string inherited;

    AgentSlot agents[kMaxAgents];
    std::atomic<int> agent_count{0};  // slots [0, agent_count) are published

    KernelFilter filter;
    std::unordered_map<std::string, KernelRef> kernels;  // key: agent id, '/', mangled name
    uint64_t next_kernel_id = 1;

    gorocprof_context_id_t replay_context{};
    gorocprof_context_id_t counter_context{};

    std::atomic<uint64_t> dispatches{0}, replayed{0}, declined{0};
};

// nullptr before Core::initialize.
State* state();

const AgentSlot* agent_by_id(const State& s, uint64_t agent_id);
const AgentSlot* agent_by_index(const State& s, int index);

// Rotation: the pass the agent's next selected dispatch collects (kNotReplayed for an agent without
// passes), advancing the agent's count.
uint64_t rotate(State& s, uint64_t agent_id);

// Rotation: the pass of the innermost dispatch open on this thread (begin_dispatch), kNotReplayed
// when none is open.
uint64_t open_rotation_pass();

// Writes whole lines with one write(2) unless `end` was written. Reports the first failure on stderr.
void write_lines(State& s, const std::string& lines);

}  // namespace gorocprof::core::detail

namespace gorocprof::core::trace::detail {

// Turns on the plan's trace domains (trace.cpp); called once by Core::initialize.
void configure_trace(const std::vector<std::string>& domains);
// Nothing is traced from here on (Core::finish, after the last trace lines).
void stop_trace();

}  // namespace gorocprof::core::trace::detail
