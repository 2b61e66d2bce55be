#include "check.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

namespace check {
namespace {

// Cases may CHECK from several threads.
std::atomic<int> g_failures{0};
std::mutex g_print_mu;

int check_registered(int argc, char** argv) {
    std::set<std::string> want(argv + 2, argv + argc), have;
    for (const auto& c : cases()) have.insert(c.name);
    for (const auto& n : have)
        if (!want.count(n)) std::fprintf(stderr, "case %s has no ctest test\n", n.c_str());
    for (const auto& n : want)
        if (!have.count(n)) std::fprintf(stderr, "ctest lists %s, which is no case here\n", n.c_str());
    return want == have ? 0 : 1;
}

}  // namespace

std::vector<Case>& cases() {
    static std::vector<Case> c;
    return c;
}

void fail(const char* file, int line, const std::string& what) {
    ++g_failures;
    std::lock_guard<std::mutex> lock(g_print_mu);
    std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what.c_str());
}

int failures() { return g_failures; }

int run(int argc, char** argv, const Options& options) {
    if (argc >= 2 && std::strcmp(argv[1], "--registered") == 0) return check_registered(argc, argv);
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const auto& c : cases()) std::printf("%s\n", c.name);
        return 0;
    }
    if (options.one_case_per_process && argc != 2) {
        std::fprintf(stderr, "usage: %s CASE | --list (one case per process)\n", argv[0]);
        return 2;
    }
    std::vector<const Case*> selected;
    for (int i = 1; i < argc; ++i) {
        auto it = std::find_if(cases().begin(), cases().end(),
                               [&](const Case& c) { return std::strcmp(c.name, argv[i]) == 0; });
        if (it == cases().end()) {
            std::fprintf(stderr, "no case named %s\n", argv[i]);
            return 2;
        }
        selected.push_back(&*it);
    }
    if (selected.empty())
        for (const auto& c : cases()) selected.push_back(&c);
    for (const Case* c : selected) {
        if (options.reset != nullptr) options.reset();
        int before = g_failures;
        c->fn();
        std::fprintf(stderr, "%s %s\n", g_failures == before ? "PASS" : "FAIL", c->name);
    }
    if (options.reset != nullptr) options.reset();
    return g_failures == 0 ? 0 : 1;
}

}  // namespace check
