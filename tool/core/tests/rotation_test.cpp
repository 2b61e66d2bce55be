// Rotation (rocprofv3's pmc_groups with pmc_group_interval): no replay; each selected dispatch of an
// agent collects one of the agent's passes, the agent's own count deciding which.
#include "core_fixture.hpp"

#include <thread>

using namespace core_fixture;

namespace {

Setup rotation(int interval, const std::string& include = "") {
    Setup s;
    s.mode = "rotation";
    s.group_interval = interval;
    s.include = include;
    return s;
}

// The "pass" of each dispatch record of an agent id, in file order.
std::string passes_of(const std::vector<Value>& dispatches, int64_t agent_id) {
    std::string out;
    for (const Value& d : dispatches)
        if (num(d, "agent_id") == agent_id) out += (out.empty() ? "" : ",") + std::to_string(num(d, "pass"));
    return out;
}

}  // namespace

TEST_CASE(rotation_dispatch_k_collects_pass_k_minus_1_over_interval_mod_passes) {
    CHECK(start(rotation(2)));
    register_agents();
    Core& core = Core::instance();
    CHECK(!replay::ReplayService::instance().enabled());  // rotation never replays
    KernelRef k0 = kernel("k", 1), k1 = kernel("k", 2);
    const char* want0[] = {"SQ_WAVES,A0", "SQ_WAVES,A0", "SQ_WAVES,B1", "SQ_WAVES,B1",
                           "SQ_WAVES,C2", "SQ_WAVES,C2", "SQ_WAVES,A0", "SQ_WAVES,A0"};
    for (int i = 0; i < 8; ++i) {
        // What a backend that arms counters before the dispatch opens (CUDA at launch ENTER) sees.
        CHECK(core.select(k0));
        CHECK_EQ(names_of(core.counters_for_current_pass(0)), std::string(want0[i]));
        CHECK_EQ(core.selected_rotation_pass(), static_cast<uint64_t>((i / 2) % 3));
        if (i % 2 == 0) run_dispatch(1, k1);  // the other agent's dispatches count on their own
    }
    core.finish();
    std::vector<Value> ds = of_type(read_records(), "dispatch");
    CHECK_EQ(ds.size(), size_t{4});  // agent 0's dispatches were selected only
    CHECK_EQ(passes_of(ds, 2), std::string("0,0,1,1"));
    for (const Value& d : ds) {
        if (num(d, "agent_id") == 2) CHECK_EQ(num(d, "passes"), int64_t{2});
    }
}

TEST_CASE(rotation_records_the_rotated_pass_of_each_dispatch) {
    CHECK(start(rotation(2)));
    register_agents();
    KernelRef k = kernel("k", 1);
    for (int i = 0; i < 7; ++i) run_dispatch(0, k);
    Core::instance().finish();
    std::vector<Value> ds = of_type(read_records(), "dispatch");
    CHECK_EQ(passes_of(ds, 1), std::string("0,0,1,1,2,2,0"));
    const char* want[] = {"SQ_WAVES,A0", "SQ_WAVES,A0", "SQ_WAVES,B1", "SQ_WAVES,B1", "SQ_WAVES,C2", "SQ_WAVES,C2",
                          "SQ_WAVES,A0"};
    for (size_t i = 0; i < ds.size() && i < 7; ++i) {
        CHECK_EQ(num(ds[i], "passes"), int64_t{3});
        CHECK_EQ(counter_names(ds[i]), std::string(want[i]));
    }
}

TEST_CASE(rotation_counts_selected_dispatches_only) {
    CHECK(start(rotation(1, "keep")));
    register_agents();
    KernelRef keep = kernel("keep", 1), other = kernel("other", 1);
    run_dispatch(0, keep);
    run_dispatch(0, other);  // filtered out: takes no place in the rotation
    run_dispatch(0, keep);
    run_dispatch(0, other);
    run_dispatch(0, keep);
    run_dispatch(0, keep);
    Core::instance().finish();
    CHECK_EQ(passes_of(of_type(read_records(), "dispatch"), 1), std::string("0,1,2,0"));
}

TEST_CASE(rotation_dispatch_recorded_on_another_thread_keeps_its_pass) {
    CHECK(start(rotation(1)));
    register_agents();
    Core& core = Core::instance();
    KernelRef k = kernel("k", 1);
    CHECK(core.select(k));
    CHECK(core.select(k));
    uint64_t second = core.selected_rotation_pass();
    CHECK_EQ(second, uint64_t{1});
    // A backend that records on a completion thread (the sim's asynchronous path) hands the pass over.
    std::thread worker([&] {
        DispatchFacts f;
        f.info.size = sizeof f.info;
        f.info.agent_id.handle = 1;
        f.info.dispatch_id = 2;
        f.rotation_pass = second;
        core.begin_dispatch(f);
        CHECK_EQ(names_of(core.counters_for_current_pass(0)), std::string("SQ_WAVES,B1"));
        PassRecord rec;
        rec.pass = kNotReplayed;
        core.record_pass(rec);
        core.end_dispatch();
    });
    worker.join();
    core.finish();
    std::vector<Value> ds = of_type(read_records(), "dispatch");
    CHECK_EQ(ds.size(), size_t{1});
    if (!ds.empty()) CHECK_EQ(num(ds[0], "pass"), int64_t{1});
}
