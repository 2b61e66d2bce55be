// Contexts and the subscription (C API), and the localized start/stop of a replay loop.
#include "check.hpp"
#include "tool_harness.hpp"

#include <replay_service.hpp>

#include <cstring>
#include <set>
#include <thread>

using gorocprof::replay::ReplayService;
using fake::Port;
using fake::Tool;

namespace {

void noop_callback(gorocprof_callback_tracing_record_t, gorocprof_user_data_t*, void*) {}

gorocprof_context_id_t started_context() {
    gorocprof_context_id_t c{};
    CHECK_EQ(gorocprof_create_context(&c), GOROCPROF_STATUS_SUCCESS);
    CHECK_EQ(gorocprof_start_context(c), GOROCPROF_STATUS_SUCCESS);
    return c;
}

int effective(gorocprof_context_id_t c) {
    int on = -1;
    CHECK_EQ(gorocprof_context_is_effective(c, &on), GOROCPROF_STATUS_SUCCESS);
    return on;
}

int active(gorocprof_context_id_t c) {
    int on = -1;
    CHECK_EQ(gorocprof_context_is_active(c, &on), GOROCPROF_STATUS_SUCCESS);
    return on;
}

// Runs one dispatch of `passes` passes; the kernel records whether `watched` is effective on the
// replaying thread during each pass, as a counter or timing service would ask.
std::vector<int> effective_per_pass(Tool& tool, gorocprof_context_id_t watched, uint64_t passes) {
    Port port;
    std::vector<int> seen;
    port.kernel = [&](Port&, uint64_t) { seen.push_back(effective(watched)); };
    tool.pass_count = passes;
    auto d = fake::make_dispatch();
    ReplayService::instance().execute(port, d);
    return seen;
}

}  // namespace

TEST_CASE(context_api_errors) {
    CHECK_EQ(gorocprof_create_context(nullptr), GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT);
    int on = 0;
    for (uint64_t bad : {uint64_t{0}, uint64_t{1}, uint64_t{65}, UINT64_MAX}) {
        gorocprof_context_id_t c{bad};
        CHECK_EQ(gorocprof_start_context(c), GOROCPROF_STATUS_ERROR_CONTEXT_INVALID);
        CHECK_EQ(gorocprof_stop_context(c), GOROCPROF_STATUS_ERROR_CONTEXT_INVALID);
        CHECK_EQ(gorocprof_context_is_active(c, &on), GOROCPROF_STATUS_ERROR_CONTEXT_INVALID);
        CHECK_EQ(gorocprof_context_is_effective(c, &on), GOROCPROF_STATUS_ERROR_CONTEXT_INVALID);
        CHECK_EQ(gorocprof_configure_callback_tracing_service(c, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, nullptr,
                                                              0, noop_callback, nullptr),
                 GOROCPROF_STATUS_ERROR_CONTEXT_INVALID);
    }
    gorocprof_context_id_t c{};
    CHECK_EQ(gorocprof_create_context(&c), GOROCPROF_STATUS_SUCCESS);
    CHECK_EQ(c.handle, uint64_t{1});
    CHECK_EQ(gorocprof_context_is_active(c, nullptr), GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(gorocprof_context_is_effective(c, nullptr), GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(active(c), 0);
    CHECK_EQ(gorocprof_configure_callback_tracing_service(c, GOROCPROF_CALLBACK_TRACING_NONE, nullptr, 0,
                                                          noop_callback, nullptr),
             GOROCPROF_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK_EQ(gorocprof_configure_callback_tracing_service(c, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                          nullptr, nullptr),
             GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT);
    // The table is finite and says so.
    gorocprof_context_id_t more{};
    int created = 1;
    while (gorocprof_create_context(&more) == GOROCPROF_STATUS_SUCCESS) ++created;
    CHECK_EQ(created, 64);
    CHECK_EQ(gorocprof_create_context(&more), GOROCPROF_STATUS_ERROR);
}

TEST_CASE(status_strings) {
    const char* names[] = {"GOROCPROF_STATUS_SUCCESS",
                           "GOROCPROF_STATUS_ERROR",
                           "GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT",
                           "GOROCPROF_STATUS_ERROR_CONTEXT_INVALID",
                           "GOROCPROF_STATUS_ERROR_CONTEXT_ERROR",
                           "GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED",
                           "GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED",
                           "GOROCPROF_STATUS_ERROR_CONFIGURATION_LOCKED",
                           "GOROCPROF_STATUS_ERROR_KIND_NOT_FOUND"};
    std::set<std::string> distinct;
    for (int s = 0; s < GOROCPROF_STATUS_LAST; ++s) {
        const char* text = gorocprof_get_status_string(static_cast<gorocprof_status_t>(s));
        CHECK(text != nullptr);
        std::string t = text;
        CHECK_EQ(t.substr(0, t.find(':')), std::string(names[s]));
        distinct.insert(t);
    }
    CHECK_EQ(distinct.size(), size_t{GOROCPROF_STATUS_LAST});
    CHECK(std::strstr(gorocprof_get_status_string(GOROCPROF_STATUS_LAST), "unknown") != nullptr);
}

TEST_CASE(configure_started_context_locked) {
    auto c = started_context();
    CHECK_EQ(gorocprof_configure_callback_tracing_service(c, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                          noop_callback, nullptr),
             GOROCPROF_STATUS_ERROR_CONFIGURATION_LOCKED);
    CHECK(!ReplayService::instance().enabled());
    CHECK_EQ(gorocprof_stop_context(c), GOROCPROF_STATUS_SUCCESS);
    CHECK_EQ(gorocprof_configure_callback_tracing_service(c, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                          noop_callback, nullptr),
             GOROCPROF_STATUS_SUCCESS);
}

TEST_CASE(second_context_rejected) {
    Port port;
    Tool tool;
    tool.pass_count = 2;
    CHECK_EQ(tool.configure_status, GOROCPROF_STATUS_SUCCESS);
    int second_calls = 0;
    gorocprof_context_id_t other{};
    CHECK_EQ(gorocprof_create_context(&other), GOROCPROF_STATUS_SUCCESS);
    CHECK_EQ(gorocprof_configure_callback_tracing_service(
                 other, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                 [](gorocprof_callback_tracing_record_t, gorocprof_user_data_t*, void* args) {
                     ++*static_cast<int*>(args);
                 },
                 &second_calls),
             GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    auto d = fake::make_dispatch();
    auto out = ReplayService::instance().execute(port, d);
    CHECK_EQ(out.passes_run, uint64_t{2});
    CHECK_EQ(second_calls, 0);
    CHECK_EQ(tool.events.size(), size_t{6});
    for (const auto& e : tool.events) CHECK_EQ(e.context, tool.context.handle);
}

TEST_CASE(enabled_tracks_start_stop) {
    auto& svc = ReplayService::instance();
    CHECK(!svc.enabled());
    gorocprof_context_id_t c{};
    CHECK_EQ(gorocprof_create_context(&c), GOROCPROF_STATUS_SUCCESS);
    CHECK_EQ(gorocprof_configure_callback_tracing_service(c, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                          noop_callback, nullptr),
             GOROCPROF_STATUS_SUCCESS);
    CHECK(!svc.enabled());
    CHECK_EQ(gorocprof_start_context(c), GOROCPROF_STATUS_SUCCESS);
    CHECK(svc.enabled());
    CHECK_EQ(gorocprof_stop_context(c), GOROCPROF_STATUS_SUCCESS);
    CHECK(!svc.enabled());
}

TEST_CASE(local_error_outside_pass_enter) {
    Tool tool;
    auto timing = started_context();
    gorocprof_kernel_replay_context_cb_t stop = nullptr;
    std::vector<gorocprof_status_t> got;
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        stop = p->replay_stop_context;
        gorocprof_status_t from_other = GOROCPROF_STATUS_SUCCESS;
        std::thread([&] { from_other = stop(timing); }).join();  // not the replaying thread
        got.push_back(from_other);
    };
    tool.on_pass_exit = [&](auto&, fake::Payload*, auto*) { got.push_back(stop(timing)); };
    tool.on_config_enter = [&](auto&, fake::Payload* p, auto*) {
        CHECK(p->replay_start_context == nullptr && p->replay_stop_context == nullptr);
        if (stop) got.push_back(stop(timing));  // second dispatch: CONFIG is not PASS ENTER
    };
    CHECK_EQ(effective_per_pass(tool, timing, 2), (std::vector<int>{1, 1}));
    CHECK(stop != nullptr);
    if (stop) got.push_back(stop(timing));  // no loop at all
    CHECK_EQ(effective_per_pass(tool, timing, 2), (std::vector<int>{1, 1}));  // nothing was recorded
    std::vector<gorocprof_status_t> want(got.size(), GOROCPROF_STATUS_ERROR_CONTEXT_ERROR);
    CHECK_EQ(got.size(), size_t{10});
    CHECK(got == want);
}

TEST_CASE(local_not_started) {
    Tool tool;
    gorocprof_context_id_t idle{}, late{};
    CHECK_EQ(gorocprof_create_context(&idle), GOROCPROF_STATUS_SUCCESS);
    CHECK_EQ(gorocprof_create_context(&late), GOROCPROF_STATUS_SUCCESS);
    std::vector<gorocprof_status_t> got;
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        if (p->current_pass == 0) {
            got.push_back(p->replay_start_context(idle));
            got.push_back(p->replay_stop_context(idle));
            got.push_back(p->replay_start_context(gorocprof_context_id_t{999}));
            gorocprof_start_context(late);  // started after the loop began
        } else {
            got.push_back(p->replay_stop_context(late));
        }
    };
    auto seen = effective_per_pass(tool, late, 2);
    CHECK_EQ(got, (std::vector<gorocprof_status_t>{GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED,
                                                  GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED,
                                                  GOROCPROF_STATUS_ERROR_CONTEXT_INVALID,
                                                  GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED}));
    CHECK_EQ(seen, (std::vector<int>{1, 1}));  // the failed stop recorded nothing
    CHECK_EQ(effective(idle), 0);
}

TEST_CASE(local_sticky_across_passes) {
    Tool tool;
    auto timing = started_context();
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        if (p->current_pass == 0) CHECK_EQ(p->replay_stop_context(timing), GOROCPROF_STATUS_SUCCESS);
        if (p->current_pass == 2) CHECK_EQ(p->replay_start_context(timing), GOROCPROF_STATUS_SUCCESS);
    };
    CHECK_EQ(effective_per_pass(tool, timing, 5), (std::vector<int>{0, 0, 1, 1, 1}));
}

TEST_CASE(local_independent_per_context) {
    Tool tool;
    auto a = started_context();
    auto b = started_context();
    std::vector<int> seen_b;
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        if (p->current_pass == 0) p->replay_stop_context(a);
        if (p->current_pass == 1) p->replay_stop_context(b);
        if (p->current_pass == 2) p->replay_start_context(a);
    };
    tool.on_pass_exit = [&](auto&, fake::Payload*, auto*) { seen_b.push_back(effective(b)); };
    CHECK_EQ(effective_per_pass(tool, a, 4), (std::vector<int>{0, 0, 1, 1}));
    CHECK_EQ(seen_b, (std::vector<int>{1, 0, 0, 0}));
}

TEST_CASE(local_cleared_after_loop) {
    Tool tool;
    auto timing = started_context();
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        if (p->current_pass == 0) p->replay_stop_context(timing);
    };
    CHECK_EQ(effective_per_pass(tool, timing, 3), (std::vector<int>{0, 0, 0}));
    CHECK_EQ(effective(timing), 1);  // the pre-loop state is back
    tool.on_pass_enter = nullptr;
    CHECK_EQ(effective_per_pass(tool, timing, 3), (std::vector<int>{1, 1, 1}));  // the next loop starts clean
    tool.pass_count = 1;
    Port once;
    std::vector<int> single;
    once.kernel = [&](Port&, uint64_t) { single.push_back(effective(timing)); };
    auto d = fake::make_dispatch();
    ReplayService::instance().execute(once, d);
    CHECK_EQ(single, (std::vector<int>{1}));
}

TEST_CASE(local_timing_only_on_pass_0) {
    Tool tool;
    auto timing = started_context();
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        if (p->current_pass == 0) {
            CHECK_EQ(p->replay_start_context(timing), GOROCPROF_STATUS_SUCCESS);
        } else {
            CHECK_EQ(p->replay_stop_context(timing), GOROCPROF_STATUS_SUCCESS);
        }
    };
    CHECK_EQ(effective_per_pass(tool, timing, 4), (std::vector<int>{1, 0, 0, 0}));
}

TEST_CASE(local_last_write_wins) {
    Tool tool;
    auto timing = started_context();
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        if (p->current_pass == 0) {
            p->replay_stop_context(timing);
            p->replay_start_context(timing);
            p->replay_stop_context(timing);
        } else if (p->current_pass == 1) {
            p->replay_start_context(timing);
            p->replay_stop_context(timing);
            p->replay_start_context(timing);
        }
    };
    CHECK_EQ(effective_per_pass(tool, timing, 3), (std::vector<int>{0, 1, 1}));
}

TEST_CASE(local_never_changes_global_state) {
    Tool tool;
    auto timing = started_context();
    std::vector<int> global_here, global_elsewhere, effective_elsewhere;
    tool.on_pass_enter = [&](auto&, fake::Payload* p, auto*) {
        p->replay_stop_context(timing);
        global_here.push_back(active(timing));
        std::thread([&] {
            global_elsewhere.push_back(active(timing));
            effective_elsewhere.push_back(effective(timing));
        }).join();
    };
    CHECK_EQ(effective_per_pass(tool, timing, 2), (std::vector<int>{0, 0}));
    CHECK_EQ(global_here, (std::vector<int>{1, 1}));
    CHECK_EQ(global_elsewhere, (std::vector<int>{1, 1}));
    CHECK_EQ(effective_elsewhere, (std::vector<int>{1, 1}));
    CHECK_EQ(active(timing), 1);
    CHECK_EQ(active(tool.context), 1);
}
