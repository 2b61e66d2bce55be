// The CONFIG/PASS loop: order of events, the pass-count table, replay_continue, dispatch identity,
// correlation, user_data, the one completion, current_pass.
#include "check.hpp"
#include "tool_harness.hpp"

#include <replay_service.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

using gorocprof::replay::Outcome;
using gorocprof::replay::ReplayService;
using fake::Port;
using fake::Tool;

namespace {

constexpr uint64_t kX = 0x1000;

Outcome run(Port& port, gorocprof::replay::Dispatch* out_d = nullptr) {
    auto d = fake::make_dispatch();
    if (out_d) *out_d = d;
    return ReplayService::instance().execute(port, d);
}

std::vector<uint64_t> passes_of(const std::vector<fake::Event>& events) {
    std::vector<uint64_t> out;
    for (const auto& e : events) out.push_back(e.current_pass);
    return out;
}

size_t pass_enters(const Tool& t) { return t.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_ENTER).size(); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The single-run path: no drain, no snapshot, no PASS callback, one submit with UINT64_MAX.
void check_ran_once(const Port& port, const Tool& tool, const Outcome& out) {
    CHECK(!out.replayed);
    CHECK_EQ(out.passes_run, uint64_t{1});
    CHECK_EQ(port.submit_passes, (std::vector<uint64_t>{UINT64_MAX}));
    CHECK_EQ(port.count("drain") + port.count("snapshot") + port.count("restore"), size_t{0});
    CHECK_EQ(pass_enters(tool), size_t{0});
    CHECK_EQ(port.completions, 1);
}

}  // namespace

TEST_CASE(order_config_pass_count_exit_passes_complete) {
    Port port;
    Tool tool(&port);
    tool.pass_count = 3;
    tool.install_continue = true;
    run(port);
    CHECK_EQ(port.events(),
             (std::vector<std::string>{"CONFIG ENTER", "pass_count", "CONFIG EXIT", "drain", "snapshot",
                                       "PASS ENTER 0", "submit 0", "PASS EXIT 0", "continue 0", "restore",
                                       "PASS ENTER 1", "submit 1", "PASS EXIT 1", "continue 1", "restore",
                                       "PASS ENTER 2", "submit 2", "PASS EXIT 2", "release", "complete"}));
}

TEST_CASE(zero_payload_runs_once) {
    Port port;
    Tool tool(&port);
    tool.install_pass_count = false;
    auto out = run(port);
    check_ran_once(port, tool, out);
    CHECK_EQ(port.events(), (std::vector<std::string>{"CONFIG ENTER", "CONFIG EXIT", "submit once", "complete"}));
}

TEST_CASE(pass_count_null_runs_once) {
    Port port;
    Tool tool;
    tool.install_pass_count = false;
    tool.install_continue = true;  // ignored without a pass count
    auto out = run(port);
    check_ran_once(port, tool, out);
    CHECK(tool.continue_passes.empty());
}

TEST_CASE(pass_count_one_runs_once) {
    Port port;
    Tool tool;
    tool.pass_count = 1;
    tool.install_continue = true;
    auto out = run(port);
    check_ran_once(port, tool, out);
    CHECK_EQ(tool.pass_count_user_data.size(), size_t{1});
    CHECK(tool.continue_passes.empty());
}

TEST_CASE(pass_count_n_without_continue_runs_exactly_n) {
    Port port;
    Tool tool;
    tool.pass_count = 4;
    auto out = run(port);
    CHECK(out.replayed);
    CHECK_EQ(out.passes_run, uint64_t{4});
    auto enters = tool.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_ENTER);
    CHECK_EQ(passes_of(enters), (std::vector<uint64_t>{0, 1, 2, 3}));
    for (const auto& e : enters) CHECK_EQ(e.total_passes, uint64_t{4});
    CHECK_EQ(port.submit_passes, (std::vector<uint64_t>{0, 1, 2, 3}));
}

TEST_CASE(pass_count_n_with_continue_exits_early) {
    Port port;
    Tool tool;
    tool.pass_count = 5;
    tool.install_continue = true;
    tool.keep_going = [](uint64_t completed, gorocprof_user_data_t) { return completed < 2 ? 1 : 0; };
    auto out = run(port);
    CHECK_EQ(out.passes_run, uint64_t{3});
    CHECK_EQ(tool.continue_passes, (std::vector<uint64_t>{0, 1, 2}));
    CHECK_EQ(port.submit_passes, (std::vector<uint64_t>{0, 1, 2}));
    for (const auto& e : tool.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_ENTER))
        CHECK_EQ(e.total_passes, uint64_t{5});
}

TEST_CASE(pass_count_zero_with_continue_is_indefinite) {
    Port port;
    Tool tool;
    tool.pass_count = 0;
    tool.install_continue = true;
    tool.keep_going = [](uint64_t completed, gorocprof_user_data_t) { return completed == 6 ? 0 : 1; };
    auto out = run(port);
    CHECK(out.replayed);
    CHECK_EQ(out.passes_run, uint64_t{7});
    auto enters = tool.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_ENTER);
    CHECK_EQ(enters.size(), size_t{7});
    for (const auto& e : enters) CHECK_EQ(e.total_passes, uint64_t{0});
    CHECK_EQ(port.completions, 1);
}

TEST_CASE(pass_count_zero_without_continue_rejected) {
    fake::Diagnostics diag;
    Port port;
    Tool tool;
    tool.pass_count = 0;
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    check_ran_once(port, tool, out);
    auto msgs = diag.all();
    CHECK_EQ(msgs.size(), size_t{1});
    if (!msgs.empty()) {
        CHECK(!msgs[0].fatal);
        CHECK_EQ(msgs[0].dispatch_id, d.info.dispatch_id);
        CHECK(contains(msgs[0].message, "replay_pass_count returned 0"));
        CHECK(contains(msgs[0].message, "replay_continue"));
    }
}

TEST_CASE(fixed_loop_consults_continue_after_0_to_n_minus_2) {
    Port port;
    Tool tool;
    tool.pass_count = 4;
    tool.install_continue = true;
    auto out = run(port);
    CHECK_EQ(out.passes_run, uint64_t{4});
    CHECK_EQ(tool.continue_passes, (std::vector<uint64_t>{0, 1, 2}));
}

TEST_CASE(indefinite_loop_consults_continue_after_every_pass) {
    Port port;
    Tool tool;
    tool.pass_count = 0;
    tool.install_continue = true;
    tool.keep_going = [](uint64_t completed, gorocprof_user_data_t) { return completed < 1 ? 1 : 0; };
    auto out = run(port);
    CHECK_EQ(out.passes_run, uint64_t{2});
    CHECK_EQ(tool.continue_passes, (std::vector<uint64_t>{0, 1}));  // including the one that ends it
}

TEST_CASE(continue_follows_pass_exit) {
    Port port;
    Tool tool(&port);
    tool.pass_count = 0;
    tool.install_continue = true;
    tool.keep_going = [](uint64_t completed, gorocprof_user_data_t) { return completed < 2 ? 1 : 0; };
    run(port);
    auto ev = port.events();
    int checked = 0;
    for (size_t i = 0; i + 1 < ev.size(); ++i) {
        if (ev[i].rfind("PASS EXIT ", 0) != 0) continue;
        CHECK_EQ(ev[i + 1], "continue " + ev[i].substr(10));
        ++checked;
    }
    CHECK_EQ(checked, 3);
}

TEST_CASE(break_happens_before_restore) {
    Port port;
    port.mem.allocate(kX, {0});
    port.kernel = [](Port& p, uint64_t pass) { p.mem.at(kX)[0] = 100.0f + static_cast<float>(pass); };
    Tool tool(&port);
    tool.pass_count = 5;
    tool.install_continue = true;
    tool.keep_going = [](uint64_t completed, gorocprof_user_data_t) { return completed < 2 ? 1 : 0; };
    run(port);
    CHECK_EQ(port.mem.at(kX)[0], 102.0f);  // as the last executed pass left it
    CHECK_EQ(port.count("restore"), size_t{2});
    auto ev = port.events();
    CHECK_EQ(std::vector<std::string>(ev.end() - 3, ev.end()),
             (std::vector<std::string>{"continue 2", "release", "complete"}));
}

TEST_CASE(dispatch_id_reserved_once_and_contiguous) {
    auto& svc = ReplayService::instance();
    Port port;
    Tool tool;
    tool.pass_count = 3;
    std::vector<uint64_t> ids;
    for (int i = 0; i < 3; ++i) {
        auto d = fake::make_dispatch();
        ids.push_back(d.info.dispatch_id);
        auto out = svc.execute(port, d);
        CHECK_EQ(out.dispatch_id, d.info.dispatch_id);
    }
    CHECK_EQ(ids, (std::vector<uint64_t>{1, 2, 3}));  // execute() reserves nothing itself
    CHECK_EQ(svc.reserve_dispatch_id(), uint64_t{4});
}

TEST_CASE(dispatch_id_same_on_every_pass_and_fall_through) {
    Port port;
    Tool tool;
    tool.pass_count = 3;
    tool.install_continue = true;
    gorocprof::replay::Dispatch d;
    run(port, &d);
    CHECK_EQ(tool.events.size(), size_t{8});  // CONFIG x2 + PASS x6
    for (const auto& e : tool.events) CHECK_EQ(e.dispatch_id, d.info.dispatch_id);
    CHECK_EQ(port.submit_dispatch_ids, (std::vector<uint64_t>(3, d.info.dispatch_id)));
    CHECK_EQ(tool.continue_dispatch_ids, (std::vector<uint64_t>(2, d.info.dispatch_id)));

    Port once;
    tool.pass_count = 1;
    gorocprof::replay::Dispatch d2;
    run(once, &d2);
    CHECK_EQ(once.submit_dispatch_ids, (std::vector<uint64_t>{d2.info.dispatch_id}));
    CHECK_EQ(tool.events.back().dispatch_id, d2.info.dispatch_id);

    Port declined;
    declined.fail_snapshot = true;
    tool.pass_count = 3;
    fake::Diagnostics quiet;
    gorocprof::replay::Dispatch d3;
    run(declined, &d3);
    CHECK_EQ(declined.submit_dispatch_ids, (std::vector<uint64_t>{d3.info.dispatch_id}));
}

TEST_CASE(correlation_same_on_every_pass) {
    Port port;
    Tool tool;
    tool.pass_count = 4;
    gorocprof::replay::Dispatch d;
    run(port, &d);
    CHECK_EQ(tool.events.size(), size_t{10});
    for (const auto& e : tool.events) {
        CHECK_EQ(e.correlation.internal, d.correlation.internal);
        CHECK_EQ(e.correlation.external.value, d.correlation.external.value);
        CHECK_EQ(e.correlation.ancestor, d.correlation.ancestor);
    }
}

TEST_CASE(user_data_seeds_passes_without_leaking) {
    Port port;
    Tool tool;
    tool.pass_count = 3;
    tool.install_continue = true;
    tool.on_config_enter = [](auto&, auto*, gorocprof_user_data_t* ud) { ud->value = 0xC0FFEE; };
    tool.on_pass_enter = [](auto&, fake::Payload* p, gorocprof_user_data_t* ud) { ud->value = 1000 + p->current_pass; };
    run(port);
    CHECK_EQ(tool.pass_count_user_data, (std::vector<uint64_t>{0xC0FFEE}));
    CHECK_EQ(tool.continue_user_data, (std::vector<uint64_t>{0xC0FFEE, 0xC0FFEE}));
    auto enters = tool.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_ENTER);
    auto exits = tool.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_EXIT);
    CHECK_EQ(enters.size(), size_t{3});
    CHECK_EQ(exits.size(), size_t{3});
    for (size_t i = 0; i < enters.size() && i < exits.size(); ++i) {
        CHECK_EQ(enters[i].user_data, uint64_t{0xC0FFEE});  // seeded, not the previous pass's write
        CHECK_EQ(exits[i].user_data, uint64_t{1000 + i});   // this pass's write
    }
    CHECK_EQ(tool.of(GOROCPROF_KERNEL_REPLAY_CONFIG, GOROCPROF_CALLBACK_PHASE_EXIT)[0].user_data, uint64_t{0xC0FFEE});

    // A new loop starts from zero again.
    tool.on_config_enter = nullptr;
    Port second;
    run(second);
    CHECK_EQ(tool.pass_count_user_data.back(), uint64_t{0});
}

TEST_CASE(one_completion_after_the_loop) {
    struct Case {
        uint64_t passes;
        bool cont;
        int stop_after;  // continue returns 0 after this pass; -1 never
    };
    for (Case c : {Case{1, false, -1}, Case{4, false, -1}, Case{4, true, 1}, Case{0, true, 2}}) {
        ReplayService::instance().reset_for_testing();
        Port port;
        Tool tool(&port);
        tool.pass_count = c.passes;
        tool.install_continue = c.cont;
        tool.keep_going = [c](uint64_t completed, gorocprof_user_data_t) {
            return static_cast<int>(completed) == c.stop_after ? 0 : 1;
        };
        run(port);
        CHECK_EQ(port.completions, 1);
        auto ev = port.events();
        CHECK_EQ(ev.back(), std::string("complete"));
        CHECK_EQ(port.count("complete"), size_t{1});
    }
}

TEST_CASE(current_pass_is_thread_local) {
    Port port;
    Tool tool;
    tool.pass_count = 3;
    std::vector<uint64_t> in_enter, other_thread;
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        CHECK_EQ(ReplayService::current_pass(), p->current_pass);
        in_enter.push_back(ReplayService::current_pass());
        std::thread([&] { other_thread.push_back(ReplayService::current_pass()); }).join();
    };
    tool.on_config_enter = [](auto&, auto*, auto*) { CHECK_EQ(ReplayService::current_pass(), UINT64_MAX); };
    run(port);
    CHECK_EQ(in_enter, (std::vector<uint64_t>{0, 1, 2}));
    CHECK_EQ(other_thread, (std::vector<uint64_t>(3, UINT64_MAX)));
    CHECK_EQ(port.current_pass_at_submit, (std::vector<uint64_t>{0, 1, 2}));
    CHECK_EQ(ReplayService::current_pass(), UINT64_MAX);

    Port once;
    tool.pass_count = 1;
    run(once);
    CHECK_EQ(once.current_pass_at_submit, (std::vector<uint64_t>{UINT64_MAX}));
}

TEST_CASE(operations_filter) {
    auto& svc = ReplayService::instance();
    {
        // Without CONFIG the domain does not activate replay: dispatches run once, no callbacks.
        Port port;
        Tool tool(nullptr, {GOROCPROF_KERNEL_REPLAY_PASS});
        CHECK_EQ(tool.configure_status, GOROCPROF_STATUS_SUCCESS);
        tool.pass_count = 3;
        CHECK(!svc.enabled());
        auto out = run(port);
        CHECK_EQ(out.passes_run, uint64_t{1});
        CHECK(tool.events.empty());
    }
    svc.reset_for_testing();
    {
        // CONFIG only: the loop runs, PASS callbacks are not delivered.
        Port port;
        Tool tool(nullptr, {GOROCPROF_KERNEL_REPLAY_CONFIG});
        tool.pass_count = 3;
        CHECK(svc.enabled());
        auto out = run(port);
        CHECK_EQ(out.passes_run, uint64_t{3});
        CHECK_EQ(tool.events.size(), size_t{2});
    }
    svc.reset_for_testing();
    {
        gorocprof_context_id_t ctx;
        CHECK_EQ(gorocprof_create_context(&ctx), GOROCPROF_STATUS_SUCCESS);
        for (uint32_t bad : {uint32_t{GOROCPROF_KERNEL_REPLAY_NONE}, uint32_t{GOROCPROF_KERNEL_REPLAY_LAST}}) {
            CHECK_EQ(gorocprof_configure_callback_tracing_service(ctx, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY,
                                                                  &bad, 1, [](auto, auto*, void*) {}, nullptr),
                     GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT);
        }
    }
}

TEST_CASE(disabled_service_runs_once) {
    auto& svc = ReplayService::instance();
    Port port;
    CHECK(!svc.enabled());
    auto out = run(port);
    CHECK_EQ(out.passes_run, uint64_t{1});
    CHECK_EQ(port.events(), (std::vector<std::string>{"submit once", "complete"}));

    Tool tool;  // configured and started, then stopped: disabled again
    tool.pass_count = 3;
    CHECK(svc.enabled());
    CHECK_EQ(gorocprof_stop_context(tool.context), GOROCPROF_STATUS_SUCCESS);
    CHECK(!svc.enabled());
    Port stopped;
    out = run(stopped);
    CHECK_EQ(stopped.events(), (std::vector<std::string>{"submit once", "complete"}));
    CHECK(tool.events.empty());
}

TEST_CASE(diagnostics_default_to_stderr) {
    char path[] = "/tmp/gorocprof-replay-stderr-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    std::fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    {
        Port port;
        Tool tool;
        tool.pass_count = 0;  // rejected: no replay_continue
        run(port);
    }
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    unlink(path);
    CHECK(contains(text.str(), "gorocprof-tool: warning: dispatch 1: replay_pass_count returned 0"));
}
