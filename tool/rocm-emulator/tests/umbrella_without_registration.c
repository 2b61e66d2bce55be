/* Must not compile: the SDK's rocprofiler.h does not include registration.h, so a tool that only
 * includes the umbrella has no rocprofiler_tool_configure_result_t (ctest
 * rocm_emulator.umbrella_without_registration expects the compiler to say so). */
#include <rocprofiler-sdk/rocprofiler.h>

rocprofiler_tool_configure_result_t* configure_result;
