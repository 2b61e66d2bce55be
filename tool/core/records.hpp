// The record lines of docs/record-format.md §3, formatted into a caller's buffer (appending, so one
// buffer collects every line of a dispatch), and the file they go to.
#pragma once

#include "core.hpp"

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace gorocprof::core::records {

struct Header {
    int64_t pid = 0;
    int64_t ppid = 0;
    std::string backend;
    std::string hostname;
    int64_t init_time = 0;
    std::vector<std::string> cmdline;
};

struct End {
    int64_t fini_time = 0;
    uint64_t dispatches = 0;
    uint64_t replayed = 0;
    uint64_t declined = 0;
};

void append_header(std::string& out, const Header& h);
void append_agent(std::string& out, const AgentInfo& a);
void append_kernel(std::string& out, const KernelRef& k, const KernelDesc& d);
// `pass`/`passes` are the final numbers (kNotReplayed already resolved by the caller).
void append_dispatch(std::string& out, const DispatchFacts& f, uint64_t pass, uint64_t passes, const PassRecord& p);
void append_decline(std::string& out, uint64_t dispatch_id, const std::string& reason);
// type is "warning" or "fatal".
void append_message(std::string& out, const char* type, const std::string& message);
void append_end(std::string& out, const End& e);

// type "stopped": the stream ends here because a write failed; nothing follows it.
void append_stopped(std::string& out, const std::string& reason);

// One process image's record file. Each write_all is one write(2) under a lock, so lines of
// different threads never interleave and a crash loses at most what was never handed to write().
// A write that fails or falls short never leaves a partial line to be continued: the file is cut
// back to its last whole line, a `stopped` line says why (when it still fits) and nothing more is
// written. The file size limit (ulimit -f) is checked before each write, so that the `stopped`
// line fits under it; SIGXFSZ is blocked around the tool's own writes, so the limit never kills
// the app.
//
// The file lives on a high descriptor (kFdHeadroom below the lower of RLIMIT_NOFILE and 1024), which
// an app's open() never gets while it holds fewer files, and before every write and truncation the
// descriptor is checked to still be this file (fstat's device and inode): an app that closed it
// (close_range, a close loop) or put its own file there (dup2) never gets the tool's records in its
// file. The file is then opened again by its path, and a `warning` line records the gap.
class File {
public:
    using WriteFn = ssize_t (*)(int fd, const void* buf, size_t n);

    // Creates <run_dir>/records/ if needed and creates a new file there, never an existing one
    // (O_EXCL): <pid>.ndjson, or for a later image of the same process (exec) or a reused pid
    // <pid>-1.ndjson, <pid>-2.ndjson, ...
    bool open(const std::string& run_dir, int64_t pid, std::string* error);
    // Tests: write to an existing descriptor, through `fn` instead of ::write.
    void attach(int fd, WriteFn fn);
    bool is_open() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    const std::string& path() const { return path_; }

    // Writes data whole (retrying on EINTR and partial writes). False with *error on failure, and
    // from then on for every call: the stream has stopped.
    bool write_all(const std::string& data, std::string* error);
    bool stopped() const { return stopped_.load(std::memory_order_acquire); }

    void close();

    // Held across fork(), so that the child never inherits the lock taken by another thread.
    void lock() { mu_.lock(); }
    void unlock() { mu_.unlock(); }

    // Room kept below the file size limit for the `stopped` line.
    static constexpr uint64_t kStopReserve = 512;
    // How far below the descriptor limit (at most 1024) the record file's descriptor is placed.
    static constexpr int kFdHeadroom = 32;
    // How often the descriptor was found taken by the app and the file reopened.
    uint64_t reopened() const { return reopened_; }

private:
    bool write_locked(const char* p, size_t n, int* err);
    void stop_locked(const std::string& reason);
    // True when fd_ is still the file opened; otherwise reopens it (leaving the app's descriptor
    // alone) and appends the gap's warning to *gap. False, with *why, when it cannot be reopened.
    bool ensure_own_fd_locked(std::string* gap, std::string* why);
    bool owns_fd_locked() const;

    int fd_ = -1;
    dev_t dev_ = 0;
    ino_t ino_ = 0;
    uint64_t reopened_ = 0;
    WriteFn write_ = nullptr;
    std::string path_;
    std::mutex mu_;              // one writer at a time: a failed write is cut back to size_
    uint64_t size_ = 0;          // bytes of whole lines in the file
    uint64_t first_end_ = 0;     // where the header's write ended: never dropped
    uint64_t last_start_ = 0;    // where the last whole write began
    uint64_t size_limit_ = 0;    // RLIMIT_FSIZE when open() ran; 0: none
    std::atomic<bool> stopped_{false};
    std::string stop_reason_;
};

}  // namespace gorocprof::core::records
