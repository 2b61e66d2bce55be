// A few lines of test support: CHECK prints the failing expression and its place, and the test's
// exit status counts failures, so ctest sees a non-zero status for any of them.
#pragma once

#include <gorocprof/sim.h>

#include <cstdio>

inline int g_failures = 0;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
            ++g_failures;                                                                    \
        }                                                                                    \
    } while (0)

// A call that must succeed; on failure prints the runtime's message.
#define CHECK_OK(call)                                                                       \
    do {                                                                                     \
        simError_t check_ok_e = (call);                                                      \
        if (check_ok_e != simSuccess) {                                                      \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,   \
                         simGetErrorString(check_ok_e), simGetLastErrorMessage());           \
            ++g_failures;                                                                    \
        }                                                                                    \
    } while (0)

inline int test_result(const char* name) {
    if (g_failures) std::fprintf(stderr, "%s: %d check(s) failed\n", name, g_failures);
    else std::printf("%s: ok\n", name);
    return g_failures ? 1 : 0;
}
