/*
 * gorocprof's emulation of the rocprofiler-sdk C API (the subset tool/rocm uses): macros.
 * Written from the API facts in shared/reference (names, signatures, layouts, values), not from the
 * SDK's own text. C11-compatible.
 */
#ifndef ROCPROFILER_SDK_DEFINES_H
#define ROCPROFILER_SDK_DEFINES_H

/* The version this emulator reports (rocprofiler_get_version) when kernel replay is enabled. */
#define ROCPROFILER_VERSION_MAJOR 1
#define ROCPROFILER_VERSION_MINOR 4
#define ROCPROFILER_VERSION_PATCH 1
#define ROCPROFILER_VERSION (10000 * ROCPROFILER_VERSION_MAJOR + 100 * ROCPROFILER_VERSION_MINOR + ROCPROFILER_VERSION_PATCH)

/* Marks the headers as the emulator's, so that code can tell them from the SDK's. */
#define ROCPROFILER_SDK_GOROCPROF_EMULATOR 1

#ifndef ROCPROFILER_SDK_BETA_COMPAT
#define ROCPROFILER_SDK_BETA_COMPAT 1
#endif

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
