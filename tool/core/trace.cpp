// Trace lines (docs/tracing.md): numbered, paired and buffered here, per thread, and written in whole
// lines through the record file's one writer.
#include "trace.hpp"

#include "json.hpp"
#include "log.hpp"
#include "state.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gorocprof::core::trace {

namespace {

using core::detail::State;

constexpr const char* kDomainNames[] = {
    "HIP_RUNTIME_API", "HIP_COMPILER_API", "HSA_CORE_API",     "HSA_AMD_EXT_API",       "HSA_IMAGE_EXT_API",
    "HSA_FINALIZE_EXT_API", "CUDA_RUNTIME_API", "CUDA_DRIVER_API", "MARKER_CORE_RANGE_API", "MEMORY_COPY",
};
static_assert(sizeof(kDomainNames) / sizeof(kDomainNames[0]) == static_cast<size_t>(Domain::Count));

constexpr uint32_t bit(Domain d) { return 1u << static_cast<unsigned>(d); }
constexpr uint32_t kApiDomains = bit(Domain::HipRuntime) | bit(Domain::HipCompiler) | bit(Domain::HsaCore) |
                                 bit(Domain::HsaAmdExt) | bit(Domain::HsaImageExt) | bit(Domain::HsaFinalizeExt) |
                                 bit(Domain::CudaRuntime) | bit(Domain::CudaDriver);

// A buffer is written when it holds this much, or when its oldest line is this old: a crash loses at
// most that much of a thread's lines.
constexpr size_t kFlushBytes = 64 * 1024;
constexpr int64_t kFlushAgeNs = 50'000'000;

std::atomic<uint32_t> g_domains{0};
std::atomic<uint64_t> g_correlation{0};

struct OpenRange {
    const char* op;
    std::string message;
    uint64_t correlation_id;
    uint64_t thread_id;
    int64_t start;
};

// One thread's lines and marker stack. Owned by the thread while it lives, reused by a later thread
// after it ends, never freed (exit may still flush it from another thread).
struct Buffer {
    std::mutex mu;
    std::string lines;
    int64_t oldest = 0;  // start of the first unwritten line's write-out period
    std::vector<OpenRange> stack;
    bool in_use = false;
};

std::mutex g_buffers_mu;
std::vector<Buffer*> g_buffers;

std::mutex g_ranges_mu;  // ranges that may end on another thread
std::unordered_map<uint64_t, OpenRange> g_ranges;
uint64_t g_next_range = 0;

void write_out(std::string& lines) {
    State* s = core::detail::state();
    if (s != nullptr && !lines.empty()) core::detail::write_lines(*s, lines);
    lines.clear();
}

// Moves b's lines into *out (b's lock held by the caller).
void take(Buffer& b, std::string* out) {
    out->swap(b.lines);
    b.lines.clear();
    b.oldest = 0;
}

Buffer* acquire_buffer() {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    for (Buffer* b : g_buffers) {
        if (!b->in_use) {
            b->in_use = true;
            return b;
        }
    }
    Buffer* b = new Buffer;  // never freed, see Buffer
    b->in_use = true;
    b->lines.reserve(kFlushBytes + 1024);
    g_buffers.push_back(b);
    return b;
}

void append_range(std::string& out, const OpenRange& r, int64_t end);

struct ThreadState {
    Buffer* buf = nullptr;
    int quiet = 0;
    uint64_t current = 0;  // correlation id of the innermost open ApiCall
    uint64_t tid = 0;

    Buffer& buffer() {
        if (buf == nullptr) buf = acquire_buffer();
        return *buf;
    }

    // The thread ends: its open ranges end now, its lines are written, its buffer goes back.
    ~ThreadState() {
        if (buf == nullptr) return;
        std::string out;
        {
            std::lock_guard<std::mutex> lock(buf->mu);
            if (!buf->stack.empty()) {
                int64_t now = now_ns();
                for (const OpenRange& r : buf->stack) append_range(buf->lines, r, now);
                buf->stack.clear();
            }
            take(*buf, &out);
        }
        write_out(out);
        std::lock_guard<std::mutex> lock(g_buffers_mu);
        buf->in_use = false;
    }
};

thread_local ThreadState t_state;

void key(std::string& out, const char* k) {
    out.append(",\"");
    out.append(k);
    out.append("\":");
}
void kvu(std::string& out, const char* k, uint64_t v) {
    key(out, k);
    json::append_uint(out, v);
}
void kvi(std::string& out, const char* k, int64_t v) {
    key(out, k);
    json::append_int(out, v);
}
void kvs(std::string& out, const char* k, std::string_view v) {
    key(out, k);
    json::append_string(out, v.data(), v.size());
}

void append_range(std::string& out, const OpenRange& r, int64_t end) {
    out.append("{\"t\":\"marker\"");
    kvs(out, "domain", kDomainNames[static_cast<int>(Domain::Marker)]);
    kvs(out, "op", r.op);
    kvs(out, "message", r.message);
    kvu(out, "correlation_id", r.correlation_id);
    kvu(out, "thread_id", r.thread_id);
    kvi(out, "start", r.start);
    kvi(out, "end", end < r.start ? r.start : end);
    out.append("}\n");
}

// Hands a finished line to the calling thread's buffer; writes the buffer when it is full or old.
template <typename Format>
void emit(int64_t now, Format format) {
    Buffer& b = t_state.buffer();
    std::string out;
    {
        std::lock_guard<std::mutex> lock(b.mu);
        if (b.lines.empty()) b.oldest = now;
        format(b.lines);
        if (b.lines.size() >= kFlushBytes || now - b.oldest >= kFlushAgeNs) take(b, &out);
    }
    if (!out.empty()) write_out(out);
}

bool traced(Domain d) { return (g_domains.load(std::memory_order_relaxed) & bit(d)) != 0; }

// fork(): the child starts with no lines and no ranges of the parent's; they are the parent's to write.
void trace_before_fork() {
    g_buffers_mu.lock();
    for (Buffer* b : g_buffers) b->mu.lock();
    g_ranges_mu.lock();
}
void trace_after_fork_parent() {
    g_ranges_mu.unlock();
    for (Buffer* b : g_buffers) b->mu.unlock();
    g_buffers_mu.unlock();
}
void trace_after_fork_child() {
    g_ranges.clear();
    g_ranges_mu.unlock();
    for (Buffer* b : g_buffers) {
        b->lines.clear();
        b->oldest = 0;
        b->stack.clear();
        b->in_use = (b == t_state.buf);
        b->mu.unlock();
    }
    g_buffers_mu.unlock();
}

}  // namespace

const char* domain_name(Domain d) {
    return d < Domain::Count ? kDomainNames[static_cast<int>(d)] : "";
}

bool parse_domain(std::string_view name, Domain* out) {
    for (int i = 0; i < static_cast<int>(Domain::Count); ++i) {
        if (name == kDomainNames[i]) {
            *out = static_cast<Domain>(i);
            return true;
        }
    }
    return false;
}

bool enabled(Domain d) { return traced(d) && t_state.quiet == 0; }

bool any_api_enabled() { return (g_domains.load(std::memory_order_relaxed) & kApiDomains) != 0 && t_state.quiet == 0; }

Quiet::Quiet() { ++t_state.quiet; }
Quiet::~Quiet() { --t_state.quiet; }
bool quiet() { return t_state.quiet != 0; }

uint64_t next_correlation_id() { return g_correlation.fetch_add(1, std::memory_order_relaxed) + 1; }

uint64_t current_correlation_id() { return t_state.quiet == 0 ? t_state.current : 0; }

uint64_t thread_id() {
    if (t_state.tid == 0) t_state.tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    return t_state.tid;
}

ApiCall::ApiCall(Domain d, const char* op) : op_(op), domain_(d) {
    if (!enabled(d)) return;
    active_ = true;
    correlation_id_ = next_correlation_id();
    outer_ = t_state.current;
    t_state.current = correlation_id_;
    start_ = now_ns();
}

ApiCall::~ApiCall() {
    if (!active_) return;
    t_state.current = outer_;
    int64_t end = now_ns();
    record_api(domain_, op_, correlation_id_, thread_id(), start_, end);
}

void record_api(Domain d, std::string_view op, uint64_t correlation_id, uint64_t tid, int64_t start, int64_t end) {
    if (!traced(d)) return;
    emit(end, [&](std::string& out) {
        out.append("{\"t\":\"api\"");
        kvs(out, "domain", kDomainNames[static_cast<int>(d)]);
        kvs(out, "op", op);
        kvu(out, "correlation_id", correlation_id);
        kvu(out, "thread_id", tid);
        kvi(out, "start", start);
        kvi(out, "end", end);
        out.append("}\n");
    });
}

void marker_push(const char* op, std::string_view message) {
    if (!enabled(Domain::Marker)) return;
    Buffer& b = t_state.buffer();
    OpenRange r{op, std::string(message), next_correlation_id(), thread_id(), now_ns()};
    std::lock_guard<std::mutex> lock(b.mu);
    b.stack.push_back(std::move(r));
}

void marker_pop() {
    if (!enabled(Domain::Marker) || t_state.buf == nullptr) return;
    int64_t now = now_ns();
    OpenRange r;
    {
        Buffer& b = *t_state.buf;
        std::lock_guard<std::mutex> lock(b.mu);
        if (b.stack.empty()) return;
        r = std::move(b.stack.back());
        b.stack.pop_back();
    }
    emit(now, [&](std::string& out) { append_range(out, r, now); });
}

uint64_t marker_start(const char* op, std::string_view message) {
    if (!enabled(Domain::Marker)) return 0;
    OpenRange r{op, std::string(message), next_correlation_id(), thread_id(), now_ns()};
    std::lock_guard<std::mutex> lock(g_ranges_mu);
    uint64_t id = ++g_next_range;
    g_ranges.emplace(id, std::move(r));
    return id;
}

void marker_stop(uint64_t id) {
    if (!enabled(Domain::Marker) || id == 0) return;
    int64_t now = now_ns();
    OpenRange r;
    {
        std::lock_guard<std::mutex> lock(g_ranges_mu);
        auto it = g_ranges.find(id);
        if (it == g_ranges.end()) return;
        r = std::move(it->second);
        g_ranges.erase(it);
    }
    emit(now, [&](std::string& out) { append_range(out, r, now); });
}

void marker_mark(const char* op, std::string_view message) {
    if (!enabled(Domain::Marker)) return;
    int64_t now = now_ns();
    OpenRange r{op, std::string(message), next_correlation_id(), thread_id(), now};
    emit(now, [&](std::string& out) { append_range(out, r, now); });
}

void record_copy(const Copy& c) {
    if (!traced(Domain::MemoryCopy)) return;
    uint64_t tid = c.thread_id != 0 ? c.thread_id : thread_id();
    emit(c.end, [&](std::string& out) {
        out.append("{\"t\":\"copy\"");
        kvs(out, "op", c.op);
        kvu(out, "correlation_id", c.correlation_id);
        kvu(out, "thread_id", tid);
        kvu(out, "src_agent_id", c.src_agent_id);
        kvu(out, "dst_agent_id", c.dst_agent_id);
        kvu(out, "queue_id", c.queue_id);
        kvu(out, "stream_id", c.stream_id);
        kvu(out, "size", c.size);
        kvu(out, "src_address", c.src_address);
        kvu(out, "dst_address", c.dst_address);
        kvi(out, "start", c.start);
        kvi(out, "end", c.end);
        out.append("}\n");
    });
}

void flush_thread() {
    if (t_state.buf == nullptr) return;
    std::string out;
    {
        std::lock_guard<std::mutex> lock(t_state.buf->mu);
        take(*t_state.buf, &out);
    }
    write_out(out);
}

void flush_all() {
    int64_t now = now_ns();
    size_t open = 0;
    std::string out;
    {
        std::lock_guard<std::mutex> lock(g_buffers_mu);
        for (Buffer* b : g_buffers) {
            std::lock_guard<std::mutex> block(b->mu);
            for (const OpenRange& r : b->stack) append_range(b->lines, r, now);
            open += b->stack.size();
            b->stack.clear();
            out.append(b->lines);
            b->lines.clear();
            b->oldest = 0;
        }
    }
    {
        std::lock_guard<std::mutex> lock(g_ranges_mu);
        for (const auto& [id, r] : g_ranges) append_range(out, r, now);
        open += g_ranges.size();
        g_ranges.clear();
    }
    write_out(out);
    if (open > 0) {
        Core::instance().warn(std::to_string(open) +
                              " marker range(s) were still open when the process ended; each is recorded with the "
                              "end time of the process");
    }
}

namespace detail {

// Called once by Core::initialize with the loaded plan, before any backend hook can trace.
void configure_trace(const std::vector<std::string>& domains) {
    uint32_t mask = 0;
    for (const std::string& name : domains) {
        Domain d;
        if (parse_domain(name, &d)) mask |= bit(d);
    }
    if (mask != 0) pthread_atfork(trace_before_fork, trace_after_fork_parent, trace_after_fork_child);
    g_domains.store(mask, std::memory_order_relaxed);
}

// Core::finish: nothing is traced after `end`.
void stop_trace() { g_domains.store(0, std::memory_order_relaxed); }

}  // namespace detail

}  // namespace gorocprof::core::trace
