// The one place CUDA driver and CUPTI results become messages: every call the backend makes goes
// through cu() or cupti(), so each failure names the call and the driver's own reason. (The exceptions
// say why where they stand: cu_reason() and cupti_reason() themselves, and a call whose particular error
// code means something, such as the end of a list.)
#pragma once

#include "device_port.hpp"

#include <cuda.h>
#include <cupti.h>

#include <string>

namespace gorocprof::cuda {

using replay::PortStatus;

// "CUDA_ERROR_OUT_OF_MEMORY: out of memory"
std::string cu_reason(CUresult r);
// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: ..."
std::string cupti_reason(CUptiResult r);

inline PortStatus cu(CUresult r, const char* call) {
    return r == CUDA_SUCCESS ? PortStatus::success() : PortStatus::failure(call, cu_reason(r));
}
inline PortStatus cupti(CUptiResult r, const char* call) {
    return r == CUPTI_SUCCESS ? PortStatus::success() : PortStatus::failure(call, cupti_reason(r));
}

// For calls that all run whatever the others return (the releases of a context's buffers, events and
// streams): `kept` becomes `st` if it is the first failure, so the caller reports that one.
inline void keep_first(PortStatus* kept, const PortStatus& st) {
    if (kept->ok && !st.ok) *kept = st;
}

}  // namespace gorocprof::cuda
