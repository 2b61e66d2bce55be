// Host-side test of tracing's pure parts (trace_facts.*): the runtime's function names from CUPTI's callback
// names, and the CPU agent's facts from /proc/cpuinfo's text.
#include "../testkit/check.hpp"

#include "trace_facts.hpp"

#include <string>

using gorocprof::cuda::tracing::cpuinfo_field;
using gorocprof::cuda::tracing::runtime_api_name;

TEST_CASE(trace_runtime_names_drop_cuptis_version_tag) {
    struct Row {
        const char* cupti;
        const char* want;
    } rows[] = {
        {"cudaMemcpy_v3020", "cudaMemcpy"},
        {"cudaLaunchKernel_v7000", "cudaLaunchKernel"},
        {"cudaMemcpy_ptds_v7000", "cudaMemcpy_ptds"},
        {"cudaLaunchKernelExC_v11060", "cudaLaunchKernelExC"},
        {"cudaGetDevice", "cudaGetDevice"},           // no tag
        {"cuMemAlloc_v2", "cuMemAlloc_v2"},           // a symbol's own suffix: kept
        {"cudaGraphAddNode_v2", "cudaGraphAddNode_v2"},  // too short for a version tag
        {"cudaFoo_v30a0", "cudaFoo_v30a0"},           // not all digits
        {"_v1234", ""},
        {"", ""},
    };
    for (const Row& r : rows) CHECK_EQ(runtime_api_name(r.cupti), std::string(r.want));
}

TEST_CASE(trace_cpuinfo_fields_are_the_first_lines_values) {
    const std::string text =
        "processor\t: 0\n"
        "vendor_id\t: GenuineIntel\n"
        "model name\t: Intel(R) Xeon(R) Processor\n"
        "model\t\t: 143\n"
        "processor\t: 1\n"
        "vendor_id\t: OtherVendor\n"
        "flags\t\t:\n"
        "bogus line without a colon\n";
    CHECK_EQ(cpuinfo_field(text, "vendor_id"), std::string("GenuineIntel"));
    CHECK_EQ(cpuinfo_field(text, "model name"), std::string("Intel(R) Xeon(R) Processor"));
    CHECK_EQ(cpuinfo_field(text, "model"), std::string("143"));  // not "model name"'s line
    CHECK_EQ(cpuinfo_field(text, "flags"), std::string());
    CHECK_EQ(cpuinfo_field(text, "cpu MHz"), std::string());
    CHECK_EQ(cpuinfo_field("", "vendor_id"), std::string());
    CHECK_EQ(cpuinfo_field("vendor_id: AuthenticAMD", "vendor_id"), std::string("AuthenticAMD"));  // no newline at the end
}
