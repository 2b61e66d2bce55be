#include "filter.hpp"

#include "regex.hpp"

namespace gorocprof::core {

KernelFilter::KernelFilter() : chunks_(new std::atomic<Slot*>[kMaxChunks]) {
    for (size_t i = 0; i < kMaxChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
}

KernelFilter::~KernelFilter() {
    for (size_t i = 0; i < kMaxChunks; ++i) delete[] chunks_[i].load(std::memory_order_relaxed);
}

bool KernelFilter::configure(const std::string& include_regex, const std::string& exclude_regex,
                             std::vector<std::pair<int64_t, int64_t>> iteration_ranges, std::string* error) {
    auto compile = [&](const std::string& pattern, const char* field, std::unique_ptr<Regex>* out) {
        out->reset();
        if (pattern.empty()) return true;
        std::string why;
        auto re = Regex::compile(pattern, &why);
        if (re == nullptr) {
            if (error) *error = std::string("filters.") + field + " \"" + pattern + "\": " + why;
            return false;
        }
        *out = std::move(re);
        return true;
    };
    if (!compile(include_regex, "include_regex", &include_)) return false;
    if (!compile(exclude_regex, "exclude_regex", &exclude_)) return false;
    for (const auto& r : iteration_ranges) {
        if (r.first < 1 || r.second < r.first) {
            if (error)
                *error = "filters.iteration_ranges: [" + std::to_string(r.first) + ", " + std::to_string(r.second) +
                         "] is not a range of iterations counted from 1";
            return false;
        }
    }
    ranges_ = std::move(iteration_ranges);
    return true;
}

bool KernelFilter::name_matches(const std::string& name) const {
    if (include_ && !include_->partial_match(name)) return false;
    if (exclude_ && exclude_->partial_match(name)) return false;
    return true;
}

KernelFilter::Slot* KernelFilter::slot(uint64_t kernel_id) const {
    if (kernel_id == 0) return nullptr;
    uint64_t index = kernel_id - 1;
    uint64_t chunk = index / kChunkSize;
    if (chunk >= kMaxChunks) return nullptr;
    Slot* c = chunks_[chunk].load(std::memory_order_acquire);
    return c == nullptr ? nullptr : &c[index % kChunkSize];
}

void KernelFilter::add_kernel(uint64_t kernel_id, const std::string& name) {
    if (kernel_id == 0) return;
    uint64_t index = kernel_id - 1;
    uint64_t chunk = index / kChunkSize;
    if (chunk >= kMaxChunks) return;  // select() then evaluates by name, without an iteration count
    std::lock_guard<std::mutex> lock(mu_);
    Slot* c = chunks_[chunk].load(std::memory_order_relaxed);
    if (c == nullptr) {
        c = new Slot[kChunkSize];
        chunks_[chunk].store(c, std::memory_order_release);
    }
    Slot& s = c[index % kChunkSize];
    auto& n = names_[name];
    if (!n) {
        n = std::make_unique<Name>();
        n->matches = name_matches(name);
    }
    s.verdict.store(n->matches ? 1 : 2, std::memory_order_release);
}

size_t KernelFilter::names_evaluated() {
    std::lock_guard<std::mutex> lock(mu_);
    return names_.size();
}

bool KernelFilter::in_ranges(uint64_t iteration) const {
    if (ranges_.empty()) return true;
    for (const auto& r : ranges_) {
        if (iteration >= static_cast<uint64_t>(r.first) && iteration <= static_cast<uint64_t>(r.second)) return true;
    }
    return false;
}

bool KernelFilter::select(uint64_t kernel_id) {
    Slot* s = slot(kernel_id);
    uint8_t verdict = s == nullptr ? 0 : s->verdict.load(std::memory_order_acquire);
    if (verdict != 1) return false;
    uint64_t iteration = s->iterations.fetch_add(1, std::memory_order_relaxed) + 1;
    return in_ranges(iteration);
}

}  // namespace gorocprof::core
