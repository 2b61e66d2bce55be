#include "fake_port.hpp"

#include <replay_service.hpp>

#include <algorithm>
#include <stdexcept>

namespace fake {

using gorocprof::replay::Dispatch;
using gorocprof::replay::PortStatus;

namespace {

struct Saved {
    uint64_t addr;
    uint64_t generation;
    std::vector<float> data;
};

struct FakeSnapshot : gorocprof::replay::Snapshot {
    std::vector<Saved> buffers;
    int module_variable = 0;
};

}  // namespace

void Memory::allocate(uint64_t addr, std::vector<float> init) {
    if (allocations.count(addr)) throw std::logic_error("fake::Memory::allocate: address in use");
    allocations[addr] = Allocation{next_generation++, std::move(init)};
}

void Memory::free(uint64_t addr) { allocations.erase(addr); }

std::vector<float>& Memory::at(uint64_t addr) { return allocations.at(addr).data; }

void Port::note(const std::string& event) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(event);
}

std::vector<std::string> Port::events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
}

size_t Port::count(const std::string& event) const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<size_t>(std::count(events_.begin(), events_.end(), event));
}

PortStatus Port::drain(const Dispatch&) {
    note("drain");
    if (fail_drain) return PortStatus::failure("fake::drain", "injected drain failure");
    return PortStatus::success();
}

PortStatus Port::snapshot(const Dispatch&, gorocprof::replay::Snapshot** out) {
    note("snapshot");
    if (fail_snapshot) return PortStatus::failure("fake::snapshot", "no room for 4096 bytes of backup");
    auto* s = new FakeSnapshot;
    for (const auto& [addr, a] : mem.allocations) s->buffers.push_back({addr, a.generation, a.data});
    s->module_variable = mem.module_variable;
    ++live_snapshots_;
    *out = s;
    return PortStatus::success();
}

PortStatus Port::restore(const Dispatch&, gorocprof::replay::Snapshot& snap) {
    note("restore");
    if (++restores_ == fail_restore_number) return PortStatus::failure("fake::restore", "injected copy failure");
    auto& s = static_cast<FakeSnapshot&>(snap);
    for (const auto& saved : s.buffers) {
        auto it = mem.allocations.find(saved.addr);
        if (it == mem.allocations.end()) {
            ++skipped_freed;
        } else if (it->second.generation != saved.generation || it->second.data.size() != saved.data.size()) {
            ++skipped_reused;  // a different allocation lives here now: stale bytes must not land on it
        } else {
            it->second.data = saved.data;
            ++restored_buffers;
        }
    }
    mem.module_variable = s.module_variable;
    return PortStatus::success();
}

void Port::release(gorocprof::replay::Snapshot* s) {
    note("release");
    --live_snapshots_;
    delete s;
}

PortStatus Port::submit(const Dispatch& d, uint64_t pass) {
    note(pass == UINT64_MAX ? "submit once" : "submit " + std::to_string(pass));
    submit_passes.push_back(pass);
    submit_dispatch_ids.push_back(d.info.dispatch_id);
    current_pass_at_submit.push_back(gorocprof::replay::ReplayService::current_pass());
    if (pass == fail_submit_pass) return PortStatus::failure("fake::submit", "injected launch failure");
    if (kernel) kernel(*this, pass);
    return PortStatus::success();
}

void Port::complete(const Dispatch&) {
    note("complete");
    ++completions;
}

Dispatch make_dispatch(uint64_t agent) {
    Dispatch d;
    d.info.size = sizeof(d.info);
    d.info.dispatch_id = gorocprof::replay::ReplayService::instance().reserve_dispatch_id();
    d.info.agent_id.handle = agent;
    d.info.queue_id.handle = 3;
    d.info.kernel_id = 11;
    d.info.grid_size = {256, 1, 1};
    d.info.workgroup_size = {64, 1, 1};
    d.correlation.internal = 1000 + d.info.dispatch_id;
    d.correlation.external.value = 77;
    d.correlation.ancestor = 5;
    return d;
}

}  // namespace fake
