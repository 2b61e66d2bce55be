// The executable of the CUDA backend's host tests (cuda_host_test): every case starts from a fresh fake
// driver and CUPTI. The cases are in the files of their subject: tracker_host_test.cpp, reach_host_test.cpp,
// counters_host_test.cpp, cache_host_test.cpp, options_host_test.cpp, guard_host_test.cpp,
// metric_host_test.cpp.
#include "../testkit/check.hpp"

#include "fake_cupti.hpp"
#include "fake_driver.hpp"

int main(int argc, char** argv) {
    check::Options options;
    options.reset = [] {  // every case starts from a fresh fake driver and CUPTI
        fakecuda::reset();
        fakecupti::reset();
    };
    return check::run(argc, argv, options);
}
