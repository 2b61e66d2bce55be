// The trace lines of docs/tracing.md: API calls, markers and memory copies of the application, as
// every backend reports them. A backend calls these from its interception points; core decides
// whether the domain is traced, numbers the calls, pairs marker ranges and buffers the lines per
// thread, so a traced call costs a few hundred nanoseconds and no write(2) of its own.
//
//   { trace::ApiCall call(trace::Domain::HipRuntime, "simMemcpy");   // entry: correlation id, start
//     ... the runtime's work; a dispatch or copy issued here takes trace::current_correlation_id()
//   }                                                                  // exit: the api line
//
// Everything the tool itself does to the device (replay passes, snapshots, restores) runs under a
// trace::Quiet on its thread and is never traced: the application sees one ordinary execution.
#pragma once

#include <cstdint>
#include <string_view>

namespace gorocprof::core::trace {

enum class Domain : uint8_t {
    HipRuntime,      // HIP_RUNTIME_API
    HipCompiler,     // HIP_COMPILER_API
    HsaCore,         // HSA_CORE_API
    HsaAmdExt,       // HSA_AMD_EXT_API
    HsaImageExt,     // HSA_IMAGE_EXT_API
    HsaFinalizeExt,  // HSA_FINALIZE_EXT_API
    CudaRuntime,     // CUDA_RUNTIME_API
    CudaDriver,      // CUDA_DRIVER_API
    Marker,          // MARKER_CORE_RANGE_API
    MemoryCopy,      // MEMORY_COPY
    Count
};

// The domain's name as the plan and the record lines spell it ("HIP_RUNTIME_API").
const char* domain_name(Domain d);
// The domain of a plan name; false for a name this library does not know.
bool parse_domain(std::string_view name, Domain* out);

// Whether this process traces d: the plan lists it, Core::initialize succeeded, and the process has
// not finished. False on a thread inside a Quiet.
bool enabled(Domain d);
// Whether any API domain (not the marker or copy domain) is traced: correlation ids then link the
// dispatch and copy lines to the calls that issued them.
bool any_api_enabled();

// While one lives on a thread, nothing is traced there and current_correlation_id() is 0. Nests.
class Quiet {
public:
    Quiet();
    ~Quiet();
    Quiet(const Quiet&) = delete;
    Quiet& operator=(const Quiet&) = delete;
};
bool quiet();

// The next correlation id of the process (from 1; one counter for every traced domain).
uint64_t next_correlation_id();
// From now on core's own ids (ApiCall, markers) are above `below`: a backend whose API lines carry ids
// of their own (CUPTI's 32-bit correlation ids) keeps core's out of their range. Never lowers the counter.
void reserve_correlation_ids(uint64_t below);

// The correlation id of the innermost ApiCall open on this thread; 0 when none is.
uint64_t current_correlation_id();

// The calling thread's OS id (cached per thread).
uint64_t thread_id();

// One traced API call: the constructor takes a correlation id and the start time when d is traced,
// the destructor writes the line. `op` must outlive the call (a string literal or a name table's).
class ApiCall {
public:
    ApiCall(Domain d, const char* op);
    ~ApiCall();
    ApiCall(const ApiCall&) = delete;
    ApiCall& operator=(const ApiCall&) = delete;
    bool active() const { return active_; }
    uint64_t correlation_id() const { return correlation_id_; }

private:
    const char* op_;
    uint64_t correlation_id_ = 0;
    uint64_t outer_ = 0;  // the enclosing call's correlation id, restored at exit
    int64_t start_ = 0;
    Domain domain_;
    bool active_ = false;
};

// An API call whose times the backend took itself (CUPTI's activity records, the SDK's buffer
// records). Not checked against Quiet: the backend decides what is the tool's own.
void record_api(Domain d, std::string_view op, uint64_t correlation_id, uint64_t thread_id, int64_t start,
                int64_t end);

// Markers. `op` is the name the line records for the range or mark ("roctxThreadRangeA" for a roctx
// push/pop, "nvtxRangePushA" for NVTX's); the message is copied. A pop without a push, and a stop of
// an unknown id, are ignored. Ranges still open at exit are written with the exit time as end.
void marker_push(const char* op, std::string_view message);
void marker_pop();
// A range that may end on another thread: returns its id (0 when markers are not traced).
uint64_t marker_start(const char* op, std::string_view message);
void marker_stop(uint64_t id);
void marker_mark(const char* op, std::string_view message);
// A range or mark whose correlation id and times the backend took itself (the SDK's
// MARKER_CORE_RANGE_API callbacks number markers with the API calls' counter, so core's own ids would
// collide with them). Not checked against Quiet: the backend decides what is the tool's own.
void record_marker(const char* op, std::string_view message, uint64_t correlation_id, uint64_t thread_id, int64_t start,
                   int64_t end);

struct Copy {
    const char* op = "";  // MEMORY_COPY_HOST_TO_DEVICE, ... (docs/tracing.md)
    uint64_t correlation_id = 0;
    uint64_t thread_id = 0;  // 0: the calling thread
    uint64_t src_agent_id = 0;
    uint64_t dst_agent_id = 0;
    uint64_t queue_id = 0;
    uint64_t stream_id = 0;
    uint64_t size = 0;
    uint64_t src_address = 0;
    uint64_t dst_address = 0;
    int64_t start = 0;
    int64_t end = 0;
};
// A copy the application made (the caller checks enabled(MemoryCopy) and quiet() where it can tell).
void record_copy(const Copy& c);

// Writes the calling thread's buffered lines now (a backend about to do something risky, a test).
void flush_thread();
// Writes every thread's buffered lines and the ranges still open (Core::finish, once tracing has
// stopped, before `end`).
void flush_all();

}  // namespace gorocprof::core::trace
