// The fake CUPTI profiler behind fake/cupti_*.h: configuration images are the metric names, a
// configuration's hardware passes come from a cost per metric (State::cost, State::capacity: metrics in
// order, a pass closed when the next one would overflow it), and a Range Profiler object behaves as
// measured on the H200: it measures the first configuration SetConfig gave it, whatever later SetConfig
// calls say (the other metrics then read 0). kernel() stands for a kernel that runs while the profiler is
// started: it records into the next range value(metric, id) for each metric of the current hardware pass;
// Stop moves to the next hardware pass and says whether all were submitted (each pass re-runs the kernels
// into the same ranges; a metric of the measured configuration that a range did not get, because its session
// ran fewer kernels, reads NaN). An object records at most twice its first SetConfig's maxRangesPerPass ranges per
// window, as measured on the H200.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fakecupti {

struct State {
    std::map<std::string, int> cost;  // per metric (1 when absent)
    int capacity = 4;                 // one hardware pass holds metrics whose costs add up to this
    // CUPTI's own choice of hardware pass for a metric, where a test names one (on the H200 it put S10's
    // smsp__thread_inst_executed alone in the second of two): the metric moves there from where cost put it.
    std::map<std::string, size_t> pass_of;
    std::function<double(const std::string& metric, size_t kernel)> value;
    size_t enables = 0, disables = 0, starts = 0;
    std::vector<std::string> last_config;  // the metrics of the last SetConfig's image
    // When set and true for a configuration's metrics, SetConfig refuses it (CUPTI_ERROR_INVALID_PARAMETER).
    std::function<bool(const std::vector<std::string>& metrics)> reject_config;
    // The chip's metric catalog for the host API's enumeration calls, by metric type (0 counter, 1 ratio,
    // 2 throughput): base metrics with their properties and sub-metric suffixes ("sum", ".max", as CUPTI
    // gives them, with or without the dot). host_calls counts GetSubMetrics and GetMetricProperties calls.
    struct BaseMetric {
        std::string name, description, unit;
        std::vector<std::string> subs;
    };
    std::map<int, std::vector<BaseMetric>> catalog;
    size_t host_calls = 0;
    // The device's counter availability image (one byte), how often it was read (each read is two calls: the
    // size, then the image), and whether host objects refuse any other image (the device changed since a
    // cached one was kept).
    uint8_t availability = 1;
    size_t availability_reads = 0;
    bool host_wants_current_availability = false;
    // The profiler type of each host object initialised, in order.
    std::vector<int> host_types;
};

State& state();
void reset();
// A kernel `id` runs in the current context: a range for that context's started profiler object.
void kernel(size_t id);
// The context the next kernels run in (as a launch runs in its own context); a test with one context need
// not name it.
void set_context(CUcontext ctx);

}  // namespace fakecupti
