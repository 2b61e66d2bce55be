// FakePort: a DevicePort over a small host-side model of device memory (allocations by address with
// a generation number, one module-scope variable). It records the order of port calls and can fail
// drain, snapshot, restore or submit on demand.
//
// Its restore follows the port contract of device_port.hpp: an allocation freed since the snapshot
// is skipped, and an address freed and allocated again (new generation) is never written with the
// stale bytes.
#pragma once

#include <device_port.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fake {

struct Allocation {
    uint64_t generation = 0;
    std::vector<float> data;
};

struct Memory {
    std::map<uint64_t, Allocation> allocations;
    uint64_t next_generation = 1;
    int module_variable = 7;

    void allocate(uint64_t addr, std::vector<float> init);
    void free(uint64_t addr);
    std::vector<float>& at(uint64_t addr);
};

class Port : public gorocprof::replay::DevicePort {
public:
    Memory mem;
    // The kernel: what one submit does to memory. `pass` as submit() got it.
    std::function<void(Port&, uint64_t pass)> kernel;

    bool fail_drain = false;
    bool fail_snapshot = false;
    int fail_restore_number = 0;           // 1-based restore call that fails; 0: none
    uint64_t fail_submit_pass = UINT64_MAX - 1;  // pass whose submit fails; default none

    // Restore bookkeeping, for the contract test.
    int restored_buffers = 0;
    int skipped_freed = 0;
    int skipped_reused = 0;

    int completions = 0;
    std::vector<uint64_t> submit_passes;
    std::vector<uint64_t> submit_dispatch_ids;
    std::vector<uint64_t> current_pass_at_submit;

    int live_snapshots() const { return live_snapshots_; }

    // Thread-safe: the tool harness writes callback events into the same log.
    void note(const std::string& event);
    std::vector<std::string> events() const;
    size_t count(const std::string& event) const;

    gorocprof::replay::PortStatus drain(const gorocprof::replay::Dispatch& d) override;
    gorocprof::replay::PortStatus snapshot(const gorocprof::replay::Dispatch& d,
                                           gorocprof::replay::Snapshot** out) override;
    gorocprof::replay::PortStatus restore(const gorocprof::replay::Dispatch& d,
                                          gorocprof::replay::Snapshot& s) override;
    void release(gorocprof::replay::Snapshot* s) override;
    gorocprof::replay::PortStatus submit(const gorocprof::replay::Dispatch& d, uint64_t pass) override;
    void complete(const gorocprof::replay::Dispatch& d) override;

private:
    mutable std::mutex mu_;
    std::vector<std::string> events_;
    int restores_ = 0;
    int live_snapshots_ = 0;
};

// A dispatch with a freshly reserved id on `agent`; correlation ids derived from the id.
gorocprof::replay::Dispatch make_dispatch(uint64_t agent = 1);

}  // namespace fake
