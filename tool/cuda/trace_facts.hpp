// The pure parts of tracing on CUDA (tracing.cpp), host-tested without CUPTI (tool/cudahost/trace_host_test.cpp).
#pragma once

#include <string>
#include <string_view>

namespace gorocprof::cuda::tracing {

// A runtime function's name as the runtime spells it, from CUPTI's callback name: a trailing version tag of
// four or more digits is dropped ("cudaMemcpy_v3020" -> "cudaMemcpy", "cudaMemcpy_ptds_v7000" ->
// "cudaMemcpy_ptds"); anything else is kept as it is.
std::string runtime_api_name(std::string_view cupti_name);

// The value of the first "key<blanks>: value" line of /proc/cpuinfo's text whose key is `key`; empty when
// there is none.
std::string cpuinfo_field(std::string_view text, std::string_view key);

}  // namespace gorocprof::cuda::tracing
