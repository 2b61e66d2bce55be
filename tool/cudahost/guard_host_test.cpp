// Host-side tests of the two guards of replay: communication kernels known by name and by the library that
// launched them (comm_kernels.*), and the timeout guard's bound and bounded wait (bounded_wait.*) against the
// fake driver's events, one of which never completes.
#include "../testkit/check.hpp"

#include "bounded_wait.hpp"
#include "comm_kernels.hpp"
#include "fake_driver.hpp"

#include <chrono>
#include <map>
#include <string>

using namespace gorocprof::cuda;

TEST_CASE(communication_kernels_are_known_by_name) {
    struct Row {
        const char* name;
        bool comm;
    } rows[] = {
        {"_Z37ncclDevKernel_AllReduce_Sum_f32_RING_LL19ncclDevKernelArgs4K", true},  // NCCL 2.19+
        {"_Z23ncclDevKernel_Generic_119ncclDevKernelArgs4K", true},                   // RCCL
        {"_Z35ncclDevKernelDebug_AllGather_RING_LL19ncclDevKernelArgs4K", true},
        {"_Z38ncclKernel_AllReduce_RING_LL_Sum_floatP11ncclDevCommmP8ncclWork", true},  // NCCL 2.18 and before
        {"ncclDevKernel_SendRecv", true},                                               // not mangled (extern "C")
        {"_Z6saxpyifPfS_", false},
        {"_Z13ncclKernelishv", false},  // the prefix is ncclKernel_, with its underscore
        {"_Z10my_ncclDevKernel_copyPf", false},
        {"_ZN4nccl13ncclDevKernelEv", false},  // a nested name is not NCCL's global kernel
        {"", false},
        {"_Z", false},
        {"_Z99ncclDevKernel", false},  // a length past the end: the name as it stands, which is mangled
    };
    for (const Row& r : rows)
        if (communication_kernel_name(r.name) != r.comm)
            check::fail(__FILE__, __LINE__, std::string(r.name) + ": want " + (r.comm ? "communication" : "not"));
}

TEST_CASE(communication_kernels_are_known_by_the_library_that_launched_them) {
    struct Lib {
        const char* path;
        bool comm;
    } libs[] = {
        {"/usr/lib/x86_64-linux-gnu/libnccl.so.2", true},
        {"/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", true},
        {"/opt/rocm/lib/librccl.so.1.0", true},
        {"libnccl.so", true},
        {"/usr/lib/libcuda.so.1", false},
        {"/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so", false},
        {"/home/u/libnccl-tests/bin/all_reduce_perf", false},  // NCCL's name in a directory, not the library
        {"/usr/lib/libnccl_static.a", false},
    };
    for (const Lib& l : libs)
        if (communication_library(l.path) != l.comm)
            check::fail(__FILE__, __LINE__, std::string(l.path) + ": want " + (l.comm ? "communication" : "not"));

    // A stack: the tool, CUPTI, the driver, NCCL (with its static CUDA runtime), the application.
    const std::map<const void*, const char*> objects = {
        {reinterpret_cast<const void*>(0x10), "/work/lib/libgorocprof_tool_cuda.so"},
        {reinterpret_cast<const void*>(0x20), "/usr/lib/libcupti.so.13"},
        {reinterpret_cast<const void*>(0x30), "/usr/lib/libcuda.so.1"},
        {reinterpret_cast<const void*>(0x40), "/usr/lib/libnccl.so.2"},
        {reinterpret_cast<const void*>(0x50), "/work/bin/app"},
    };
    auto library_of = [&objects](const void* pc) -> const char* {
        auto it = objects.find(pc);
        return it == objects.end() ? nullptr : it->second;
    };
    const void* from_nccl[] = {reinterpret_cast<const void*>(0x10), reinterpret_cast<const void*>(0x99),
                               reinterpret_cast<const void*>(0x30), reinterpret_cast<const void*>(0x40),
                               reinterpret_cast<const void*>(0x50)};
    const void* from_app[] = {reinterpret_cast<const void*>(0x10), reinterpret_cast<const void*>(0x30),
                              reinterpret_cast<const void*>(0x50)};
    CHECK_EQ(communication_caller(from_nccl, 5, library_of), std::string("/usr/lib/libnccl.so.2"));
    CHECK_EQ(communication_caller(from_app, 3, library_of), std::string());

    // A module flagged as NCCL's by one kernel launched from it: its other kernels are communication kernels
    // however they are launched later (a graph node has no launching stack of its own); other modules' not.
    CommunicationKernels comm;
    const CUmodule nccl_module = reinterpret_cast<CUmodule>(0x1000);
    const CUmodule app_module = reinterpret_cast<CUmodule>(0x2000);
    CHECK_EQ(comm.classify("_Z6saxpyifPfS_", app_module, ""), std::string());
    CHECK_EQ(comm.classify("_Z9reduceAllPf", nccl_module, "/usr/lib/libnccl.so.2"),
             std::string("_Z9reduceAllPf is a communication kernel (launched from /usr/lib/libnccl.so.2)"));
    CHECK_EQ(comm.classify("_Z8peerCopyPf", nccl_module, ""),
             std::string("_Z8peerCopyPf is a communication kernel (its module's kernels are launched from "
                         "/usr/lib/libnccl.so.2)"));
    CHECK_EQ(comm.classify("_Z6saxpyifPfS_", app_module, ""), std::string());
    CHECK_EQ(comm.classify("_Z6saxpyifPfS_", nullptr, ""), std::string());
    CHECK_EQ(comm.classify("ncclDevKernel_SendRecv", app_module, ""),
             std::string("ncclDevKernel_SendRecv is a communication kernel (NCCL's kernel names)"));
    comm.forget(nccl_module);  // unloaded: the handle may come back as another module
    CHECK_EQ(comm.classify("_Z8peerCopyPf", nccl_module, ""), std::string());
}

TEST_CASE(replay_bound_is_configured_or_derived_from_the_unprofiled_time) {
    struct Row {
        int64_t configured, kernel, want;
    } rows[] = {
        {0, 20000, kMinBoundNs},                  // a 20 us kernel: 1 s
        {0, 50000000, 5000000000},                // 50 ms: 100 x, 5 s
        {0, -1, kUntimedBoundNs},                 // not timed yet (the timing run itself)
        {0, INT64_MAX / 10, INT64_MAX},           // no overflow
        {250000000, 50000000, 250000000},         // configured: whatever the kernel takes
        {250000000, -1, 250000000},
    };
    for (const Row& r : rows) CHECK_EQ(replay_bound_ns(r.configured, r.kernel), r.want);
    CHECK_EQ(describe_bound(1500000000), std::string("1.5 s"));
    CHECK_EQ(describe_bound(250000000), std::string("250 ms"));
}

TEST_CASE(bounded_wait_gives_up_on_a_kernel_that_never_completes) {
    using clock = std::chrono::steady_clock;
    fakecuda::reset();
    CUevent never = reinterpret_cast<CUevent>(0x1);
    CUevent soon = reinterpret_cast<CUevent>(0x2);
    fakecuda::state().queries_until_ready[never] = fakecuda::kNever;
    fakecuda::state().queries_until_ready[soon] = 3;

    bool timed_out = true;
    PortStatus st = wait_bounded(soon, 5000000000, &timed_out);
    CHECK(st.ok);
    CHECK(!timed_out);
    CHECK_EQ(fakecuda::state().event_queries, size_t(4));

    fakecuda::state().event_queries = 0;
    const int64_t bound = 50000000;  // 50 ms
    const clock::time_point t0 = clock::now();
    st = wait_bounded(never, bound, &timed_out);
    const int64_t waited = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count();
    CHECK(st.ok);
    CHECK(timed_out);
    CHECK(waited >= bound);
    CHECK(waited < 20 * bound);  // it does stop
    // 100 us of polling, then sleeps of 20 us doubling to 1 ms: a few thousand queries at most in 50 ms. A wait
    // that polls throughout makes hundreds of thousands.
    if (fakecuda::state().event_queries > 20000)
        check::fail(__FILE__, __LINE__, "the wait queried " + std::to_string(fakecuda::state().event_queries) +
                                            " times in 50 ms: it spins instead of sleeping");

}
