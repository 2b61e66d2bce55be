#include "check.hpp"


namespace gorocprof::cuda {

std::string cu_reason(CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    // Not through cu(): these are its messages. An unknown code leaves the pointers null (handled below).
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    std::string out = name ? name : ("CUresult " + std::to_string(static_cast<int>(r)));
    if (text) out += std::string(": ") + text;
    return out;
}

std::string cupti_reason(CUptiResult r) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);  // not through cupti(): this is its message; null is handled below
    std::string out = text ? text : ("CUptiResult " + std::to_string(static_cast<int>(r)));
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
        out += " (ERR_NVGPUCTRPERM: GPU performance counters are restricted to administrators; run as root "
               "or load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0)";
    }
    return out;
}

}  // namespace gorocprof::cuda
