// The replay loop of one logical dispatch. The order of events is the specification's:
//   CONFIG ENTER, replay_pass_count, CONFIG EXIT,
//   [lock agent, drain, snapshot, { restore (not before pass 0), PASS ENTER, submit, PASS EXIT,
//    replay_continue }..., release, unlock], complete.
// Everything the loop needs lives on the stack of execute(); a pass allocates nothing.
#include "replay_service.hpp"

#include "agent_locks.hpp"
#include "contexts.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <utility>

namespace gorocprof::replay {
namespace {

using detail::LoopState;
using detail::ReplaySubscription;

constexpr uint64_t kNoPass = UINT64_MAX;

thread_local uint64_t t_current_pass = kNoPass;
// Non-zero while this thread is inside execute() before the completion: a dispatch it makes then
// (from a callback, or from the backend's submit) is nested and must not replay or lock again.
thread_local int t_in_window = 0;

uint64_t thread_id() {
    static thread_local uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    return tid;
}

struct ServiceState {
    std::atomic<uint64_t> last_dispatch_id{0};
    detail::AgentLocks agents;
    std::mutex sink_mu;
    DiagnosticSink sink;  // empty: print to stderr
};

// Never freed, on purpose: a function-local static would be destroyed at exit() while threads the
// app did not join may still dispatch through it (locks, sink). The OS reclaims it with the process.
ServiceState& state() {
    static ServiceState* s = new ServiceState;
    return *s;
}

void print_diagnostic(bool fatal, const std::string& message) {
    std::fprintf(stderr, "gorocprof-tool: %s%s\n", fatal ? "fatal: " : "warning: ", message.c_str());
}

void report(bool fatal, uint64_t dispatch_id, const std::string& message) noexcept {
    try {
        DiagnosticSink sink;
        {
            std::lock_guard<std::mutex> lock(state().sink_mu);
            sink = state().sink;
        }
        if (sink) {
            sink(fatal, dispatch_id, message);
        } else {
            print_diagnostic(fatal, message);
        }
    } catch (...) {
        std::fputs("gorocprof-tool: diagnostic sink threw while reporting a replay problem\n", stderr);
    }
}

std::string prefix(uint64_t dispatch_id) { return "dispatch " + std::to_string(dispatch_id) + ": "; }

// Port calls are C++ virtuals that may throw; nothing may escape into the backend's C callbacks.
template <typename F>
PortStatus guarded(const char* call, F&& f) noexcept {
    try {
        return f();
    } catch (const std::exception& e) {
        try {
            return PortStatus::failure(call, std::string("threw: ") + e.what());
        } catch (...) {
        }
    } catch (...) {
        try {
            return PortStatus::failure(call, "threw an unknown exception");
        } catch (...) {
        }
    }
    PortStatus s;
    s.ok = false;
    return s;
}

PortStatus submit(DevicePort& port, const Dispatch& d, uint64_t pass) {
    return guarded("DevicePort::submit", [&] { return port.submit(d, pass); });
}

// Delivers the application's completion when execute() leaves, after the agent lock and the
// re-entrancy flag are gone: the app's completion handlers may dispatch again on this thread.
class CompletionGuard {
public:
    CompletionGuard(DevicePort& port, const Dispatch& d) : port_(port), d_(d) {}
    ~CompletionGuard() {
        try {
            port_.complete(d_);
        } catch (...) {
            report(true, d_.info.dispatch_id, prefix(d_.info.dispatch_id) + "DevicePort::complete threw");
        }
    }

private:
    DevicePort& port_;
    const Dispatch& d_;
};

struct WindowFlag {
    WindowFlag() { ++t_in_window; }
    ~WindowFlag() { --t_in_window; }
};

struct OpenWindow {
    explicit OpenWindow(std::atomic<uint64_t>& n) : n_(n) { n_.fetch_add(1, std::memory_order_acq_rel); }
    ~OpenWindow() { n_.fetch_sub(1, std::memory_order_acq_rel); }
    std::atomic<uint64_t>& n_;
};

struct LoopScope {
    explicit LoopScope(LoopState* loop) { detail::thread_loop() = loop; }
    ~LoopScope() { detail::thread_loop() = nullptr; }
};

struct SnapshotGuard {
    SnapshotGuard(DevicePort& port, Snapshot* s) : port_(port), s_(s) {}
    ~SnapshotGuard() {
        try {
            port_.release(s_);
        } catch (...) {
        }
    }
    DevicePort& port_;
    Snapshot* s_;
};

gorocprof_callback_tracing_kernel_replay_data_t base_payload(const Dispatch& d) {
    gorocprof_callback_tracing_kernel_replay_data_t p{};
    p.size = sizeof(p);
    p.dispatch_info = d.info;
    p.dispatch_info.size = sizeof(p.dispatch_info);
    return p;
}

void deliver(const ReplaySubscription& sub, const Dispatch& d, gorocprof_kernel_replay_operation_t op,
             gorocprof_callback_phase_t phase, gorocprof_callback_tracing_kernel_replay_data_t* payload,
             gorocprof_user_data_t* user_data) {
    if (!sub.wants(op)) return;
    gorocprof_callback_tracing_record_t rec{};
    rec.context_id = sub.context;
    rec.thread_id = thread_id();
    rec.correlation_id = d.correlation;
    rec.kind = GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY;
    rec.operation = op;
    rec.phase = phase;
    rec.payload = payload;
    try {
        sub.callback(rec, user_data, sub.callback_args);
    } catch (...) {
        report(false, d.info.dispatch_id, prefix(d.info.dispatch_id) + "kernel replay callback threw");
    }
}

// The single run of a dispatch that is not replayed. `lock_agent` keeps it out of another thread's
// replay window on the same agent.
void run_once(DevicePort& port, const Dispatch& d, bool lock_agent, Outcome& out) {
    std::unique_lock<std::mutex> agent;
    if (lock_agent) agent = std::unique_lock<std::mutex>(state().agents.of(d.info.agent_id.handle));
    uint64_t saved_pass = std::exchange(t_current_pass, kNoPass);
    PortStatus st = submit(port, d, kNoPass);
    t_current_pass = saved_pass;
    if (st.ok) {
        out.passes_run = 1;
        return;
    }
    out.failed = true;
    out.failure = st.message();
    report(true, d.info.dispatch_id, prefix(d.info.dispatch_id) + "the single run failed: " + out.failure);
}

struct Plan {
    uint64_t passes = 1;  // 0: indefinite
    gorocprof_kernel_replay_continue_cb_t cont = nullptr;
    bool replay() const { return passes != 1; }
};

// CONFIG ENTER, replay_pass_count, CONFIG EXIT.
Plan configure(const ReplaySubscription& sub, const Dispatch& d, gorocprof_user_data_t* loop_ud) {
    auto p = base_payload(d);
    deliver(sub, d, GOROCPROF_KERNEL_REPLAY_CONFIG, GOROCPROF_CALLBACK_PHASE_ENTER, &p, loop_ud);
    auto count_cb = p.replay_pass_count;
    auto cont_cb = p.replay_continue;
    Plan plan;
    if (count_cb != nullptr) {
        try {
            plan.passes = count_cb(p.dispatch_info, *loop_ud);
        } catch (...) {
            report(false, d.info.dispatch_id,
                   prefix(d.info.dispatch_id) + "replay_pass_count threw; the dispatch runs once");
            plan.passes = 1;
        }
        plan.cont = cont_cb;
        if (plan.passes == 0 && cont_cb == nullptr) {
            report(false, d.info.dispatch_id,
                   prefix(d.info.dispatch_id) +
                       "replay_pass_count returned 0 (indefinite loop) but CONFIG ENTER set no "
                       "replay_continue: replay rejected, the dispatch runs once");
            plan.passes = 1;
        }
    }
    auto exit_payload = base_payload(d);
    exit_payload.replay_pass_count = count_cb;
    exit_payload.replay_continue = cont_cb;
    deliver(sub, d, GOROCPROF_KERNEL_REPLAY_CONFIG, GOROCPROF_CALLBACK_PHASE_EXIT, &exit_payload, loop_ud);
    return plan;
}

bool keep_going(const Plan& plan, const Dispatch& d, const gorocprof_kernel_dispatch_info_t& info,
                uint64_t completed, gorocprof_user_data_t loop_ud) {
    // A fixed loop never asks after its last pass: continue can end a loop early, never extend it.
    if (plan.passes != 0 && completed + 1 >= plan.passes) return false;
    if (plan.cont == nullptr) return true;
    try {
        return plan.cont(info, completed, loop_ud) != 0;
    } catch (...) {
        report(false, d.info.dispatch_id, prefix(d.info.dispatch_id) + "replay_continue threw; the loop ends");
        return false;
    }
}

// Drain, snapshot, the passes, release. Runs under the agent lock.
void run_loop(DevicePort& port, const Dispatch& d, const ReplaySubscription& sub, const Plan& plan,
              gorocprof_user_data_t loop_ud, Outcome& out) {
    const uint64_t id = d.info.dispatch_id;
    std::lock_guard<std::mutex> agent(state().agents.of(d.info.agent_id.handle));
    OpenWindow window(state().agents.open_windows);

    PortStatus st = guarded("DevicePort::drain", [&] { return port.drain(d); });
    Snapshot* snap = nullptr;
    if (st.ok) st = guarded("DevicePort::snapshot", [&] { return port.snapshot(d, &snap); });
    if (st.ok && snap == nullptr) st = PortStatus::failure("DevicePort::snapshot", "returned success without a snapshot");
    if (!st.ok) {
        out.declined = true;
        out.decline_reason = st.message();
        report(false, id, prefix(id) + "replay declined, the dispatch runs once: " + out.decline_reason);
        run_once(port, d, /*lock_agent=*/false, out);
        return;
    }
    SnapshotGuard release(port, snap);
    out.replayed = true;

    LoopState loop;
    loop.active_at_start = detail::started_mask();
    LoopScope scope(&loop);
    const auto info = base_payload(d).dispatch_info;

    for (uint64_t pass = 0;; ++pass) {
        if (pass > 0) {
            st = guarded("DevicePort::restore", [&] { return port.restore(d, *snap); });
            if (!st.ok) {
                out.failed = true;
                out.failure = st.message();
                report(true, id,
                       prefix(id) + "restore before pass " + std::to_string(pass) + " failed, replay stops and "
                           "device memory may differ from one run: " + out.failure);
                return;
            }
        }
        gorocprof_user_data_t pass_ud = loop_ud;  // writes in one pass do not leak into the next
        t_current_pass = pass;
        auto p = base_payload(d);
        p.current_pass = pass;
        p.total_passes = plan.passes;
        p.replay_start_context = detail::local_start_context;
        p.replay_stop_context = detail::local_stop_context;
        auto enter = p;
        loop.in_pass_enter = true;
        deliver(sub, d, GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_ENTER, &enter, &pass_ud);
        loop.in_pass_enter = false;

        st = submit(port, d, pass);
        if (st.ok) ++out.passes_run;

        deliver(sub, d, GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_EXIT, &p, &pass_ud);
        t_current_pass = kNoPass;
        if (!st.ok) {
            out.failed = true;
            out.failure = st.message();
            report(true, id, prefix(id) + "pass " + std::to_string(pass) + " failed, replay stops: " + out.failure);
            return;
        }
        // The break comes before any restore, so memory stays as this last pass left it.
        if (!keep_going(plan, d, info, pass, loop_ud)) return;
    }
}

}  // namespace

ReplayService& ReplayService::instance() {
    static ReplayService s;
    return s;
}

bool ReplayService::enabled() const { return detail::replay_domain_enabled(); }

uint64_t ReplayService::reserve_dispatch_id() {
    return state().last_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1;
}

Outcome ReplayService::execute(DevicePort& port, Dispatch& d) {
    Outcome out;
    out.dispatch_id = d.info.dispatch_id;
    const uint64_t entry_pass = t_current_pass;
    CompletionGuard completion(port, d);  // destroyed last: after the lock and the flag are gone
    try {
        if (t_in_window > 0) {
            // Nested in a window of this thread: the agent lock (if any) is ours already.
            run_once(port, d, /*lock_agent=*/false, out);
            return out;
        }
        WindowFlag flag;
        ReplaySubscription sub;
        if (!enabled() || !detail::replay_subscription(&sub)) {
            bool window_open = state().agents.open_windows.load(std::memory_order_acquire) > 0;
            run_once(port, d, window_open, out);
            return out;
        }
        gorocprof_user_data_t loop_ud{};
        Plan plan = configure(sub, d, &loop_ud);
        if (!plan.replay()) {
            run_once(port, d, /*lock_agent=*/true, out);
            return out;
        }
        run_loop(port, d, sub, plan, loop_ud, out);
    } catch (const std::exception& e) {
        t_current_pass = entry_pass;
        out.failed = true;
        report(true, out.dispatch_id, prefix(out.dispatch_id) + "replay service error: " + e.what());
    } catch (...) {
        t_current_pass = entry_pass;
        out.failed = true;
        report(true, out.dispatch_id, prefix(out.dispatch_id) + "replay service error: unknown exception");
    }
    return out;
}

uint64_t ReplayService::current_pass() { return t_current_pass; }

void ReplayService::set_diagnostic_sink(DiagnosticSink sink) {
    std::lock_guard<std::mutex> lock(state().sink_mu);
    state().sink = std::move(sink);
}

void ReplayService::reset_for_testing() {
    detail::reset_contexts();
    state().last_dispatch_id.store(0, std::memory_order_relaxed);
    set_diagnostic_sink(nullptr);
}

}  // namespace gorocprof::replay
