// A rocprofiler-sdk client that checks the emulator's two marker kinds over sim-trace's markers (tool/
// examples/sim_trace.cpp: 6 push/pop ranges on two threads, one start/stop range stopped on the other
// thread, 2 marks), as the SDK delivers them:
//   MARKER_CORE_API: every roctx call ENTER then EXIT on its thread, one correlation id and the
//     user_data its ENTER left; the message in args at ENTER; push and pop return the depth, start
//     the range id that its stop passes;
//   MARKER_CORE_RANGE_API: roctxThreadRangeA ENTER at a push, EXIT at its pop (same thread), and
//     roctxProcessRangeA ENTER at a start, EXIT at its stop (any thread), each pair with one
//     correlation id, the user_data its ENTER left and its message; roctxMarkA ENTER and EXIT.
// Correlation ids are unique over both kinds. At finalization it prints "marker-kinds: PASS: ..." or
// the first difference; ctest rocm_emulator.marker_kinds matches that line.
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace {

struct Open {
    uint64_t correlation;
    long thread;
    std::string message;
};

std::mutex g_mu;
std::string g_error;
std::map<std::string, int> g_calls;   // MARKER_CORE_API operation -> completed calls
std::map<std::string, int> g_ranges;  // MARKER_CORE_RANGE_API operation -> completed pairs
int g_cross_thread = 0;               // process ranges stopped on another thread
std::set<uint64_t> g_ids;             // correlation ids of both kinds, at ENTER
std::map<uint64_t, uint64_t> g_started;  // range id -> its roctxRangeStartA's correlation id

void fail(const std::string& what) {
    if (g_error.empty()) g_error = what;
}

std::string op_name(rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op) {
    const char* name = nullptr;
    if (rocprofiler_query_callback_tracing_kind_operation_name(kind, op, &name, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        name == nullptr)
        return "?";
    return name;
}

void marker_cb(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t* user_data, void*) {
    long tid = ::syscall(SYS_gettid);
    std::lock_guard<std::mutex> lock(g_mu);
    const auto* p = static_cast<const rocprofiler_callback_tracing_marker_api_data_t*>(record.payload);
    std::string op = op_name(record.kind, record.operation);
    std::string where = op + " (correlation " + std::to_string(record.correlation_id.internal) + ")";
    if (p == nullptr || user_data == nullptr) return fail(where + ": no payload or user_data");
    bool core = record.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
    if (record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        if (!g_ids.insert(record.correlation_id.internal).second) fail(where + ": a correlation id seen before");
        std::string message;
        if (op == "roctxMarkA" || op == "roctxRangePushA" || op == "roctxRangeStartA" || op == "roctxThreadRangeA" ||
            op == "roctxProcessRangeA")
            message = p->args.roctxMarkA.message != nullptr ? p->args.roctxMarkA.message : "";
        if (op != "roctxRangePop" && op != "roctxRangeStop" && message.empty()) fail(where + ": no message at ENTER");
        user_data->ptr = new Open{record.correlation_id.internal, tid, message};
        return;
    }
    auto* o = static_cast<Open*>(user_data->ptr);
    if (o == nullptr) return fail(where + ": EXIT without the user_data of its ENTER");
    user_data->ptr = nullptr;
    if (o->correlation != record.correlation_id.internal) fail(where + ": EXIT's correlation id is not its ENTER's");
    bool other_thread = o->thread != tid;
    if (core) {
        if (other_thread) fail(where + ": a call's EXIT on another thread");
        if (op == "roctxRangeStartA") g_started[p->retval.roctx_range_id_t_retval] = o->correlation;
        if (op == "roctxRangeStop" && g_started.count(p->args.roctxRangeStop.id) == 0)
            fail(where + ": stops a range id no start returned");
        if ((op == "roctxRangePushA" || op == "roctxRangePop") && p->retval.int32_t_retval < 0)
            fail(where + ": depth " + std::to_string(p->retval.int32_t_retval));
        ++g_calls[op];
    } else {
        std::string message = p->args.roctxThreadRangeA.message != nullptr ? p->args.roctxThreadRangeA.message : "";
        if (message != o->message) fail(where + ": EXIT's message '" + message + "' is not ENTER's '" + o->message + "'");
        if (op == "roctxThreadRangeA" && other_thread) fail(where + ": a thread range ended on another thread");
        if (op == "roctxProcessRangeA" && other_thread) ++g_cross_thread;
        ++g_ranges[op];
    }
    delete o;
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, nullptr, 0, marker_cb,
                                                       nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, nullptr, 0,
                                                       marker_cb, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_start_context(ctx) != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "marker-kinds: FAIL: cannot subscribe to the marker kinds\n");
        return 1;
    }
    return 0;
}

std::string counts(const std::map<std::string, int>& m) {
    std::string s;
    for (const auto& [op, n] : m) s += (s.empty() ? "" : " ") + op + "=" + std::to_string(n);
    return s;
}

void tool_fini(void*) {
    std::lock_guard<std::mutex> lock(g_mu);
    const std::map<std::string, int> calls{{"roctxMarkA", 2},       {"roctxRangePop", 6}, {"roctxRangePushA", 6},
                                           {"roctxRangeStartA", 1}, {"roctxRangeStop", 1}};
    const std::map<std::string, int> ranges{{"roctxMarkA", 2}, {"roctxProcessRangeA", 1}, {"roctxThreadRangeA", 6}};
    if (g_calls != calls) fail("MARKER_CORE_API calls " + counts(g_calls) + ", want " + counts(calls));
    if (g_ranges != ranges) fail("MARKER_CORE_RANGE_API " + counts(g_ranges) + ", want " + counts(ranges));
    if (g_cross_thread != 1) fail(std::to_string(g_cross_thread) + " process ranges stopped on another thread, want 1");
    if (g_error.empty())
        std::fprintf(stderr, "marker-kinds: PASS: %s; %s\n", counts(g_calls).c_str(), counts(g_ranges).c_str());
    else
        std::fprintf(stderr, "marker-kinds: FAIL: %s\n", g_error.c_str());
}

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t, const char*, uint32_t,
                                                                      rocprofiler_client_id_t* id) {
    id->name = "marker-kinds";
    static rocprofiler_tool_configure_result_t result{sizeof(result), tool_init, tool_fini, nullptr};
    return &result;
}
