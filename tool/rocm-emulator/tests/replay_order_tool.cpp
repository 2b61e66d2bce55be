// A rocprofiler-sdk client that checks the emulator's KERNEL_REPLAY domain against the order the SDK's
// own source gives it (tool/rocm-emulator/README.md, "Replay behaviour against the SDK's source"), over
// every launch of a sim app. Per dispatch it asks, by dispatch id: 3 passes (ids 3 mod 4), 3 passes
// with a replay_continue that stops after pass 1 (ids 1 mod 4: 2 passes), 0 passes without
// replay_continue (ids 2 mod 4: refused, no replay), no replay_pass_count at all (ids 0 mod 4). It
// records what happens per dispatch and, at finalization, prints "replay-order: PASS: ..." or the
// first difference; ctest rocm_emulator.replay_order matches that line.
//
// Expected per replayed dispatch, all on the launching thread, all with its dispatch id:
//   CONFIG ENTER, pass_count, {PASS ENTER p, PASS EXIT p, [continue p unless p is the last]}..., CONFIG EXIT
// and per dispatch not replayed: CONFIG ENTER, [pass_count,] CONFIG EXIT, and no PASS.
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

std::mutex g_mu;
std::map<uint64_t, std::string> g_events;  // dispatch id -> "CE n P0e P0x c0 ... CX"
std::map<uint64_t, long> g_thread;         // dispatch id -> the thread of its CONFIG ENTER
std::string g_error;                       // the first wrong thing seen
rocprofiler_callback_tracing_kind_t g_kind = ROCPROFILER_CALLBACK_TRACING_NONE;

long tid() { return static_cast<long>(::syscall(SYS_gettid)); }

void add(uint64_t id, const std::string& event) {
    std::lock_guard<std::mutex> lock(g_mu);
    std::string& e = g_events[id];
    if (!e.empty()) e += ' ';
    e += event;
    auto t = g_thread.find(id);
    if (t != g_thread.end() && t->second != tid() && g_error.empty())
        g_error = "dispatch " + std::to_string(id) + ": " + event + " on another thread than its CONFIG ENTER";
}

uint64_t want_passes(uint64_t id) { return id % 2 == 1 ? 3 : 0; }
bool asks(uint64_t id) { return id % 4 != 0; }
bool stops_early(uint64_t id) { return id % 4 == 1; }

uint64_t pass_count(rocprofiler_kernel_dispatch_info_t info, rocprofiler_user_data_t user_data) {
    // user_data is what CONFIG ENTER left.
    if (user_data.value != info.dispatch_id * 10) {
        std::lock_guard<std::mutex> lock(g_mu);
        if (g_error.empty()) g_error = "pass_count: user_data is not CONFIG ENTER's";
    }
    add(info.dispatch_id, "n");
    return want_passes(info.dispatch_id);
}

int keep_going(rocprofiler_kernel_dispatch_info_t info, uint64_t current_pass, uint64_t total_passes,
               rocprofiler_user_data_t user_data) {
    if (user_data.value != info.dispatch_id * 10 || total_passes != 3) {
        std::lock_guard<std::mutex> lock(g_mu);
        if (g_error.empty()) g_error = "replay_continue: user_data or total_passes wrong";
    }
    add(info.dispatch_id, "c" + std::to_string(current_pass));
    return current_pass < 1 ? 1 : 0;
}

void replay_cb(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t* user_data, void*) {
    if (record.kind != g_kind || record.payload == nullptr) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(record.payload);
    const uint64_t id = p->dispatch_info.dispatch_id;
    const bool enter = record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
    if (record.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG) {
        if (enter) {
            {
                std::lock_guard<std::mutex> lock(g_mu);
                g_thread[id] = tid();
            }
            user_data->value = id * 10;
            if (asks(id)) p->replay_pass_count = pass_count;
            if (stops_early(id)) p->replay_continue = keep_going;
        }
        add(id, enter ? "CE" : "CX");
        return;
    }
    if (record.operation != ROCPROFILER_KERNEL_REPLAY_PASS) return;
    // Each PASS ENTER starts from CONFIG's user_data; its EXIT sees what ENTER wrote.
    uint64_t want = enter ? id * 10 : id * 10 + 1 + p->current_pass;
    if (user_data->value != want) {
        std::lock_guard<std::mutex> lock(g_mu);
        if (g_error.empty()) g_error = "dispatch " + std::to_string(id) + ": PASS user_data " + std::to_string(user_data->value);
    }
    if (enter) user_data->value = id * 10 + 1 + p->current_pass;
    add(id, "P" + std::to_string(p->current_pass) + (enter ? "e" : "x"));
}

std::string expected(uint64_t id) {
    if (!asks(id)) return "CE CX";
    if (want_passes(id) == 0) return "CE n CX";
    if (stops_early(id)) return "CE n P0e P0x c0 P1e P1x c1 CX";
    return "CE n P0e P0x P1e P1x P2e P2x CX";
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_iterate_callback_tracing_kinds(
        [](rocprofiler_callback_tracing_kind_t k, void*) {
            const char* name = nullptr;
            if (rocprofiler_query_callback_tracing_kind_name(k, &name, nullptr) == ROCPROFILER_STATUS_SUCCESS &&
                name != nullptr && std::strcmp(name, "KERNEL_REPLAY") == 0)
                g_kind = k;
            return 0;
        },
        nullptr);
    rocprofiler_context_id_t ctx{};
    if (g_kind == ROCPROFILER_CALLBACK_TRACING_NONE || rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, g_kind, nullptr, 0, replay_cb, nullptr) !=
            ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_start_context(ctx) != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "replay-order: FAIL: cannot subscribe to KERNEL_REPLAY\n");
        return 1;
    }
    return 0;
}

void tool_fini(void*) {
    std::lock_guard<std::mutex> lock(g_mu);
    std::string error = g_error;
    for (const auto& [id, events] : g_events) {
        if (!error.empty()) break;
        if (events != expected(id))
            error = "dispatch " + std::to_string(id) + ": " + events + ", want " + expected(id);
    }
    if (g_events.empty() && error.empty()) error = "no dispatch";
    if (error.empty())
        std::fprintf(stderr, "replay-order: PASS: %zu dispatches in the SDK's order\n", g_events.size());
    else
        std::fprintf(stderr, "replay-order: FAIL: %s\n", error.c_str());
}

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t, const char*, uint32_t,
                                                                      rocprofiler_client_id_t* id) {
    id->name = "replay-order";
    static rocprofiler_tool_configure_result_t result{sizeof(result), tool_init, tool_fini, nullptr};
    return &result;
}
