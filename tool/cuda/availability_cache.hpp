// The device's counter availability image, kept between processes (GOROCPROF_CUDA_AVAILABILITY_DIR, which the
// front end points into its query cache). Reading it from the driver is the dearest step of a process's counter
// set-up after its first Start (docs/perf.md, attempt 19), and every run of an application replay is a new process. The file is
// named for everything the image depends on: the device's UUID (a MIG instance has its own), the driver's
// version and CUPTI's. A configuration that cannot be built or armed under a cached image makes the caller read
// the driver's again (RangeCounters), so a stale file costs one more read, never a wrong counter set.
#pragma once

#include "check.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gorocprof::cuda {

// The file for one device under `dir`; empty when `dir` is (no cache). `uuid` as device_info formats it.
std::string availability_cache_path(const std::string& dir, const std::string& uuid, int driver_version,
                                    uint32_t cupti_version);

// Reads an image saved by save_availability: false (image untouched) when the file is absent, truncated, of
// another format or empty.
bool load_availability(const std::string& path, std::vector<uint8_t>* image);

// Writes the image whole or not at all (a temporary file renamed over `path`), creating `path`'s directory.
PortStatus save_availability(const std::string& path, const std::vector<uint8_t>& image);

}  // namespace gorocprof::cuda
