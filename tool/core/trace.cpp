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
#include <charconv>
#include <cstring>
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
// Ranges a thread left open when it ended, written then with its end: counted in exit's warning.
std::atomic<uint64_t> g_closed_at_thread_end{0};

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

// Never destroyed, as the buffers: exit's static destructors run while other threads may still trace,
// and a destroyed list would also leave the buffers unreachable (LeakSanitizer reports them).
std::mutex g_buffers_mu;
std::vector<Buffer*>& g_buffers = *new std::vector<Buffer*>;

std::mutex g_ranges_mu;  // ranges that may end on another thread
std::unordered_map<uint64_t, OpenRange>& g_ranges = *new std::unordered_map<uint64_t, OpenRange>;
uint64_t g_next_range = 0;

void write_out(std::string& lines) {
    State* s = core::detail::state();
    if (s != nullptr && !lines.empty()) core::detail::write_lines(*s, lines);
    lines.clear();
}

// Writes b's lines (b's lock held by the caller). In place, so that the buffer keeps its capacity
// from one write to the next; only exit's flush and fork contend for the lock meanwhile.
void write_buffer(Buffer& b) {
    write_out(b.lines);
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
    // Set when the thread's thread_local objects were destroyed. exit() destroys the exiting thread's
    // before it runs the atexit handlers, which may still trace (a backend's last flush): their lines
    // are then written at once, without a buffer.
    bool ended = false;

    // nullptr once the thread has ended.
    Buffer* buffer() {
        if (buf == nullptr && !ended) buf = acquire_buffer();
        return buf;
    }

    // The thread ends: its open ranges end now, its lines are written, its buffer goes back.
    ~ThreadState() {
        ended = true;
        if (buf == nullptr) return;
        {
            std::lock_guard<std::mutex> lock(buf->mu);
            if (!buf->stack.empty()) {
                int64_t now = now_ns();
                for (const OpenRange& r : buf->stack) append_range(buf->lines, r, now);
                g_closed_at_thread_end.fetch_add(buf->stack.size(), std::memory_order_relaxed);
                buf->stack.clear();
            }
            write_buffer(*buf);
        }
        std::lock_guard<std::mutex> lock(g_buffers_mu);
        buf->in_use = false;
        buf = nullptr;
    }
};

thread_local ThreadState t_state;

// The lines are formatted in place at the end of the buffer: room for the longest the fields can
// make is reserved first, so every field is a memcpy or a to_chars, never a growing append.
class LineWriter {
public:
    LineWriter(std::string& out, size_t bound) : out_(out), old_(out.size()) {
        out_.resize(old_ + bound);
        p_ = out_.data() + old_;
    }
    ~LineWriter() { out_.resize(static_cast<size_t>(p_ - out_.data())); }

    template <size_t N>
    void lit(const char (&s)[N]) {
        std::memcpy(p_, s, N - 1);
        p_ += N - 1;
    }
    void u(uint64_t v) { p_ = std::to_chars(p_, p_ + 20, v).ptr; }
    void i(int64_t v) { p_ = std::to_chars(p_, p_ + 20, v).ptr; }
    // A JSON string literal: plain printable ASCII is copied, anything else is escaped as json.cpp does.
    void str(std::string_view v) {
        bool plain = true;
        for (unsigned char c : v) plain = plain && c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
        if (plain) {
            *p_++ = '"';
            std::memcpy(p_, v.data(), v.size());
            p_ += v.size();
            *p_++ = '"';
            return;
        }
        std::string escaped;
        json::append_string(escaped, v.data(), v.size());
        std::memcpy(p_, escaped.data(), escaped.size());
        p_ += escaped.size();
    }
    // The most a string of n bytes takes as a literal (a control byte is \u00XX).
    static size_t bound(size_t n) { return 6 * n + 2; }

private:
    std::string& out_;
    size_t old_;
    char* p_;
};

// Room for the fixed text and the numbers of a line (every number at most 20 digits and a sign).
constexpr size_t kLineFixed = 512;

void append_range(std::string& out, const OpenRange& r, int64_t end) {
    LineWriter w(out, kLineFixed + LineWriter::bound(std::strlen(r.op)) + LineWriter::bound(r.message.size()));
    w.lit("{\"t\":\"marker\",\"domain\":\"MARKER_CORE_RANGE_API\",\"op\":");
    w.str(r.op);
    w.lit(",\"message\":");
    w.str(r.message);
    w.lit(",\"correlation_id\":");
    w.u(r.correlation_id);
    w.lit(",\"thread_id\":");
    w.u(r.thread_id);
    w.lit(",\"start\":");
    w.i(r.start);
    w.lit(",\"end\":");
    w.i(end < r.start ? r.start : end);
    w.lit("}\n");
}

// Hands a finished line to the calling thread's buffer; writes the buffer when it is full or old.
template <typename Format>
void emit(int64_t now, Format format) {
    Buffer* bp = t_state.buffer();
    if (bp == nullptr) {
        if (g_domains.load(std::memory_order_acquire) == 0) return;
        std::string line;
        format(line);
        write_out(line);
        return;
    }
    Buffer& b = *bp;
    std::lock_guard<std::mutex> lock(b.mu);
    // Core::finish stops tracing before it empties the buffers (under this lock): a line that comes
    // later would land behind `end`, and is dropped as every record after `end` is.
    if (g_domains.load(std::memory_order_acquire) == 0) return;
    if (b.lines.empty()) b.oldest = now;
    format(b.lines);
    if (b.lines.size() >= kFlushBytes || now - b.oldest >= kFlushAgeNs) write_buffer(b);
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
    g_closed_at_thread_end = 0;
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

void reserve_correlation_ids(uint64_t below) {
    uint64_t cur = g_correlation.load(std::memory_order_relaxed);
    while (cur < below && !g_correlation.compare_exchange_weak(cur, below, std::memory_order_relaxed)) {
    }
}

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
        LineWriter w(out, kLineFixed + LineWriter::bound(op.size()));
        w.lit("{\"t\":\"api\",\"domain\":");
        w.str(kDomainNames[static_cast<int>(d)]);
        w.lit(",\"op\":");
        w.str(op);
        w.lit(",\"correlation_id\":");
        w.u(correlation_id);
        w.lit(",\"thread_id\":");
        w.u(tid);
        w.lit(",\"start\":");
        w.i(start);
        w.lit(",\"end\":");
        w.i(end);
        w.lit("}\n");
    });
}

void marker_push(const char* op, std::string_view message) {
    if (!enabled(Domain::Marker)) return;
    Buffer* b = t_state.buffer();
    if (b == nullptr) return;  // the thread has ended: no pop can follow
    OpenRange r{op, std::string(message), next_correlation_id(), thread_id(), now_ns()};
    std::lock_guard<std::mutex> lock(b->mu);
    b->stack.push_back(std::move(r));
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

void record_marker(const char* op, std::string_view message, uint64_t correlation_id, uint64_t tid, int64_t start,
                   int64_t end) {
    if (!traced(Domain::Marker)) return;
    OpenRange r{op, std::string(message), correlation_id, tid, start};
    emit(end, [&](std::string& out) { append_range(out, r, end); });
}

void record_copy(const Copy& c) {
    if (!traced(Domain::MemoryCopy)) return;
    uint64_t tid = c.thread_id != 0 ? c.thread_id : thread_id();
    emit(c.end, [&](std::string& out) {
        LineWriter w(out, kLineFixed + LineWriter::bound(std::strlen(c.op)));
        w.lit("{\"t\":\"copy\",\"op\":");
        w.str(c.op);
        w.lit(",\"correlation_id\":");
        w.u(c.correlation_id);
        w.lit(",\"thread_id\":");
        w.u(tid);
        w.lit(",\"src_agent_id\":");
        w.u(c.src_agent_id);
        w.lit(",\"dst_agent_id\":");
        w.u(c.dst_agent_id);
        w.lit(",\"queue_id\":");
        w.u(c.queue_id);
        w.lit(",\"stream_id\":");
        w.u(c.stream_id);
        w.lit(",\"size\":");
        w.u(c.size);
        w.lit(",\"src_address\":");
        w.u(c.src_address);
        w.lit(",\"dst_address\":");
        w.u(c.dst_address);
        w.lit(",\"start\":");
        w.i(c.start);
        w.lit(",\"end\":");
        w.i(c.end);
        w.lit("}\n");
    });
}

void flush_thread() {
    if (t_state.buf == nullptr) return;
    std::lock_guard<std::mutex> lock(t_state.buf->mu);
    write_buffer(*t_state.buf);
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
    open += g_closed_at_thread_end.exchange(0, std::memory_order_relaxed);
    if (open > 0) {
        Core::instance().warn(std::to_string(open) +
                              " marker range(s) were still open when their thread or the process ended; each is "
                              "recorded with that end time");
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
void stop_trace() { g_domains.store(0, std::memory_order_release); }

}  // namespace detail

}  // namespace gorocprof::core::trace
