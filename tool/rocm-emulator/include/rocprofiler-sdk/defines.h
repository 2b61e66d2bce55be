/*
 * gorocprof's emulation of the rocprofiler-sdk C API (the subset tool/rocm uses): macros.
 * Written from the API facts in shared/reference (names, signatures, layouts, values), not from the
 * SDK's own text. C11-compatible.
 */
#ifndef ROCPROFILER_SDK_DEFINES_H
#define ROCPROFILER_SDK_DEFINES_H

/* 10000 * major + 100 * minor + patch, the encoding of rocprofiler_configure's `version`. The version
 * itself is in version.h, as in the SDK. ROCPROFILER_SDK_BETA_COMPAT is left to the tool: the 1.4
 * headers no longer default it. */
#define ROCPROFILER_SDK_COMPUTE_VERSION(MAJOR, MINOR, PATCH) ((10000 * (MAJOR)) + (100 * (MINOR)) + (PATCH))

#if defined(__GNUC__)
#define ROCPROFILER_API        __attribute__((visibility("default")))
#define ROCPROFILER_PUBLIC_API __attribute__((visibility("default")))
#else
#define ROCPROFILER_API
#define ROCPROFILER_PUBLIC_API
#endif

#ifdef __cplusplus
#define ROCPROFILER_EXTERN_C_INIT extern "C" {
#define ROCPROFILER_EXTERN_C_FINI }
#else
#define ROCPROFILER_EXTERN_C_INIT
#define ROCPROFILER_EXTERN_C_FINI
#endif

#endif /* ROCPROFILER_SDK_DEFINES_H */
