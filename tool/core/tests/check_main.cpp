// `<test> CASE` runs one case in this process; `<test> --list` prints the cases.
#include "check.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace coretest {
namespace {
int g_failures = 0;
}

std::vector<Case>& registry() {
    static std::vector<Case> r;
    return r;
}

void failure(const char* file, int line, const std::string& what) {
    ++g_failures;
    std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what.c_str());
}

int failures() { return g_failures; }

std::string temp_dir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && base[0] != '\0' ? base : "/tmp") + "/gorocprof-core-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
        std::perror("mkdtemp");
        std::exit(2);
    }
    return buf.data();
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') {
            lines.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    return lines;
}

}  // namespace coretest

// `--registered NAME...` fails unless NAME... are exactly the cases, so that a case CMake does not
// list cannot go unrun.
static int check_registered(int argc, char** argv) {
    std::set<std::string> want(argv + 2, argv + argc), have;
    for (const auto& c : coretest::registry()) have.insert(c.name);
    for (const auto& n : have)
        if (!want.count(n)) std::fprintf(stderr, "case %s has no ctest test\n", n.c_str());
    for (const auto& n : want)
        if (!have.count(n)) std::fprintf(stderr, "ctest lists %s, which is no case here\n", n.c_str());
    return want == have ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "--registered") == 0) return check_registered(argc, argv);
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const auto& c : coretest::registry()) std::printf("%s\n", c.name);
        return 0;
    }
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s CASE | --list\n", argv[0]);
        return 2;
    }
    for (const auto& c : coretest::registry()) {
        if (std::strcmp(c.name, argv[1]) == 0) {
            c.fn();
            std::fprintf(stderr, "%s %s\n", coretest::failures() == 0 ? "PASS" : "FAIL", c.name);
            return coretest::failures() == 0 ? 0 : 1;
        }
    }
    std::fprintf(stderr, "no case named %s\n", argv[1]);
    return 2;
}
