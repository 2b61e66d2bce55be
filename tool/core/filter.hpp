// The kernel filter: include/exclude regexes on a kernel's name, then the iteration ranges, counted
// per kernel id as rocprofv3 counts them (each agent loads its own copy of a kernel, with an id of
// its own, so the count is per kernel and agent). Applied once per logical dispatch (Core::select), never per replay pass. The regexes are
// RE2, the dialect of Go's regexp with which the front end validates them, and RE2 matches in time
// linear in the name without recursing on its length: a pattern the user types cannot hang or
// overflow the stack of the profiled app.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gorocprof::core {

class Regex;

class KernelFilter {
public:
    KernelFilter();
    ~KernelFilter();
    KernelFilter(const KernelFilter&) = delete;
    KernelFilter& operator=(const KernelFilter&) = delete;

    // Compiles the regexes (RE2 syntax). Returns false with *error naming the field and the reason.
    bool configure(const std::string& include_regex, const std::string& exclude_regex,
                   std::vector<std::pair<int64_t, int64_t>> iteration_ranges, std::string* error);

    // Evaluates the regexes once per distinct name; `name` is the flavour the plan filters on. Kernels
    // that share a name share its verdict; each kernel id counts its own iterations. Thread-safe;
    // kernel_id >= 1.
    void add_kernel(uint64_t kernel_id, const std::string& name);

    // Decides one logical dispatch of a registered kernel: a table lookup and, when the regexes pass,
    // one atomic increment of the kernel id's iteration count. No allocation, no lock.
    bool select(uint64_t kernel_id);

    // The regex verdict alone (no iteration counted), for kernels the table does not know.
    bool name_matches(const std::string& name) const;

    // How many distinct names add_kernel has matched the regexes against.
    size_t names_evaluated();

private:
    struct Slot {
        std::atomic<uint8_t> verdict{0};  // 0 unknown, 1 passes the regexes, 2 excluded
        std::atomic<uint64_t> iterations{0};
    };
    static constexpr size_t kChunkSize = 1024;
    static constexpr size_t kMaxChunks = 4096;

    bool in_ranges(uint64_t iteration) const;
    Slot* slot(uint64_t kernel_id) const;

    struct Name {
        bool matches = false;
    };

    std::unique_ptr<Regex> include_, exclude_;  // nullptr: no such regex
    std::vector<std::pair<int64_t, int64_t>> ranges_;

    std::mutex mu_;  // add_kernel
    std::unordered_map<std::string, std::unique_ptr<Name>> names_;
    // Chunks are published once and never moved, so select() reads them without a lock.
    std::unique_ptr<std::atomic<Slot*>[]> chunks_;
};

}  // namespace gorocprof::core
