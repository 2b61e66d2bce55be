// Host-side tests of --cache-control in the CUDA backend (cache_flush.*): what GOROCPROF_CACHE_CONTROL
// means, and the flush reading twice the device's L2 through the fake driver. (How the counters skip the
// flush kernel's range is range_counters_skip_the_cache_flush_kernel_before_each_pass.)
#include "../testkit/check.hpp"

#include "cache_flush.hpp"
#include "fake_driver.hpp"
#include "options.hpp"

#include <string>

using gorocprof::cuda::CacheControl;
using gorocprof::cuda::CacheFlush;
using gorocprof::cuda::parse_cache_control;

TEST_CASE(cache_control_reads_all_none_and_defaults_to_all) {
    struct Row {
        const char* value;
        CacheControl want;
        bool problem;
    } rows[] = {
        {nullptr, CacheControl::All, false}, {"", CacheControl::All, false}, {"all", CacheControl::All, false},
        {"none", CacheControl::None, false}, {"None", CacheControl::All, true}, {"off", CacheControl::All, true},
    };
    for (const Row& r : rows) {
        std::string problem;
        const CacheControl got = parse_cache_control(r.value, &problem);
        if (got != r.want || problem.empty() == r.problem)
            check::fail(__FILE__, __LINE__, std::string("value ") + (r.value ? r.value : "(unset)") + ": got " +
                                                (got == CacheControl::All ? "all" : "none") + ", problem \"" + problem + "\"");
    }
}

TEST_CASE(cache_sensitive_counters_are_all_but_the_programs_own_counts) {
    struct Row {
        const char* metric;
        bool sensitive;
    } rows[] = {
        {"sm__inst_executed.sum", false},
        {"sm__warps_launched.sum", false},
        {"smsp__inst_executed_op_global_ld.sum", false},
        {"smsp__thread_inst_executed.sum", false},
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", false},
        {"sm__ctas_launched.max", false},
        {"sm__inst_executed.avg.per_cycle_active", true},  // cycles depend on the caches
        {"sm__inst_executed.sum.per_second", true},
        {"smsp__inst_issued.sum", true},
        {"dram__bytes_read.sum", true},
        {"lts__t_sectors_op_read.sum", true},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", true},
        {"gpu__time_duration.sum", true},
        {"sm__cycles_elapsed.avg", true},
        {"inst_executed", true},
        {"sm__inst_executed", true},
    };
    for (const Row& r : rows)
        if (gorocprof::cuda::cache_sensitive(r.metric) != r.sensitive) check::fail(__FILE__, __LINE__, r.metric);
}

TEST_CASE(cache_flush_reads_twice_the_l2_once_per_run) {
    fakecuda::state().l2_bytes = 3 << 20;
    CacheFlush f;
    CHECK(!f.run(nullptr).ok);  // not prepared: says so rather than launching nothing
    CHECK(f.prepare(0).ok);
    CHECK(f.ready());
    CHECK_EQ(f.bytes(), size_t(6) << 20);
    CHECK(f.run(nullptr).ok);
    CHECK(f.run(nullptr).ok);
    CHECK_EQ(fakecuda::state().flushes, size_t(2));
    CHECK_EQ(fakecuda::state().flush_bytes, size_t(6) << 20);
    f.release();
    CHECK(!f.ready());

    fakecuda::state().l2_bytes = 0;
    CacheFlush none;
    const auto st = none.prepare(0);
    CHECK(!st.ok);
    CHECK(st.message().find("no L2 cache size") != std::string::npos);
}
