// Snapshot and restore as the service drives them: memory after a replayed dispatch is what one run
// leaves; drain and snapshot once, restore before every pass but the first; a failed snapshot
// declines, a failed restore is fatal, a failed submit ends the loop.
#include "check.hpp"
#include "tool_harness.hpp"

#include <replay_service.hpp>

using gorocprof::replay::ReplayService;
using fake::Port;
using fake::Tool;

namespace {

constexpr uint64_t kX = 0x1000, kY = 0x2000, kZ = 0x3000;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE(restore_reverts_written_buffer) {
    Port port;
    port.mem.allocate(kX, {1, 2, 3, 4});
    std::vector<std::vector<float>> seen;
    port.kernel = [&](Port& p, uint64_t) {
        seen.push_back(p.mem.at(kX));
        for (auto& v : p.mem.at(kX)) v += 1;
    };
    Tool tool;
    tool.pass_count = 3;
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK(out.replayed);
    CHECK_EQ(out.passes_run, uint64_t{3});
    std::vector<float> original{1, 2, 3, 4};
    CHECK_EQ(seen.size(), size_t{3});
    for (const auto& s : seen) CHECK_EQ(s, original);  // every pass starts from the snapshot
    CHECK_EQ(port.mem.at(kX), (std::vector<float>{2, 3, 4, 5}));
}

TEST_CASE(saxpy_five_passes_leave_y_as_one_run) {
    auto saxpy = [](Port& p, uint64_t) {
        const auto& x = p.mem.at(kX);
        auto& y = p.mem.at(kY);
        for (size_t i = 0; i < y.size(); ++i) y[i] = 2.0f * x[i] + y[i];
    };
    Port once;
    once.mem.allocate(kX, {1, 2, 3, 4, 5, 6, 7, 8});
    once.mem.allocate(kY, {10, 20, 30, 40, 50, 60, 70, 80});
    once.kernel = saxpy;
    auto d0 = fake::make_dispatch();
    ReplayService::instance().execute(once, d0);  // no tool: a plain run

    Port port;
    port.mem = once.mem;
    port.mem.at(kY) = {10, 20, 30, 40, 50, 60, 70, 80};
    port.kernel = saxpy;
    Tool tool;
    tool.pass_count = 5;
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK_EQ(out.passes_run, uint64_t{5});
    CHECK_EQ(port.mem.at(kY), once.mem.at(kY));
    CHECK_EQ(port.mem.at(kY)[0], 12.0f);
    CHECK_EQ(port.mem.at(kX), once.mem.at(kX));
}

TEST_CASE(module_variable_7_8_7_per_pass) {
    Port port;
    port.mem.module_variable = 7;
    std::vector<int> at_enter, at_exit;
    port.kernel = [](Port& p, uint64_t) { ++p.mem.module_variable; };
    Tool tool;
    tool.pass_count = 4;
    tool.on_pass_enter = [&](auto&, auto*, auto*) { at_enter.push_back(port.mem.module_variable); };
    tool.on_pass_exit = [&](auto&, auto*, auto*) { at_exit.push_back(port.mem.module_variable); };
    auto d = fake::make_dispatch();
    ReplayService::instance().execute(port, d);
    CHECK_EQ(at_enter, (std::vector<int>{7, 7, 7, 7}));
    CHECK_EQ(at_exit, (std::vector<int>{8, 8, 8, 8}));
    CHECK_EQ(port.mem.module_variable, 8);
}

TEST_CASE(drain_snapshot_once_restore_between_passes) {
    Port port;
    port.mem.allocate(kX, {0});
    Tool tool;
    tool.pass_count = 4;
    auto d = fake::make_dispatch();
    ReplayService::instance().execute(port, d);
    CHECK_EQ(port.events(), (std::vector<std::string>{"drain", "snapshot", "submit 0", "restore", "submit 1",
                                                      "restore", "submit 2", "restore", "submit 3", "release",
                                                      "complete"}));
    CHECK_EQ(port.live_snapshots(), 0);
}

// The port contract the service relies on (device_port.hpp): restore skips memory freed since the
// snapshot and never writes an address whose allocation was freed and reused.
TEST_CASE(fake_port_restore_skips_freed_and_reused) {
    Port port;
    port.mem.allocate(kX, {1, 1});
    port.mem.allocate(kY, {2, 2});
    port.mem.allocate(kZ, {3, 3});
    auto d = fake::make_dispatch();
    gorocprof::replay::Snapshot* snap = nullptr;
    CHECK(port.snapshot(d, &snap).ok);
    port.mem.at(kX) = {9, 9};
    port.mem.free(kY);
    port.mem.allocate(kY, {5, 5});  // same address, a new allocation
    port.mem.free(kZ);
    CHECK(port.restore(d, *snap).ok);
    port.release(snap);
    CHECK_EQ(port.mem.at(kX), (std::vector<float>{1, 1}));
    CHECK_EQ(port.mem.at(kY), (std::vector<float>{5, 5}));
    CHECK(port.mem.allocations.count(kZ) == 0);
    CHECK_EQ(port.restored_buffers, 1);
    CHECK_EQ(port.skipped_reused, 1);
    CHECK_EQ(port.skipped_freed, 1);
}

TEST_CASE(freed_and_reused_during_window_not_written) {
    Port port;
    port.mem.allocate(kX, {1});
    port.mem.allocate(kY, {2});
    port.mem.allocate(kZ, {3});
    port.kernel = [](Port& p, uint64_t) { p.mem.at(kX)[0] += 1; };
    Tool tool;
    tool.pass_count = 3;
    // Between pass 0 and pass 1 (inside the window) the app frees Z, and Y's address is reused.
    tool.on_pass_exit = [&](auto&, fake::Payload* p, auto*) {
        if (p->current_pass != 0) return;
        port.mem.free(kZ);
        port.mem.free(kY);
        port.mem.allocate(kY, {42});
    };
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK(!out.failed);
    CHECK_EQ(out.passes_run, uint64_t{3});
    CHECK_EQ(port.mem.at(kX)[0], 2.0f);
    CHECK_EQ(port.mem.at(kY)[0], 42.0f);
    CHECK(port.mem.allocations.count(kZ) == 0);
    CHECK_EQ(port.skipped_reused, 2);  // restores before pass 1 and pass 2
    CHECK_EQ(port.skipped_freed, 2);
}

TEST_CASE(snapshot_failure_declines_and_runs_once) {
    fake::Diagnostics diag;
    Port port;
    port.fail_snapshot = true;
    port.mem.allocate(kX, {1});
    port.kernel = [](Port& p, uint64_t) { p.mem.at(kX)[0] += 1; };
    Tool tool;
    tool.pass_count = 3;
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK(out.declined);
    CHECK(!out.replayed);
    CHECK(!out.failed);
    CHECK_EQ(out.passes_run, uint64_t{1});
    CHECK_EQ(out.decline_reason, std::string("fake::snapshot: no room for 4096 bytes of backup"));
    CHECK_EQ(port.submit_passes, (std::vector<uint64_t>{UINT64_MAX}));
    CHECK_EQ(port.submit_dispatch_ids, (std::vector<uint64_t>{d.info.dispatch_id}));
    CHECK_EQ(port.mem.at(kX)[0], 2.0f);
    CHECK_EQ(port.completions, 1);
    CHECK(tool.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_ENTER).empty());
    auto msgs = diag.all();
    CHECK_EQ(msgs.size(), size_t{1});
    if (!msgs.empty()) {
        CHECK(!msgs[0].fatal);
        CHECK_EQ(msgs[0].dispatch_id, d.info.dispatch_id);
        CHECK(contains(msgs[0].message, "declined"));
        CHECK(contains(msgs[0].message, "fake::snapshot: no room"));
    }
}

TEST_CASE(drain_failure_declines_and_runs_once) {
    fake::Diagnostics diag;
    Port port;
    port.fail_drain = true;
    Tool tool;
    tool.pass_count = 2;
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK(out.declined);
    CHECK_EQ(out.decline_reason, std::string("fake::drain: injected drain failure"));
    CHECK_EQ(port.count("snapshot"), size_t{0});
    CHECK_EQ(port.submit_passes, (std::vector<uint64_t>{UINT64_MAX}));
    CHECK_EQ(port.completions, 1);
    CHECK_EQ(diag.all().size(), size_t{1});
}

TEST_CASE(restore_failure_is_fatal) {
    fake::Diagnostics diag;
    Port port;
    port.fail_restore_number = 1;
    Tool tool;
    tool.pass_count = 3;
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK(out.failed);
    CHECK_EQ(out.failure, std::string("fake::restore: injected copy failure"));
    CHECK_EQ(port.submit_passes, (std::vector<uint64_t>{0}));
    CHECK_EQ(port.count("release"), size_t{1});
    CHECK_EQ(port.completions, 1);  // the app is never left waiting
    CHECK_EQ(port.events().back(), std::string("complete"));
    auto msgs = diag.all();
    CHECK_EQ(msgs.size(), size_t{1});
    if (!msgs.empty()) {
        CHECK(msgs[0].fatal);
        CHECK(contains(msgs[0].message, "restore before pass 1"));
        CHECK(contains(msgs[0].message, "fake::restore: injected copy failure"));
    }
}

TEST_CASE(submit_failure_ends_loop) {
    fake::Diagnostics diag;
    Port port;
    port.fail_submit_pass = 1;
    Tool tool;
    tool.pass_count = 4;
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK(out.failed);
    CHECK_EQ(out.passes_run, uint64_t{1});
    CHECK_EQ(port.submit_passes, (std::vector<uint64_t>{0, 1}));
    CHECK_EQ(port.count("restore"), size_t{1});
    CHECK_EQ(tool.of(GOROCPROF_KERNEL_REPLAY_PASS, GOROCPROF_CALLBACK_PHASE_EXIT).size(), size_t{2});
    CHECK_EQ(port.completions, 1);
    auto msgs = diag.all();
    CHECK_EQ(msgs.size(), size_t{1});
    if (!msgs.empty()) CHECK(contains(msgs[0].message, "fake::submit: injected launch failure"));
}
