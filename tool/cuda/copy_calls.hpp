// The addresses a driver memory call names (tracing.cpp's copy records): read from the call's CUPTI
// parameter struct at its ENTER.
#pragma once

#include <cupti.h>

#include <cstdint>

namespace gorocprof::cuda::tracing {

// The source and destination addresses of the one-dimensional copies and memsets; 0 where the call
// describes them otherwise (2D and 3D copies, arrays). `params` is the callback's functionParams.
void copy_addresses(CUpti_CallbackId cbid, const void* params, uint64_t* src, uint64_t* dst);

}  // namespace gorocprof::cuda::tracing
