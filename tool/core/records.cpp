#include "records.hpp"

#include "fd_io.hpp"

#include "json.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gorocprof::core::records {
namespace {

using json::append_int;
using json::append_string;
using json::append_uint;

// `,"key":` — keys are literals, never escaped.
void key(std::string& out, const char* k) {
    out.push_back(',');
    out.push_back('"');
    out.append(k);
    out.append("\":");
}

void kv(std::string& out, const char* k, int64_t v) {
    key(out, k);
    append_int(out, v);
}

void kvu(std::string& out, const char* k, uint64_t v) {
    key(out, k);
    append_uint(out, v);
}

void kvs(std::string& out, const char* k, const std::string& v) {
    key(out, k);
    append_string(out, v);
}

void begin(std::string& out, const char* type) {
    out.append("{\"t\":\"");
    out.append(type);
    out.push_back('"');
}

void dim3(std::string& out, const char* k, const gorocprof_dim3_t& d) {
    key(out, k);
    out.push_back('[');
    append_uint(out, d.x);
    out.push_back(',');
    append_uint(out, d.y);
    out.push_back(',');
    append_uint(out, d.z);
    out.push_back(']');
}

// `{"name":value,...}` of (name, value) pairs, in their order.
template <typename Pairs, typename WriteValue>
void append_object(std::string& out, const Pairs& pairs, WriteValue write_value) {
    out.push_back('{');
    for (size_t i = 0; i < pairs.size(); ++i) {
        if (i) out.push_back(',');
        append_string(out, pairs[i].first);
        out.push_back(':');
        write_value(out, pairs[i].second);
    }
    out.push_back('}');
}

}  // namespace

void append_header(std::string& out, const Header& h) {
    begin(out, "header");
    kv(out, "version", kContractVersion);
    kv(out, "pid", h.pid);
    kv(out, "ppid", h.ppid);
    kvs(out, "backend", h.backend);
    kvs(out, "hostname", h.hostname);
    kv(out, "init_time", h.init_time);
    key(out, "cmdline");
    out.push_back('[');
    for (size_t i = 0; i < h.cmdline.size(); ++i) {
        if (i) out.push_back(',');
        append_string(out, h.cmdline[i]);
    }
    out.append("]}\n");
}

void append_agent(std::string& out, const AgentInfo& a) {
    begin(out, "agent");
    kvu(out, "id", a.id);
    kv(out, "index", a.index);
    kvs(out, "name", a.name);
    kvs(out, "product_name", a.product_name);
    kvs(out, "vendor", a.vendor);
    kvs(out, "type", a.type);
    key(out, "props");
    append_object(out, a.props, [](std::string& o, int64_t v) { append_int(o, v); });
    key(out, "strings");
    append_object(out, a.strings, [](std::string& o, const std::string& v) { append_string(o, v); });
    out.append("}\n");
}

void append_kernel(std::string& out, const KernelRef& k, const KernelDesc& d) {
    begin(out, "kernel");
    kvu(out, "kernel_id", k.kernel_id);
    kvs(out, "name", d.mangled_name);
    kvs(out, "demangled", k.demangled);
    kvs(out, "truncated", k.truncated);
    kvu(out, "agent_id", d.agent_id);
    kv(out, "kernarg_size", d.kernarg_size);
    kv(out, "group_segment_size", d.group_segment_size);
    kv(out, "private_segment_size", d.private_segment_size);
    kv(out, "sgpr", d.sgpr);
    kv(out, "vgpr", d.vgpr);
    kv(out, "accum_vgpr", d.accum_vgpr);
    out.append("}\n");
}

void append_dispatch(std::string& out, const DispatchFacts& f, uint64_t pass, uint64_t passes, const PassRecord& p) {
    begin(out, "dispatch");
    kvu(out, "dispatch_id", f.info.dispatch_id);
    kvu(out, "pass", pass);
    kvu(out, "passes", passes);
    kvu(out, "correlation_id", f.correlation_id);
    kvu(out, "external_id", f.external_id);
    kvu(out, "agent_id", f.info.agent_id.handle);
    kvu(out, "queue_id", f.info.queue_id.handle);
    kvu(out, "stream_id", f.stream_id);
    kvu(out, "thread_id", f.thread_id);
    kvu(out, "kernel_id", f.info.kernel_id);
    dim3(out, "grid", f.info.grid_size);
    dim3(out, "workgroup", f.info.workgroup_size);
    kvu(out, "lds", f.info.group_segment_size);
    kvu(out, "scratch", f.info.private_segment_size);
    kv(out, "start", p.start_ns);
    kv(out, "end", p.end_ns);
    if (!p.counters.empty()) {
        key(out, "counters");
        out.push_back('[');
        for (size_t i = 0; i < p.counters.size(); ++i) {
            const CounterSample& c = p.counters[i];
            if (i) out.push_back(',');
            out.append("{\"name\":");
            if (c.counter != nullptr) {
                append_string(out, c.counter->name);
            } else {
                out.append("\"\"");
            }
            out.append(",\"values\":[");
            for (size_t v = 0; v < c.values.size(); ++v) {
                if (v) out.push_back(',');
                json::append_double(out, c.values[v]);
            }
            out.append("]}");
        }
        out.push_back(']');
    }
    out.append("}\n");
}

void append_decline(std::string& out, uint64_t dispatch_id, const std::string& reason) {
    begin(out, "decline");
    kvu(out, "dispatch_id", dispatch_id);
    kvs(out, "reason", reason);
    out.append("}\n");
}

void append_message(std::string& out, const char* type, const std::string& message) {
    begin(out, type);
    kvs(out, "message", message);
    out.append("}\n");
}

void append_end(std::string& out, const End& e) {
    begin(out, "end");
    kv(out, "fini_time", e.fini_time);
    kvu(out, "dispatches", e.dispatches);
    kvu(out, "replayed", e.replayed);
    kvu(out, "declined", e.declined);
    out.append("}\n");
}

void append_stopped(std::string& out, const std::string& reason) {
    begin(out, "stopped");
    kvs(out, "reason", reason);
    out.append("}\n");
}

namespace {

// Blocks SIGXFSZ in this thread for its lifetime and takes back one that the tool's write raised, so
// that the write fails with EFBIG instead; the app's own disposition and mask are left as they were.
class XfszBlocked {
public:
    XfszBlocked() {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGXFSZ);
        blocked_ = pthread_sigmask(SIG_BLOCK, &set, &old_) == 0;
    }
    ~XfszBlocked() {
        if (!blocked_) return;
        if (!sigismember(&old_, SIGXFSZ)) {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGXFSZ);
            sigset_t pending;
            // Only a thread-directed SIGXFSZ can be ours: the write that raised it ran on this thread.
            while (sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
                timespec zero{};
                if (sigtimedwait(&set, nullptr, &zero) < 0) break;
            }
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    XfszBlocked(const XfszBlocked&) = delete;
    XfszBlocked& operator=(const XfszBlocked&) = delete;

private:
    sigset_t old_{};
    bool blocked_ = false;
};

}  // namespace

namespace {

// Moves fd to a descriptor near the top of the table the app uses (kFdHeadroom below the lower of
// RLIMIT_NOFILE and 1024): the app's own open() calls take the lowest free number and never reach it
// unless the app holds nearly as many files as it may. Keeps fd where no such number is free.
int move_high(int fd) {
    rlimit lim{};
    rlim_t top = 1024;
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < top) top = lim.rlim_cur;
    for (long floor = static_cast<long>(top) - File::kFdHeadroom; floor > fd; floor /= 2) {
        int high = ::fcntl(fd, F_DUPFD_CLOEXEC, static_cast<int>(floor));
        if (high >= 0) {
            ::close(fd);
            return high;
        }
    }
    return fd;
}

}  // namespace

bool File::open(const std::string& run_dir, int64_t pid, std::string* error) {
    std::string dir = run_dir + "/records";
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        *error = "mkdir " + dir + ": " + std::strerror(errno);
        return false;
    }
    std::string base = dir + "/" + std::to_string(pid);
    std::string path;
    int fd = -1;
    for (int image = 0; fd < 0 && image < 10000; ++image) {
        path = base + (image == 0 ? "" : "-" + std::to_string(image)) + ".ndjson";
        fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        *error = "open " + path + ": " + std::strerror(errno);
        return false;
    }
    fd = move_high(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        *error = "fstat " + path + ": " + std::strerror(errno);
        ::close(fd);
        return false;
    }
    fd_ = fd;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    reopened_ = 0;
    write_ = ::write;
    path_ = path;
    size_ = 0;
    first_end_ = last_start_ = 0;
    rlimit lim{};
    size_limit_ = (::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) ? lim.rlim_cur : 0;
    stopped_.store(false);
    return true;
}

void File::attach(int fd, WriteFn fn) {
    std::lock_guard<std::mutex> lock(mu_);
    fd_ = fd;
    write_ = fn;
    path_ = "fd " + std::to_string(fd);
    struct stat st {};
    size_ = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    first_end_ = last_start_ = size_;
    size_limit_ = 0;
}

bool File::owns_fd_locked() const {
    struct stat st {};
    return fd_ >= 0 && ::fstat(fd_, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

bool File::ensure_own_fd_locked(std::string* gap, std::string* why) {
    if (owns_fd_locked()) return true;
    // fd_ is closed or is the app's file now: it is never written, truncated or closed again.
    const int lost = fd_;
    fd_ = -1;
    int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && (::fstat(fd, &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_)) {
        ::close(fd);
        fd = -1;
        errno = ESTALE;
    }
    if (fd < 0) {
        *why = "the application closed or replaced the record file's descriptor " + std::to_string(lost) +
               " and the file could not be opened again (" + std::strerror(errno) +
               "); later records of this process are not written";
        return false;
    }
    fd_ = move_high(fd);
    ++reopened_;
    append_message(*gap, "warning",
                   "the application closed or replaced the record file's descriptor " + std::to_string(lost) +
                       "; the tool opened its file again (" + std::to_string(reopened_) +
                       (reopened_ == 1 ? " time" : " times") + ") and wrote no record into the application's file");
    return true;
}

bool File::write_locked(const char* p, size_t n, int* err) { return write_fully(write_, fd_, p, n, err); }

// Cuts the file back to its whole lines and ends it with a `stopped` line. When that line does not
// fit (the limit was lowered after open, the disk is full), the last write, one whole dispatch or
// message, makes room for it: the reader must learn why the records end.
void File::stop_locked(const std::string& reason) {
    stop_reason_ = reason;
    stopped_.store(true, std::memory_order_release);
    if (!owns_fd_locked()) return;
    rlimit lim{};
    if (::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) size_limit_ = lim.rlim_cur;
    for (bool dropped : {false, true}) {
        if (dropped) {
            if (last_start_ < first_end_ || last_start_ >= size_) return;
            size_ = last_start_;
        }
        if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) return;
        std::string line;
        append_stopped(line, dropped ? reason + " (the last record before this line was dropped to make room for it)" : reason);
        int err = 0;
        if (size_limit_ != 0 && size_ + line.size() > size_limit_) continue;
        if (write_locked(line.data(), line.size(), &err)) {
            size_ += line.size();
            return;
        }
    }
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) return;
}

bool File::write_all(const std::string& data, std::string* error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ < 0 && !stopped_.load(std::memory_order_relaxed)) {
        if (error) *error = "write: record file is not open";
        return false;
    }
    if (stopped_.load(std::memory_order_relaxed)) {
        if (error) *error = "write " + path_ + ": the record file stopped earlier: " + stop_reason_;
        return false;
    }
    std::string gap;
    std::string why;
    if (!ensure_own_fd_locked(&gap, &why)) {
        stop_reason_ = why;
        stopped_.store(true, std::memory_order_release);
        if (error) *error = "write " + path_ + ": " + why;
        return false;
    }
    // Only after a gap: the warning goes in the same write(2) as the lines it precedes.
    if (!gap.empty()) gap += data;
    const std::string& out = gap.empty() ? data : gap;
    if (size_limit_ != 0 && size_ + out.size() + kStopReserve > size_limit_) {
        stop_locked("the file size limit (ulimit -f) of " + std::to_string(size_limit_) +
                    " bytes is reached; later records of this process are not written");
        if (error) *error = "write " + path_ + ": " + stop_reason_;
        return false;
    }
    XfszBlocked blocked;
    int err = 0;
    if (!write_locked(out.data(), out.size(), &err)) {
        std::string why = err != 0 ? std::strerror(err) : "wrote 0 bytes";
        stop_locked("write: " + why + "; later records of this process are not written");
        if (error) *error = "write " + path_ + ": " + why;
        return false;
    }
    if (size_ == 0) first_end_ = out.size();
    last_start_ = size_;
    size_ += out.size();
    return true;
}

void File::close() {
    std::lock_guard<std::mutex> lock(mu_);
    if (owns_fd_locked()) ::close(fd_);
    fd_ = -1;
}

}  // namespace gorocprof::core::records
