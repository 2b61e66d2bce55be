/*
 * gorocprof simulated GPU runtime: the application-facing API (a tiny HIP-like runtime).
 *
 * Device memory is host memory, kernels are host functions called once per work-group, and each
 * device ("agent") is modelled on a real AMD architecture (see sim_tool.h and tool/sim/README.md).
 * Streams run asynchronously, one worker thread per stream, in FIFO order.
 *
 * C11-compatible. Every call returns simSuccess or an error code; simGetLastErrorMessage() gives the
 * failing call and the reason for the last error on the calling thread.
 */
#ifndef GOROCPROF_SIM_H
#define GOROCPROF_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GOROCPROF_SIM_API __attribute__((visibility("default")))
#else
#define GOROCPROF_SIM_API
#endif

typedef enum simError_t
{
    simSuccess                   = 0,
    simErrorInvalidValue         = 1,  /* a NULL pointer, zero size, bad dimensions... */
    simErrorOutOfMemory          = 2,  /* the device (or backup budget) has no room */
    simErrorInvalidDevice        = 3,  /* no such device ordinal */
    simErrorNoDevice             = 4,  /* GOROCPROF_SIM_AGENTS could not be parsed: no agents */
    simErrorInvalidHandle        = 5,  /* unknown stream, kernel or launch */
    simErrorInvalidDevicePointer = 6,  /* simFree of a pointer simMalloc did not return */
    simErrorInvalidConfiguration = 7,  /* launch exceeds the agent's limits (work-group size, LDS) */
    simErrorAlreadyDone          = 8,  /* a launch completed or enqueued twice */
    simErrorInjectedFailure      = 9,  /* a failure requested by GOROCPROF_SIM_FAIL (tests) */
    simErrorUnknown              = 10
} simError_t;

/* A short fixed description of the code ("invalid value", ...). */
GOROCPROF_SIM_API const char* simGetErrorString(simError_t error);

/* "<call>: <reason>" of the last call on this thread that failed; "" when none failed yet. */
GOROCPROF_SIM_API const char* simGetLastErrorMessage(void);

typedef struct simDim3
{
    uint32_t x, y, z;
} simDim3;

/* Devices. The current device is per thread, 0 by default. */
GOROCPROF_SIM_API simError_t simGetDeviceCount(int* count);
GOROCPROF_SIM_API simError_t simSetDevice(int device);
GOROCPROF_SIM_API simError_t simGetDevice(int* device);
/* Free and total memory of the current device. */
GOROCPROF_SIM_API simError_t simMemGetInfo(size_t* free_bytes, size_t* total_bytes);

/* Device memory on the current device. Freed blocks are cached and handed out again for an
 * allocation of exactly the same size (as a caching allocator does), so an address can be reused;
 * every allocation still gets a new serial number (sim_tool.h). */
GOROCPROF_SIM_API simError_t simMalloc(void** ptr, size_t size);
GOROCPROF_SIM_API simError_t simFree(void* ptr);

typedef struct simStream_* simStream_t; /* NULL means the current device's default stream */

/* Synchronous copies/sets first wait for all work on every stream of every device, then act. */
GOROCPROF_SIM_API simError_t simMemcpy(void* dst, const void* src, size_t size);
GOROCPROF_SIM_API simError_t simMemset(void* dst, int value, size_t size);
/* Asynchronous: ordered with kernels on the stream. */
GOROCPROF_SIM_API simError_t simMemcpyAsync(void* dst, const void* src, size_t size, simStream_t stream);
GOROCPROF_SIM_API simError_t simMemsetAsync(void* dst, int value, size_t size, simStream_t stream);

GOROCPROF_SIM_API simError_t simStreamCreate(simStream_t* stream); /* on the current device */
GOROCPROF_SIM_API simError_t simStreamDestroy(simStream_t stream); /* waits for the stream's work first */
GOROCPROF_SIM_API simError_t simStreamSynchronize(simStream_t stream);
GOROCPROF_SIM_API simError_t simDeviceSynchronize(void); /* every stream of the current device */
/* Kernel launches on the stream whose completion the application has observed so far: exactly one
 * per launch, whatever a tool does with the launch. */
GOROCPROF_SIM_API simError_t simStreamCompletedLaunches(simStream_t stream, uint64_t* completed);

/* A writable module-scope variable (a __device__ global) of the current device. The first call for a
 * name allocates `size` bytes initialised from `init` (zeros when NULL); later calls for the same
 * name on the same device return the same address (a different size is an error). */
GOROCPROF_SIM_API simError_t simModuleGlobal(const char* name, size_t size, const void* init, void** devptr);

/* ---- Kernels ---------------------------------------------------------------------------------- */

/* What the code object would say about the kernel. */
typedef struct simKernelAttrs
{
    uint32_t sgpr;
    uint32_t vgpr;
    uint32_t accum_vgpr;
    uint32_t lds_bytes;     /* static group segment per work-group */
    uint32_t scratch_bytes; /* private segment per work-item */
    uint32_t kernarg_size;  /* 0: the args_size of each launch */
} simKernelAttrs;

/* The kernel's view of one work-group. `lds` is zero-filled at the start of every work-group and
 * holds attrs.lds_bytes + the launch's dynamic LDS bytes. */
typedef struct simKernelCtx
{
    simDim3  blockIdx;
    simDim3  gridDim;  /* in work-groups */
    simDim3  blockDim; /* work-items per work-group */
    uint32_t waveSize;
    uint32_t wavesPerGroup;
    int      device;
    void*    lds;
    size_t   ldsBytes;
    void*    internal_; /* the runtime's work accounting; do not touch */
} simKernelCtx;

/* Called once per work-group, in linear order of blockIdx (x fastest). */
typedef void (*simKernelFn)(const simKernelCtx* ctx, const void* args);

/* Work a kernel reports so the counter model can count it. Instruction kinds are counted PER
 * WAVEFRONT of the calling work-group (the runtime multiplies by ctx->wavesPerGroup); byte kinds are
 * TOTALS for the work-group. */
typedef enum simWorkKind
{
    SIM_WORK_VALU = 0,    /* vector ALU instructions per wave */
    SIM_WORK_SALU,        /* scalar ALU instructions per wave */
    SIM_WORK_LDS,         /* LDS instructions per wave */
    SIM_WORK_SMEM,        /* scalar memory instructions per wave */
    SIM_WORK_BRANCH,      /* branch instructions per wave */
    SIM_WORK_MFMA,        /* matrix instructions per wave */
    SIM_WORK_VMEM_RD,     /* vector memory read instructions per wave */
    SIM_WORK_VMEM_WR,     /* vector memory write instructions per wave */
    SIM_WORK_LOAD_BYTES,  /* global memory bytes read by the work-group */
    SIM_WORK_STORE_BYTES, /* global memory bytes written by the work-group */
    SIM_WORK_LDS_BYTES,   /* LDS bytes accessed by the work-group */
    SIM_WORK_KIND_COUNT
} simWorkKind;

GOROCPROF_SIM_API void simWork(const simKernelCtx* ctx, simWorkKind kind, uint64_t amount);
GOROCPROF_SIM_API void simWorkValu(const simKernelCtx* ctx, uint64_t insts_per_wave);
GOROCPROF_SIM_API void simWorkSalu(const simKernelCtx* ctx, uint64_t insts_per_wave);
GOROCPROF_SIM_API void simWorkLds(const simKernelCtx* ctx, uint64_t insts_per_wave, uint64_t bytes);
GOROCPROF_SIM_API void simWorkGlobalLoad(const simKernelCtx* ctx, uint64_t insts_per_wave, uint64_t bytes);
GOROCPROF_SIM_API void simWorkGlobalStore(const simKernelCtx* ctx, uint64_t insts_per_wave, uint64_t bytes);

typedef struct simKernel_* simKernel_t;

/* Registers a kernel under its mangled name (the name a profiler shows, demangled). Registering the
 * same name and function again returns the same handle. */
GOROCPROF_SIM_API simError_t simRegisterKernel(const char* mangled_name, simKernelFn fn, const simKernelAttrs* attrs,
                             simKernel_t* handle);

/* Launches on `stream` (its device) a grid of `grid` work-groups of `block` work-items each, with
 * `dynamic_lds` bytes of LDS on top of the static amount. `args` (args_size bytes) is copied now. */
GOROCPROF_SIM_API simError_t simLaunchKernel(simKernel_t kernel, simDim3 grid, simDim3 block, uint32_t dynamic_lds,
                           simStream_t stream, const void* args, size_t args_size);

#ifdef __cplusplus
}
#endif

#endif /* GOROCPROF_SIM_H */
