// The one test framework of the C++ tests: TEST_CASE registers a case; CHECK and CHECK_EQ record a
// failure and go on, from any thread. check::run is the body of each suite's main: it runs the cases
// named on the command line and keeps CMake's list of ctest tests equal to the registered cases.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace check {

struct Case {
    const char* name;
    void (*fn)();
};

std::vector<Case>& cases();
void fail(const char* file, int line, const std::string& what);
int failures();

struct Registrar {
    Registrar(const char* name, void (*fn)()) { cases().push_back({name, fn}); }
};

template <typename T>
std::string show(const T& v) {
    std::ostringstream os;
    os << v;
    return os.str();
}
template <typename T>
std::string show(const std::vector<T>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + show(v[i]);
    return s + "]";
}

struct Options {
    // Called before every case and once after the last, so that no case sees what another left
    // behind and nothing a case left outlives main. May be null.
    void (*reset)() = nullptr;
    // For suites whose code under test initialises once per process: exactly one case per run.
    bool one_case_per_process = false;
};

// `EXE CASE...` runs the named cases (all when none and the suite allows it); `EXE --list` prints the
// cases; `EXE --registered NAME...` fails unless NAME... are exactly the cases, so that a case CMake
// does not list cannot go unrun. Returns main's exit status.
int run(int argc, char** argv, const Options& options);

}  // namespace check

#define TEST_CASE(name)                                          \
    static void name();                                          \
    static const check::Registrar registrar_##name(#name, name); \
    static void name()

#define CHECK(cond)                                          \
    do {                                                     \
        if (!(cond)) check::fail(__FILE__, __LINE__, #cond); \
    } while (0)

// Copies the operands: one may name part of a temporary that a reference would outlive.
#define CHECK_EQ(a, b)                                                                              \
    do {                                                                                            \
        const auto check_a_ = (a);                                                                  \
        const auto check_b_ = (b);                                                                  \
        if (!(check_a_ == check_b_))                                                                \
            check::fail(__FILE__, __LINE__, std::string(#a " == " #b "\n    got:  ") +              \
                                                check::show(check_a_) + "\n    want: " + check::show(check_b_)); \
    } while (0)
