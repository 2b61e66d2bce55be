/*
 * gorocprof simulated GPU runtime: the tool-facing API, used by an injected profiler library
 * (tool/sim/backend) and by the query helper. See tool/sim/README.md for the model behind it.
 *
 * Injection: on the first call into the runtime (thread-safe, once) the runtime reads
 * GOROCPROF_SIM_INJECTION_PATH; when set it dlopen()s that library (RTLD_NOW | RTLD_LOCAL) and calls
 * its exported
 *
 *     int gorocprof_sim_initialize_injection(void);   // 0 = success
 *
 * on the thread that made the first call. The injection may call anything in sim.h and here. If the
 * library cannot be loaded, lacks the symbol or returns non-zero, the runtime prints one line naming
 * the path and the reason on stderr (prefix "gorocprof-sim: "), removes any launch hook the library
 * set, and the application runs unprofiled.
 *
 * C11-compatible.
 */
#ifndef GOROCPROF_SIM_TOOL_H
#define GOROCPROF_SIM_TOOL_H

#include <gorocprof/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GOROCPROF_SIM_TOOL_API_VERSION 2
#define GOROCPROF_SIM_INJECTION_SYMBOL "gorocprof_sim_initialize_injection"
typedef int (*simToolInjectionInitFn)(void);

/* The version of this header the runtime was built with. */
GOROCPROF_SIM_API int simToolApiVersion(void);

/* Nanoseconds on the clock of every timestamp the runtime reports (CLOCK_REALTIME). */
GOROCPROF_SIM_API int64_t simToolClockNs(void);

/* ---- Agents ----------------------------------------------------------------------------------- */

#define SIM_MAX_SHADER_ENGINES 64

typedef struct simAgentDesc
{
    int      index;       /* device ordinal */
    char     name[16];    /* gfx target, e.g. "gfx90a" */
    char     product_name[64];
    char     vendor[8];   /* "AMD" */
    uint32_t cu_count;
    uint32_t simd_per_cu;
    uint32_t num_xcc;
    uint32_t num_shader_engines;       /* all XCCs together (agent_info's num_shader_banks) */
    uint32_t simd_arrays_per_engine;
    uint32_t cu_per_simd_array;
    uint32_t wave_front_size;
    uint32_t max_waves_per_simd;
    uint32_t lds_size_kb;
    uint32_t gfx_target_version;       /* major*10000 + minor*100 + stepping */
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t location_id;
    uint32_t family_id;
    uint32_t max_engine_clk_mhz;
    uint32_t workgroup_max_size;
    uint32_t tcc_channels;             /* L2 channels, all XCCs together */
    uint64_t local_mem_size;           /* bytes (GOROCPROF_SIM_DEVICE_MEMORY overrides, see README) */
} simAgentDesc;

/* Agents come from GOROCPROF_SIM_AGENTS (comma-separated gfx targets; default "gfx90a,gfx942").
 * Known: gfx908, gfx90a, gfx940, gfx941, gfx942, gfx950. An unknown one makes every call fail with
 * simErrorNoDevice; simGetLastErrorMessage() names it and the known ones. */
GOROCPROF_SIM_API simError_t simToolAgentCount(int* count);
GOROCPROF_SIM_API simError_t simToolGetAgent(int index, simAgentDesc* out);

/* The integer properties of the agent record ("props" in docs/record-format.md), keys as
 * rocprofv3's agent_info.csv columns in lower case, always in the same order. */
typedef void (*simToolAgentPropFn)(const char* key, int64_t value, void* user);
GOROCPROF_SIM_API simError_t simToolForEachAgentProp(int index, simToolAgentPropFn fn, void* user);
/* The text properties ("strings": uuid, pci_bus_id, compute_capability). */
typedef void (*simToolAgentStringFn)(const char* key, const char* value, void* user);
GOROCPROF_SIM_API simError_t simToolForEachAgentString(int index, simToolAgentStringFn fn, void* user);

/* ---- Kernels ---------------------------------------------------------------------------------- */

typedef struct simKernelInfo
{
    simKernel_t    handle;
    uint64_t       serial; /* 1, 2, ... in registration order */
    const char*    mangled_name;
    simKernelAttrs attrs;
} simKernelInfo;

typedef void (*simToolKernelFn)(const simKernelInfo* kernel, void* user);

/* Calls fn for every kernel registered so far, then for every kernel registered later (on the
 * registering thread, before simRegisterKernel returns). NULL unsubscribes. */
GOROCPROF_SIM_API simError_t simToolSetKernelCallback(simToolKernelFn fn, void* user);
GOROCPROF_SIM_API simError_t simToolForEachKernel(simToolKernelFn fn, void* user);

/* ---- Launch interception ---------------------------------------------------------------------- */

typedef struct simLaunch
{
    uint64_t       launch_id;    /* 1, 2, ... per process in submission order */
    int            agent;        /* device ordinal of the stream */
    simStream_t    stream;       /* as the application passed it (NULL = default stream) */
    uint64_t       stream_id;    /* unique per process; the default stream of agent i is i+1 */
    simKernel_t    kernel;
    uint64_t       kernel_serial;
    const char*    kernel_name;  /* mangled */
    simKernelAttrs attrs;        /* kernarg_size filled from args_size when the kernel left it 0 */
    simDim3        grid_blocks;  /* work-groups, as launched */
    simDim3        block;        /* work-items per work-group */
    simDim3        grid_size;    /* work-items: grid_blocks * block, per dimension */
    uint32_t       dynamic_lds;
    uint32_t       group_segment_size; /* attrs.lds_bytes + dynamic_lds */
    const void*    args;         /* the runtime's copy */
    size_t         args_size;
    uint64_t       thread_id;    /* OS thread id of the submitting thread */
    uint64_t       api_value;    /* what the API callback's ENTER of simLaunchKernel returned (0: none) */
    void*          internal_;    /* the runtime's; do not touch */
} simLaunch;

/* When a hook is set, simLaunchKernel validates the launch, reserves its place in the stream, and
 * calls hook(launch, user) on the submitting thread; the hook then owns the launch's execution. The
 * launch stays valid at least until the hook returns. The hook must eventually call exactly one of
 * simToolComplete or simToolEnqueue(WithCallback) for the launch; until then the stream does not
 * move past it (later work on that stream waits). Launching from inside a hook is allowed (the hook
 * is called again, nested). Inside a hook do not call simStreamSynchronize/simDeviceSynchronize/
 * simMemcpy/simMemset on the launch's agent (they would wait for this launch): use simToolDrain. */
typedef void (*simToolLaunchHook)(const simLaunch* launch, void* user);
GOROCPROF_SIM_API simError_t simToolSetLaunchHook(simToolLaunchHook hook, void* user); /* NULL removes it */

/* Waits until no stream of the agent is executing anything and none will start anything for now:
 * each is empty, waiting at an intercepted launch not yet resolved (this one included), or stopped
 * by a hold of the agent. */
GOROCPROF_SIM_API simError_t simToolDrain(int agent);

/* A replay window: while an agent is held (Hold/Release nest, any thread may release), the stream
 * workers of that agent start nothing: no kernel, copy or set, intercepted-and-enqueued or not, so no
 * other work can land inside the window and be undone by a restore. simToolExecute still runs. A
 * quiet agent takes Drain, Hold, Drain: the first Drain lets the work queued before the launch
 * finish (a Hold alone would stop it where it is, and the launch would then overtake it), the second
 * waits for what started in between. Work queued meanwhile runs after the last Release. */
GOROCPROF_SIM_API simError_t simToolHoldAgent(int agent);
GOROCPROF_SIM_API simError_t simToolReleaseAgent(int agent);

/* What one execution of a launch did: timestamps and the work the kernel reported, in total and
 * per shader engine (work-group g runs on shader engine g % num_shader_engines). Instruction kinds
 * are wave instructions (already multiplied by the waves). */
typedef struct simExecResult
{
    int64_t  start_ns;
    int64_t  end_ns;
    uint64_t workgroups;
    uint64_t waves;
    uint32_t num_shader_engines;
    uint32_t reserved0;
    uint64_t work[SIM_WORK_KIND_COUNT];
    uint64_t se_workgroups[SIM_MAX_SHADER_ENGINES];
    uint64_t se_waves[SIM_MAX_SHADER_ENGINES];
    uint64_t se_work[SIM_MAX_SHADER_ENGINES][SIM_WORK_KIND_COUNT];
} simExecResult;

/* Runs the launch's kernel right now on the calling thread, to the end. Does not deliver the
 * application's completion. May be called any number of times (each call is one more execution).
 * result may be NULL. */
GOROCPROF_SIM_API simError_t simToolExecute(const simLaunch* launch, simExecResult* result);

/* Delivers the application's completion of the launch, in stream order (the stream's completion
 * count moves past it once every earlier item on the stream is done). A second call, or a call after
 * simToolEnqueue, returns simErrorAlreadyDone. After it the launch must not be used outside the hook
 * that received it. */
GOROCPROF_SIM_API simError_t simToolComplete(const simLaunch* launch);

/* Hands the launch back to the ordinary asynchronous path: the stream's worker runs it in order
 * and delivers completion. With a callback, the worker calls done(launch, result, user) after the
 * execution and before the completion. */
typedef void (*simToolExecDoneFn)(const simLaunch* launch, const simExecResult* result, void* user);
GOROCPROF_SIM_API simError_t simToolEnqueue(const simLaunch* launch);
GOROCPROF_SIM_API simError_t simToolEnqueueWithCallback(const simLaunch* launch, simToolExecDoneFn done, void* user);

/* ---- API and copy tracing --------------------------------------------------------------------- */

/* Every host call of sim.h and sim_marker.h can be reported to one API callback per process, at its
 * ENTER (after the injection is loaded, before the call does anything) and at its EXIT (after it is
 * done, before it returns). Not reported: simGetErrorString and simGetLastErrorMessage (accessors of
 * the thread's error state that tools call from their own hooks; they touch no device) and the
 * simWork* calls (device code: they run inside kernels). The ids below are stable: new calls get new
 * numbers, an id never changes meaning. */
typedef enum simToolApiDomain
{
    SIM_API_DOMAIN_RUNTIME  = 1, /* HIP's runtime API: memory, copies, streams, launches, devices */
    SIM_API_DOMAIN_COMPILER = 2, /* HIP's compiler API (__hipRegisterFunction & co): registration */
    SIM_API_DOMAIN_MARKER   = 3  /* sim_marker.h, as roctx */
} simToolApiDomain;

typedef enum simToolApiId
{
    SIM_API_ID_NONE                       = 0,
    SIM_API_ID_simGetDeviceCount          = 1,
    SIM_API_ID_simSetDevice               = 2,
    SIM_API_ID_simGetDevice               = 3,
    SIM_API_ID_simMemGetInfo              = 4,
    SIM_API_ID_simMalloc                  = 5,
    SIM_API_ID_simFree                    = 6,
    SIM_API_ID_simMemcpy                  = 7,
    SIM_API_ID_simMemset                  = 8,
    SIM_API_ID_simMemcpyAsync             = 9,
    SIM_API_ID_simMemsetAsync             = 10,
    SIM_API_ID_simStreamCreate            = 11,
    SIM_API_ID_simStreamDestroy           = 12,
    SIM_API_ID_simStreamSynchronize       = 13,
    SIM_API_ID_simDeviceSynchronize       = 14,
    SIM_API_ID_simStreamCompletedLaunches = 15,
    SIM_API_ID_simLaunchKernel            = 16,
    SIM_API_ID_simRegisterKernel          = 17, /* compiler domain */
    SIM_API_ID_simModuleGlobal            = 18, /* compiler domain */
    SIM_API_ID_simMarkA                   = 19, /* marker domain, from here on */
    SIM_API_ID_simRangePushA              = 20,
    SIM_API_ID_simRangePop                = 21,
    SIM_API_ID_simRangeStartA             = 22,
    SIM_API_ID_simRangeStop               = 23,
    SIM_API_ID_LAST                       = 23
} simToolApiId;

/* The call's name as the header spells it ("simMemcpy"); NULL for an id that is not one. */
GOROCPROF_SIM_API const char* simToolApiName(simToolApiId id);
/* The domain of the call; 0 for an id that is not one. */
GOROCPROF_SIM_API simToolApiDomain simToolApiDomainOf(simToolApiId id);

typedef enum simToolApiPhase
{
    SIM_API_PHASE_ENTER = 1,
    SIM_API_PHASE_EXIT  = 2
} simToolApiPhase;

/* How a copy moves: by where its source and destination live (simToolFindAllocation: device memory
 * and module globals are their agent's, anything else is host memory). */
typedef enum simToolCopyKind
{
    SIM_COPY_HOST_TO_HOST     = 0,
    SIM_COPY_HOST_TO_DEVICE   = 1,
    SIM_COPY_DEVICE_TO_HOST   = 2,
    SIM_COPY_DEVICE_TO_DEVICE = 3 /* one agent, or two (src_device != dst_device) */
} simToolCopyKind;

/* One call as the callback sees it. Fields a call does not have are 0 / NULL. */
typedef struct simToolApiCall
{
    size_t           size;      /* sizeof(simToolApiCall) of the runtime */
    simToolApiId     id;
    simToolApiDomain domain;
    const char*      name;      /* simToolApiName(id) */
    simToolApiPhase  phase;
    uint64_t         thread_id; /* OS thread id of the caller */
    int64_t          timestamp_ns;   /* simToolClockNs() just before this callback */
    int64_t          enter_ns;       /* EXIT: the ENTER's timestamp_ns */
    uint64_t         enter_value;    /* EXIT: what the ENTER callback returned */
    simError_t       result;         /* EXIT of calls returning simError_t */
    /* Arguments, at ENTER and EXIT alike, unless said otherwise. */
    int              device;         /* simSetDevice's argument; the current device for all other calls */
    const void*      src;            /* simMemcpy(Async) */
    void*            dst;            /* simMemcpy(Async), simMemset(Async), simFree's pointer */
    size_t           bytes;          /* simMemcpy(Async), simMemset(Async), simMalloc, simModuleGlobal */
    simToolCopyKind  copy_kind;      /* simMemcpy(Async) */
    int              src_device;     /* simMemcpy(Async): the source's agent, -1 for host memory */
    int              dst_device;     /* simMemcpy(Async), simMemset(Async): the destination's, or -1 */
    simStream_t      stream;         /* calls taking a stream, as passed (NULL = default stream) */
    const char*      kernel_name;    /* simLaunchKernel, simRegisterKernel: mangled; simModuleGlobal: the global's name */
    const char*      message;        /* simMarkA, simRangePushA, simRangeStartA: the user's text */
    uint64_t         range_id;       /* simRangeStop's argument; EXIT of simRangeStartA: the new id */
    int              depth;          /* EXIT of simRangePushA / simRangePop: what they return */
} simToolApiCall;

/* Called at ENTER and EXIT of every reported call on the calling thread (nested: a call made from
 * inside a launch hook is reported inside the simLaunchKernel that called the hook). What ENTER
 * returns is handed back at the EXIT (enter_value) and kept for the work the call enqueues:
 * simLaunch.api_value of its launches, simToolCopy.api_value of its copies, so that a tool can tie
 * work that finishes on a stream's worker to the call that issued it. EXIT's return value is ignored.
 * The runtime does not tell the tool's own calls from the application's: they run on the tool's
 * thread, where the tool knows (a thread-local flag). */
typedef uint64_t (*simToolApiCallbackFn)(const simToolApiCall* call, void* user);

/* One copy (simMemcpy, simMemcpyAsync), reported once, when it is done: a synchronous copy on the
 * calling thread before the call's EXIT, an asynchronous one on its stream's worker. Memsets are not
 * copies (only their API call is reported). */
typedef struct simToolCopy
{
    size_t          size;        /* sizeof(simToolCopy) of the runtime */
    simToolApiId    id;          /* the call that issued it: simMemcpy or simMemcpyAsync */
    simToolCopyKind kind;
    int             src_device;  /* agent, or -1 for host memory */
    int             dst_device;
    size_t          bytes;
    const void*     src;
    void*           dst;
    simStream_t     stream;      /* simMemcpyAsync's as passed; NULL for simMemcpy */
    uint64_t        stream_id;   /* simLaunch.stream_id's numbering; 0 for simMemcpy (no stream) */
    uint64_t        thread_id;   /* OS thread id of the issuing thread */
    int64_t         start_ns;    /* the copy itself, on simToolClockNs()'s clock */
    int64_t         end_ns;
    uint64_t        api_value;   /* what the API callback's ENTER of the issuing call returned (0: none) */
} simToolCopy;

typedef void (*simToolCopyCallbackFn)(const simToolCopy* copy, void* user);

/* Set, replace (NULL removes) the callbacks. Safe at any time from any thread; a call already past
 * its ENTER when the API callback changes gets its EXIT from the callback it entered with. Without
 * a callback a reported call costs one load and a branch. */
GOROCPROF_SIM_API simError_t simToolSetApiCallback(simToolApiCallbackFn fn, void* user);
GOROCPROF_SIM_API simError_t simToolSetCopyCallback(simToolCopyCallbackFn fn, void* user);

/* ---- Device memory, for snapshot and restore -------------------------------------------------- */

typedef enum simAllocationKind
{
    SIM_ALLOCATION_DEVICE        = 1, /* simMalloc */
    SIM_ALLOCATION_MODULE_GLOBAL = 2  /* simModuleGlobal */
} simAllocationKind;

typedef struct simAllocationInfo
{
    void*             base;
    size_t            size;
    uint64_t          serial; /* unique per process, never reused, even when the address is */
    simAllocationKind kind;
    int               agent;
    const char*       name;   /* module global's name (valid for the whole process); NULL for simMalloc */
} simAllocationInfo;

typedef void (*simToolAllocationFn)(const simAllocationInfo* allocation, void* user);

/* Calls fn for every live allocation of the agent (a copy of the list taken at the call), in
 * ascending serial order. fn may call into the runtime. */
GOROCPROF_SIM_API simError_t simToolForEachAllocation(int agent, simToolAllocationFn fn, void* user);

/* The live allocation containing ptr (anywhere inside it). simErrorInvalidDevicePointer if none. */
GOROCPROF_SIM_API simError_t simToolFindAllocation(const void* ptr, simAllocationInfo* out);

/* The serial of the live allocation starting exactly at base; simErrorInvalidDevicePointer (and
 * *serial = 0) when base is not the start of a live allocation (freed, or never allocated). */
GOROCPROF_SIM_API simError_t simToolAllocationSerial(const void* base, uint64_t* serial);

/* Free and total device memory of the agent (allocations, module globals and device backups count). */
GOROCPROF_SIM_API simError_t simToolMemInfo(int agent, size_t* free_bytes, size_t* total_bytes);

/* Backup storage for snapshots, where a real backend would use device memory or pinned host memory.
 * SIM_BACKUP_DEVICE counts against the agent's device memory and fails with simErrorOutOfMemory when
 * it does not fit; SIM_BACKUP_HOST_PINNED fails when GOROCPROF_SIM_PINNED_LIMIT (bytes, K/M/G
 * suffixes allowed; unlimited by default) would be exceeded by the live pinned backups. Fail points
 * "backup_device" and "backup_host" (below) make either fail on demand. */
typedef enum simBackupPlace
{
    SIM_BACKUP_DEVICE      = 1,
    SIM_BACKUP_HOST_PINNED = 2
} simBackupPlace;
GOROCPROF_SIM_API simError_t simToolBackupAlloc(int agent, size_t size, simBackupPlace place, void** out);
GOROCPROF_SIM_API simError_t simToolBackupFree(void* ptr);

/* ---- Failure injection (tests) ---------------------------------------------------------------- */

/* GOROCPROF_SIM_FAIL is a comma-separated list of `point`, `point@N` or `point@N+`: the point fails
 * on every hit, on its N-th hit only (1-based), or on its N-th and every later hit. Points used:
 * "backup_device", "backup_host" (by simToolBackupAlloc), and "snapshot", "restore" (asked by the
 * backend before copying). simToolFailPoint counts one hit of `point` and returns 1 when that hit
 * must fail, 0 otherwise. simToolSetFailSpec replaces the list (NULL or "" clears it) and resets the
 * hit counts. */
GOROCPROF_SIM_API int        simToolFailPoint(const char* point);
GOROCPROF_SIM_API simError_t simToolSetFailSpec(const char* spec);

/* ---- Counters --------------------------------------------------------------------------------- */

/* Hardware instances of a counter block on the agent: SQ, SPI, GRBM_SE: one per shader engine (all
 * XCCs); TCC: one per L2 channel (all XCCs); every other block: one per XCC. */
GOROCPROF_SIM_API simError_t simToolCounterInstances(int agent, const char* block, size_t* instances);

/* THE counter model: the values of counter `name` (hardware block `block`, event `event`; the block
 * is inferred from the name when empty) for one execution of the launch, one per instance.
 * Deterministic: the same launch and the same reported work give the same values, on every pass and
 * every run. Counters computed from the work are listed in README.md; any other name reads 0 (the
 * model has no activity of that unit). simErrorInvalidValue with
 * *n_values set to the instance count when max_values is too small. */
GOROCPROF_SIM_API simError_t simToolSampleCounter(const simLaunch* launch, const simExecResult* result, const char* name,
                                const char* block, int event, double* values, size_t max_values,
                                size_t* n_values);

/* 1 when the model computes `name` from the work, 0 when it reads 0. */
GOROCPROF_SIM_API int simToolCounterIsComputed(const char* name);

#ifdef __cplusplus
}
#endif

#endif /* GOROCPROF_SIM_TOOL_H */
