// The runtime tests' additions to the shared kit (check.hpp): a runtime call that must succeed, and
// the exit status of a test whose main runs its checks in sequence.
#pragma once

#include <check.hpp>
#include <gorocprof/sim.h>

#include <cstdio>
#include <string>

// On failure names the call, the status and the runtime's message.
#define CHECK_OK(call)                                                                                  \
    do {                                                                                                \
        simError_t check_ok_e = (call);                                                                 \
        if (check_ok_e != simSuccess)                                                                   \
            check::fail(__FILE__, __LINE__, std::string(#call) + " failed: " +                         \
                                                simGetErrorString(check_ok_e) + " (" +                  \
                                                simGetLastErrorMessage() + ")");                        \
    } while (0)

// ctest sees a non-zero status for any failed check.
inline int test_result(const char* name) {
    if (check::failures()) std::fprintf(stderr, "%s: %d check(s) failed\n", name, check::failures());
    else std::printf("%s: ok\n", name);
    return check::failures() ? 1 : 0;
}
