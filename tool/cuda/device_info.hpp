// What the backend and the query helper say about an NVIDIA device: the agent record's fields, and
// the chip name the Range Profiler and the metric catalog are keyed on.
#pragma once

#include "check.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gorocprof::cuda {

struct DeviceInfo {
    int ordinal = 0;
    uint64_t id = 0;  // agent handle in records: ordinal + 1, the same in the tool and the query helper
    std::string name;  // "NVIDIA H200": the plan matches agents on it
    std::string chip;  // "GH100", empty when CUPTI's profiler cannot name it
    std::vector<std::pair<std::string, int64_t>> props;
    std::vector<std::pair<std::string, std::string>> strings;
};

// Needs cuInit done. CUPTI's profiler is initialised on the way for the chip name.
PortStatus describe_device(int ordinal, DeviceInfo* out);

// Initialises CUPTI's profiler interface once per process.
PortStatus ensure_profiler_initialized();

// The chip name CUPTI uses for the device ("GH100").
PortStatus chip_name(int ordinal, std::string* out);

}  // namespace gorocprof::cuda
