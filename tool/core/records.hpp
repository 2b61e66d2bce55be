// The record lines of docs/record-format.md §3, formatted into a caller's buffer (appending, so one
// buffer collects every line of a dispatch), and the file they go to.
#pragma once

#include "core.hpp"

#include <sys/types.h>

#include <cstdint>
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

// The process's record file: one write(2) per call, so that lines of different threads (O_APPEND)
// never interleave and a crash loses at most what was never handed to write().
class File {
public:
    using WriteFn = ssize_t (*)(int fd, const void* buf, size_t n);

    // Creates <run_dir>/records/ if needed and opens <run_dir>/records/<pid>.ndjson for appending.
    bool open(const std::string& run_dir, int64_t pid, std::string* error);
    // Tests: write to an existing descriptor, through `fn` instead of ::write.
    void attach(int fd, WriteFn fn);
    bool is_open() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    const std::string& path() const { return path_; }

    // Retries on EINTR and partial writes (the rest goes in further calls only then). False with
    // *error on failure.
    bool write_all(const std::string& data, std::string* error);

    void close();

private:
    int fd_ = -1;
    WriteFn write_ = nullptr;
    std::string path_;
};

}  // namespace gorocprof::core::records
