// The core tests' framework: TEST(name) registers a case; each ctest test runs one case in its own
// process (core initialises once per process). CHECK/EXPECT_EQ record a failure and go on.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace coretest {

struct Case {
    const char* name;
    void (*fn)();
};

std::vector<Case>& registry();
void failure(const char* file, int line, const std::string& what);
int failures();

struct Register {
    Register(const char* name, void (*fn)()) { registry().push_back({name, fn}); }
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

// Helpers shared by the cases.
std::string temp_dir();                      // a fresh directory under $TMPDIR
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
std::vector<std::string> lines_of(const std::string& text);  // complete lines only

}  // namespace coretest

#define TEST(name)                                                   \
    static void name();                                              \
    static const coretest::Register register_##name(#name, name);    \
    static void name()

#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) coretest::failure(__FILE__, __LINE__, #cond);      \
    } while (0)

#define EXPECT_EQ(a, b)                                                                                 \
    do {                                                                                                \
        const auto& expect_a_ = (a);                                                                    \
        const auto& expect_b_ = (b);                                                                    \
        if (!(expect_a_ == expect_b_))                                                                  \
            coretest::failure(__FILE__, __LINE__, std::string(#a " == " #b "\n    got:  ") +            \
                                                      coretest::show(expect_a_) + "\n    want: " +      \
                                                      coretest::show(expect_b_));                       \
    } while (0)
