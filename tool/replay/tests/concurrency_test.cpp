// Replay windows under concurrency (run under ThreadSanitizer with `ctest -L concurrency`): no other
// thread's dispatch lands inside a window on the same agent, re-entrant dispatches neither deadlock
// nor nest, localized overrides stay on their thread.
#include "check.hpp"
#include "tool_harness.hpp"

#include <replay_service.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <set>
#include <thread>

using gorocprof::replay::Dispatch;
using gorocprof::replay::DevicePort;
using gorocprof::replay::PortStatus;
using gorocprof::replay::ReplayService;
using gorocprof::replay::Snapshot;
using fake::Port;
using fake::Tool;

namespace {

// Fails the process (instead of hanging ctest) when `body` does not finish in time.
void within_seconds(int seconds, const std::function<void()>& body) {
    auto done = std::async(std::launch::async, body);
    if (done.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
        std::fprintf(stderr, "deadlock: the test body did not finish within %d s\n", seconds);
        std::_Exit(1);
    }
    done.get();
}

// One agent's device memory: a plain int, deliberately unsynchronised. Only the service's agent lock
// orders the threads that touch it, so a missing lock shows up as a TSan race or a violation.
struct Agent {
    int memory = 0;
    bool in_window = false;
    std::thread::id owner;
    int violations = 0;
};

struct SavedInt : Snapshot {
    int memory;
    explicit SavedInt(int m) : memory(m) {}
};

class AgentPort : public DevicePort {
public:
    explicit AgentPort(Agent& a) : a_(a) {}
    PortStatus drain(const Dispatch&) override { return PortStatus::success(); }
    PortStatus snapshot(const Dispatch&, Snapshot** out) override {
        if (a_.in_window) ++a_.violations;
        a_.in_window = true;
        a_.owner = std::this_thread::get_id();
        *out = new SavedInt(a_.memory);
        saved_ = a_.memory;
        return PortStatus::success();
    }
    PortStatus restore(const Dispatch&, Snapshot& s) override {
        a_.memory = static_cast<SavedInt&>(s).memory;
        return PortStatus::success();
    }
    void release(Snapshot* s) override {
        a_.in_window = false;
        delete s;
    }
    PortStatus submit(const Dispatch&, uint64_t pass) override {
        if (a_.in_window && a_.owner != std::this_thread::get_id()) ++a_.violations;
        if (pass != UINT64_MAX && a_.memory != saved_) ++a_.violations;  // someone wrote inside our window
        std::this_thread::yield();
        a_.memory += 1;
        return PortStatus::success();
    }
    void complete(const Dispatch&) override { ++completions; }
    int completions = 0;

private:
    Agent& a_;
    int saved_ = 0;
};

class Barrier {
public:
    explicit Barrier(int n) : n_(n) {}
    bool arrive_and_wait() {
        std::unique_lock<std::mutex> lock(mu_);
        if (--n_ == 0) cv_.notify_all();
        return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return n_ <= 0; });
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    int n_;
};

}  // namespace

TEST_CASE(other_threads_never_inside_a_window) {
    Tool tool;
    tool.pass_count = 3;
    // Half the dispatches run once (no pass count), so single runs and windows mix on each agent.
    tool.on_config_enter = [](auto&, fake::Payload* p, auto*) {
        if (p->dispatch_info.dispatch_id % 2) p->replay_pass_count = nullptr;
    };
    Agent agents[2];
    constexpr int kThreads = 4, kDispatches = 40;
    within_seconds(60, [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                uint64_t agent = static_cast<uint64_t>(t % 2);
                AgentPort port(agents[agent]);
                for (int i = 0; i < kDispatches; ++i) {
                    auto d = fake::make_dispatch(agent);
                    ReplayService::instance().execute(port, d);
                }
                CHECK_EQ(port.completions, kDispatches);
            });
        }
        for (auto& th : threads) th.join();
    });
    for (auto& a : agents) {
        CHECK_EQ(a.violations, 0);
        CHECK_EQ(a.memory, kThreads / 2 * kDispatches);  // every dispatch counted once, replay or not
    }
}

TEST_CASE(reentrant_dispatch_from_callbacks_runs_once) {
    Port port;
    Tool tool(&port);
    tool.pass_count = 3;
    tool.install_continue = true;
    std::vector<std::vector<std::string>> nested_events;
    auto launch_nested = [&] {
        Port nested;
        auto d = fake::make_dispatch(1);  // the same agent as the replayed dispatch
        auto out = ReplayService::instance().execute(nested, d);
        CHECK(!out.replayed);
        CHECK_EQ(nested.current_pass_at_submit, (std::vector<uint64_t>{UINT64_MAX}));
        nested_events.push_back(nested.events());
    };
    tool.on_config_enter = [&](auto&, auto*, auto*) { launch_nested(); };
    tool.on_pass_enter = [&](auto&, auto*, auto*) { launch_nested(); };
    tool.on_pass_exit = [&](auto&, auto*, auto*) { launch_nested(); };
    within_seconds(20, [&] {
        auto d = fake::make_dispatch(1);
        auto out = ReplayService::instance().execute(port, d);
        CHECK_EQ(out.passes_run, uint64_t{3});
    });
    CHECK_EQ(nested_events.size(), size_t{7});
    for (const auto& ev : nested_events) CHECK_EQ(ev, (std::vector<std::string>{"submit once", "complete"}));
    // No second CONFIG: the nested dispatches never reached the tool.
    CHECK_EQ(tool.of(GOROCPROF_KERNEL_REPLAY_CONFIG, GOROCPROF_CALLBACK_PHASE_ENTER).size(), size_t{1});
    CHECK_EQ(port.completions, 1);
}

TEST_CASE(reentrant_dispatch_from_submit_runs_once) {
    Tool tool;
    int nested_runs = 0;
    auto kernel = [&](Port&, uint64_t) {
        Port helper;
        auto d = fake::make_dispatch(1);
        ReplayService::instance().execute(helper, d);
        nested_runs += helper.completions;
        CHECK_EQ(helper.submit_passes, (std::vector<uint64_t>{UINT64_MAX}));
    };
    for (uint64_t passes : {uint64_t{3}, uint64_t{1}}) {  // inside a window, and inside a locked single run
        Port port;
        port.kernel = kernel;
        tool.pass_count = passes;
        within_seconds(20, [&] {
            auto d = fake::make_dispatch(1);
            ReplayService::instance().execute(port, d);
        });
        CHECK_EQ(port.completions, 1);
    }
    CHECK_EQ(nested_runs, 4);
    CHECK_EQ(tool.of(GOROCPROF_KERNEL_REPLAY_CONFIG, GOROCPROF_CALLBACK_PHASE_ENTER).size(), size_t{2});
}

TEST_CASE(local_overrides_only_on_replaying_thread) {
    Tool tool;
    tool.pass_count = 3;
    gorocprof_context_id_t timing{};
    CHECK_EQ(gorocprof_create_context(&timing), GOROCPROF_STATUS_SUCCESS);
    CHECK_EQ(gorocprof_start_context(timing), GOROCPROF_STATUS_SUCCESS);
    // Agent 0's loop stops `timing` from pass 1; agent 1's loop, running at the same time, does not.
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        if (p->dispatch_info.agent_id.handle == 0 && p->current_pass == 1) p->replay_stop_context(timing);
    };
    Barrier both_in_pass_1(2);
    std::vector<int> seen[2];
    bool met[2] = {true, true};
    within_seconds(30, [&] {
        std::vector<std::thread> threads;
        for (uint64_t agent = 0; agent < 2; ++agent) {
            threads.emplace_back([&, agent] {
                Port port;
                port.kernel = [&](Port&, uint64_t pass) {
                    if (pass == 1) met[agent] = both_in_pass_1.arrive_and_wait();
                    int on = -1;
                    gorocprof_context_is_effective(timing, &on);
                    seen[agent].push_back(on);
                };
                auto d = fake::make_dispatch(agent);
                ReplayService::instance().execute(port, d);
            });
        }
        for (auto& th : threads) th.join();
    });
    CHECK(met[0] && met[1]);  // the two loops really overlapped
    CHECK_EQ(seen[0], (std::vector<int>{1, 0, 0}));
    CHECK_EQ(seen[1], (std::vector<int>{1, 1, 1}));
}

TEST_CASE(disabled_dispatches_in_parallel) {
    CHECK(!ReplayService::instance().enabled());
    constexpr int kThreads = 4, kDispatches = 500;
    std::vector<uint64_t> ids[kThreads];
    int completions[kThreads] = {};
    within_seconds(60, [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                struct Quiet : DevicePort {
                    PortStatus drain(const Dispatch&) override { return PortStatus::failure("drain", "unexpected"); }
                    PortStatus snapshot(const Dispatch&, Snapshot**) override {
                        return PortStatus::failure("snapshot", "unexpected");
                    }
                    PortStatus restore(const Dispatch&, Snapshot&) override {
                        return PortStatus::failure("restore", "unexpected");
                    }
                    void release(Snapshot*) override {}
                    PortStatus submit(const Dispatch&, uint64_t pass) override {
                        if (pass != UINT64_MAX) return PortStatus::failure("submit", "unexpected pass");
                        return PortStatus::success();
                    }
                    void complete(const Dispatch&) override { ++done; }
                    int done = 0;
                } port;
                for (int i = 0; i < kDispatches; ++i) {
                    Dispatch d;
                    d.info.dispatch_id = ReplayService::instance().reserve_dispatch_id();
                    ids[t].push_back(d.info.dispatch_id);
                    auto out = ReplayService::instance().execute(port, d);
                    if (out.failed || out.passes_run != 1) CHECK(false);
                }
                completions[t] = port.done;
            });
        }
        for (auto& th : threads) th.join();
    });
    std::set<uint64_t> all;
    for (int t = 0; t < kThreads; ++t) {
        CHECK_EQ(completions[t], kDispatches);
        all.insert(ids[t].begin(), ids[t].end());
    }
    CHECK_EQ(all.size(), size_t{kThreads * kDispatches});
    CHECK_EQ(*all.begin(), uint64_t{1});
    CHECK_EQ(*all.rbegin(), uint64_t{kThreads * kDispatches});
}
