// The trace lines (docs/tracing.md) through the SDK's own services, as rocprofv3's tool takes them:
// buffer tracing for the HIP and HSA API kinds and memory copies, callback tracing of
// MARKER_CORE_RANGE_API for roctx ranges and marks (the SDK pairs a push with its pop and a start with
// its stop; the tool keeps the message and start time from ENTER to EXIT). Operation names come from
// the SDK's name queries. Correlation ids are the SDK's: one counter for every traced call, the ids its
// dispatch and copy records carry. The SDK's kernel replay re-runs a dispatch below the API (no call is
// intercepted again), so every traced call appears once whatever the replay mode.
#include "tool.hpp"

#include "trace.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <unordered_set>

namespace gorocprof::rocm {
namespace {

namespace trace = core::trace;

// Room for every record of a few thousand calls; the callback gets them at seven eighths.
constexpr size_t kBufferBytes = 4 << 20;
constexpr size_t kWatermarkBytes = kBufferBytes / 8 * 7;

struct ApiKind {
    rocprofiler_buffer_tracing_kind_t kind;
    trace::Domain domain;
};
constexpr ApiKind kApiKinds[] = {
    {ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, trace::Domain::HipRuntime},
    {ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API, trace::Domain::HipCompiler},
    {ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, trace::Domain::HsaCore},
    {ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API, trace::Domain::HsaAmdExt},
    {ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API, trace::Domain::HsaImageExt},
    {ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API, trace::Domain::HsaFinalizeExt},
};

struct OpenRange {
    const std::string* op;
    std::string message;
    uint64_t correlation_id;
    uint64_t thread_id;
    int64_t start;
};

// What the callbacks need, built in start_tracing and never freed (the SDK may call back during exit).
struct Tracing {
    // Operation names per buffer kind and per marker operation, from the SDK's queries.
    std::unordered_map<uint64_t, std::string> buffer_ops;  // (kind << 32 | op) -> name
    std::unordered_map<int32_t, std::string> marker_ops;
    std::unordered_map<uint64_t, uint64_t> nodes;  // agent handle -> KFD node (the records' agent id)
    std::vector<rocprofiler_buffer_id_t> buffers;
    std::mutex open_mu;  // marker ranges between ENTER and EXIT, written at exit if never closed
    std::unordered_set<OpenRange*> open;
    int64_t clock_offset_ns = 0;
};
Tracing* g_tracing = nullptr;

uint64_t key(uint32_t kind, int32_t op) { return (uint64_t{kind} << 32) | static_cast<uint32_t>(op); }

const std::string* op_name(const Tracing& t, uint32_t kind, int32_t op) {
    auto it = t.buffer_ops.find(key(kind, op));
    return it != t.buffer_ops.end() ? &it->second : nullptr;
}

bool domain_of(uint32_t kind, trace::Domain* out) {
    for (const ApiKind& k : kApiKinds) {
        if (static_cast<uint32_t>(k.kind) != kind) continue;
        *out = k.domain;
        return true;
    }
    return false;
}

int64_t sdk_now(const Tracing& t) {
    rocprofiler_timestamp_t ts = 0;
    rocprofiler_get_timestamp(&ts);
    return static_cast<int64_t>(ts) + t.clock_offset_ns;
}

uint64_t node_of(const Tracing& t, rocprofiler_agent_id_t id) {
    auto it = t.nodes.find(id.handle);
    return it != t.nodes.end() ? it->second : 0;
}

void api_record(const Tracing& t, const rocprofiler_buffer_tracing_hip_api_record_t& r) {
    trace::Domain d;
    const std::string* name = op_name(t, r.kind, r.operation);
    if (!domain_of(r.kind, &d) || name == nullptr) return;
    trace::record_api(d, *name, r.correlation_id.internal, r.thread_id,
                      static_cast<int64_t>(r.start_timestamp) + t.clock_offset_ns,
                      static_cast<int64_t>(r.end_timestamp) + t.clock_offset_ns);
}

void copy_record(const Tracing& t, const rocprofiler_buffer_tracing_memory_copy_record_t& r) {
    const std::string* name = op_name(t, r.kind, r.operation);
    if (name == nullptr) return;
    trace::Copy c;
    c.op = name->c_str();
    c.correlation_id = r.correlation_id.internal;
    c.thread_id = r.thread_id;
    c.src_agent_id = node_of(t, r.src_agent_id);
    c.dst_agent_id = node_of(t, r.dst_agent_id);
    c.size = r.bytes;
    c.src_address = r.src_address.value;
    c.dst_address = r.dst_address.value;
    c.start = static_cast<int64_t>(r.start_timestamp) + t.clock_offset_ns;
    c.end = static_cast<int64_t>(r.end_timestamp) + t.clock_offset_ns;
    trace::record_copy(c);
}

void buffer_callback(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** headers,
                     size_t num_headers, void*, uint64_t drop_count) {
    const Tracing* t = g_tracing;
    if (t == nullptr || headers == nullptr) return;
    try {
        if (drop_count > 0)
            core::Core::instance().warn("the SDK dropped " + std::to_string(drop_count) + " trace record(s)");
        for (size_t i = 0; i < num_headers; ++i) {
            const rocprofiler_record_header_t* h = headers[i];
            if (h == nullptr || h->category != ROCPROFILER_BUFFER_CATEGORY_TRACING || h->payload == nullptr) continue;
            if (h->kind == ROCPROFILER_BUFFER_TRACING_MEMORY_COPY)
                copy_record(*t, *static_cast<const rocprofiler_buffer_tracing_memory_copy_record_t*>(h->payload));
            else if (h->kind == ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH)
                traced_dispatch(*static_cast<const rocprofiler_buffer_tracing_kernel_dispatch_record_t*>(h->payload));
            else  // the HIP and HSA records share one layout
                api_record(*t, *static_cast<const rocprofiler_buffer_tracing_hip_api_record_t*>(h->payload));
        }
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("buffer tracing callback: ") + e.what());
    }
}

void write_range(const OpenRange& r, int64_t end) {
    trace::record_marker(r.op->c_str(), r.message, r.correlation_id, r.thread_id, r.start, end);
}

void marker_callback(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t* user_data, void*) {
    Tracing* t = g_tracing;
    if (t == nullptr || record.kind != ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API || user_data == nullptr) return;
    try {
        auto name = t->marker_ops.find(record.operation);
        if (name == t->marker_ops.end()) return;
        const auto* p = static_cast<const rocprofiler_callback_tracing_marker_api_data_t*>(record.payload);
        int64_t now = sdk_now(*t);
        if (record.operation == ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA) {
            // An instant, written at its EXIT as rocprofv3 writes it.
            if (record.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
            const char* msg = p != nullptr && p->args.roctxMarkA.message != nullptr ? p->args.roctxMarkA.message : "";
            trace::record_marker(name->second.c_str(), msg, record.correlation_id.internal, record.thread_id, now, now);
            return;
        }
        if (record.operation != ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA &&
            record.operation != ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA)
            return;
        if (record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
            // The range keeps its starting thread, though a process range may stop on another.
            const char* msg = p != nullptr && p->args.roctxThreadRangeA.message != nullptr ? p->args.roctxThreadRangeA.message : "";
            auto* r = new OpenRange{&name->second, msg, record.correlation_id.internal, record.thread_id, now};
            {
                std::lock_guard<std::mutex> lock(t->open_mu);
                t->open.insert(r);
            }
            user_data->ptr = r;
            return;
        }
        auto* r = static_cast<OpenRange*>(user_data->ptr);
        if (r == nullptr) return;
        {
            std::lock_guard<std::mutex> lock(t->open_mu);
            if (t->open.erase(r) == 0) return;  // written at exit already
        }
        user_data->ptr = nullptr;
        std::unique_ptr<OpenRange> owned(r);
        write_range(*r, now);
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("marker callback: ") + e.what());
    }
}

// The SDK's names of a buffer kind's operations.
bool load_buffer_names(Tracing& t, rocprofiler_buffer_tracing_kind_t kind, std::string* error) {
    struct Ctx {
        Tracing* t;
        rocprofiler_status_t st = ROCPROFILER_STATUS_SUCCESS;
    } ctx{&t};
    auto each = [](rocprofiler_buffer_tracing_kind_t k, rocprofiler_tracing_operation_t op, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        const char* name = nullptr;
        c->st = rocprofiler_query_buffer_tracing_kind_operation_name(k, op, &name, nullptr);
        if (c->st != ROCPROFILER_STATUS_SUCCESS) return 1;
        c->t->buffer_ops[key(k, op)] = name != nullptr ? name : "";
        return 0;
    };
    return check(rocprofiler_iterate_buffer_tracing_kind_operations(kind, each, &ctx),
                 "rocprofiler_iterate_buffer_tracing_kind_operations", error) &&
           check(ctx.st, "rocprofiler_query_buffer_tracing_kind_operation_name", error);
}

bool load_marker_names(Tracing& t, std::string* error) {
    struct Ctx {
        Tracing* t;
        rocprofiler_status_t st = ROCPROFILER_STATUS_SUCCESS;
    } ctx{&t};
    auto each = [](rocprofiler_callback_tracing_kind_t k, rocprofiler_tracing_operation_t op, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        const char* name = nullptr;
        c->st = rocprofiler_query_callback_tracing_kind_operation_name(k, op, &name, nullptr);
        if (c->st != ROCPROFILER_STATUS_SUCCESS) return 1;
        c->t->marker_ops[op] = name != nullptr ? name : "";
        return 0;
    };
    return check(rocprofiler_iterate_callback_tracing_kind_operations(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, each,
                                                                      &ctx),
                 "rocprofiler_iterate_callback_tracing_kind_operations(MARKER_CORE_RANGE_API)", error) &&
           check(ctx.st, "rocprofiler_query_callback_tracing_kind_operation_name", error);
}

// One buffer tracing kind, into the context's one buffer; a kind this SDK refuses costs only its lines.
void configure_kind(Tracing& t, rocprofiler_context_id_t ctx, rocprofiler_buffer_tracing_kind_t kind, const char* domain) {
    std::string error;
    if (!load_buffer_names(t, kind, &error) ||
        !check(rocprofiler_configure_buffer_tracing_service(ctx, kind, nullptr, 0, t.buffers.front()),
               "rocprofiler_configure_buffer_tracing_service", &error))
        core::Core::instance().warn(std::string(domain) + " is not traced: " + error);
}

// Kernel trace of an agent without counter passes: the counting service never sees those dispatches
// (no config, no record), so their lines come from the SDK's kernel dispatch tracing.
bool dispatches_without_counters() {
    const Tool* tl = tool();
    if (tl == nullptr || !core::Core::instance().config().kernel_trace) return false;
    for (const ProfiledAgent& a : tl->agents)
        if (a.passes.empty()) return true;
    return false;
}

// A forked child writes none of the parent's ranges (the parent does); its own are its.
void forget_parents_ranges() {
    Tracing* t = g_tracing;
    if (t == nullptr) return;
    new (&t->open_mu) std::mutex;  // another thread of the parent may have held it
    new (&t->open) std::unordered_set<OpenRange*>;  // the parent's entries are left behind
}

}  // namespace

bool start_tracing(int64_t clock_offset_ns, std::string* error) {
    bool api = false;
    for (const ApiKind& k : kApiKinds) api = api || trace::enabled(k.domain);
    bool copies = trace::enabled(trace::Domain::MemoryCopy), markers = trace::enabled(trace::Domain::Marker);
    bool dispatches = dispatches_without_counters();
    if (!api && !copies && !markers && !dispatches) return true;
    auto t = std::make_unique<Tracing>();
    t->clock_offset_ns = clock_offset_ns;
    if (copies && !agent_nodes(&t->nodes, error)) return false;
    rocprofiler_context_id_t ctx{};
    if (!check(rocprofiler_create_context(&ctx), "rocprofiler_create_context(tracing)", error)) return false;
    if (api || copies || dispatches) {
        rocprofiler_buffer_id_t buffer{};
        if (!check(rocprofiler_create_buffer(ctx, kBufferBytes, kWatermarkBytes, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                                             buffer_callback, nullptr, &buffer),
                   "rocprofiler_create_buffer(tracing)", error))
            return false;
        t->buffers.push_back(buffer);
        for (const ApiKind& k : kApiKinds)
            if (trace::enabled(k.domain)) configure_kind(*t, ctx, k.kind, trace::domain_name(k.domain));
        if (copies) configure_kind(*t, ctx, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, "MEMORY_COPY");
        if (dispatches) configure_kind(*t, ctx, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, "the kernel trace of agents without counters");
    }
    if (markers) {
        std::string why;
        if (!load_marker_names(*t, &why) ||
            !check(rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                                                                  nullptr, 0, marker_callback, nullptr),
                   "rocprofiler_configure_callback_tracing_service(MARKER_CORE_RANGE_API)", &why))
            core::Core::instance().warn("MARKER_CORE_RANGE_API is not traced: " + why);
    }
    g_tracing = t.release();  // never freed, see Tracing
    if (markers) pthread_atfork(nullptr, nullptr, forget_parents_ranges);
    return check(rocprofiler_start_context(ctx), "rocprofiler_start_context(tracing)", error);
}

void finish_tracing() {
    Tracing* t = g_tracing;
    if (t == nullptr) return;
    for (rocprofiler_buffer_id_t b : t->buffers) {
        rocprofiler_status_t st = rocprofiler_flush_buffer(b);
        if (st != ROCPROFILER_STATUS_SUCCESS)
            core::Core::instance().warn("rocprofiler_flush_buffer: " + status_text(st) + "; trace lines may be missing");
    }
    // Ranges the application never closed: written with the end of the process, as core writes its own.
    std::vector<OpenRange*> open;
    {
        std::lock_guard<std::mutex> lock(t->open_mu);
        open.assign(t->open.begin(), t->open.end());
        t->open.clear();
    }
    if (open.empty()) return;
    std::sort(open.begin(), open.end(), [](const OpenRange* a, const OpenRange* b) { return a->correlation_id < b->correlation_id; });
    int64_t now = sdk_now(*t);
    // Kept, never freed: an EXIT the SDK delivers later still carries the pointer in its user_data, and
    // a range allocated at the same address would then be closed by that EXIT.
    static std::vector<OpenRange*>& retired = *new std::vector<OpenRange*>;
    for (OpenRange* r : open) {
        write_range(*r, now);
        retired.push_back(r);
    }
    core::Core::instance().warn(std::to_string(open.size()) +
                                " marker range(s) were still open when the process ended; each is recorded with the "
                                "end time of the process");
}

}  // namespace gorocprof::rocm
