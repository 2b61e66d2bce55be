// A minimal test framework: TEST_CASE registers a case, CHECK/CHECK_EQ record failures and go on.
// Every executable runs one named case per ctest test (see ../CMakeLists.txt).
#pragma once

#include <cstdint>
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
    std::ostringstream os;
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << show(v[i]);
    os << "]";
    return os.str();
}

}  // namespace check

#define TEST_CASE(name)                                          \
    static void name();                                          \
    static const check::Registrar registrar_##name(#name, name); \
    static void name()

#define CHECK(cond)                                           \
    do {                                                      \
        if (!(cond)) check::fail(__FILE__, __LINE__, #cond);  \
    } while (0)

#define CHECK_EQ(a, b)  /* copies: an operand may name part of a temporary */              \
    do {                                                                                            \
        const auto check_a_ = (a);                                                                  \
        const auto check_b_ = (b);                                                                  \
        if (!(check_a_ == check_b_))                                                                \
            check::fail(__FILE__, __LINE__,                                                         \
                        std::string(#a " == " #b ": ") + check::show(check_a_) + " vs " + check::show(check_b_)); \
    } while (0)
