// Runs the cases named on the command line (all when none). `--registered NAME...` fails unless the
// names are exactly this executable's cases, so a case missing from CMake's list cannot go unrun.
#include "check.hpp"

#include <replay_service.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cstdio>
#include <cstring>
#include <set>

namespace check {

// Cases may CHECK from several threads.
static std::atomic<int> g_failures{0};
static std::mutex g_print_mu;

std::vector<Case>& cases() {
    static std::vector<Case> c;
    return c;
}

void fail(const char* file, int line, const std::string& what) {
    ++g_failures;
    std::lock_guard<std::mutex> lock(g_print_mu);
    std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what.c_str());
}

}  // namespace check

static int check_registered(int argc, char** argv) {
    std::set<std::string> want(argv + 2, argv + argc), have;
    for (const auto& c : check::cases()) have.insert(c.name);
    for (const auto& n : have)
        if (!want.count(n)) std::fprintf(stderr, "case %s is not registered with ctest\n", n.c_str());
    for (const auto& n : want)
        if (!have.count(n)) std::fprintf(stderr, "ctest names %s, which is no case here\n", n.c_str());
    return want == have ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--registered") == 0) return check_registered(argc, argv);
    std::vector<const check::Case*> run;
    for (int i = 1; i < argc; ++i) {
        auto it = std::find_if(check::cases().begin(), check::cases().end(),
                               [&](const check::Case& c) { return std::strcmp(c.name, argv[i]) == 0; });
        if (it == check::cases().end()) {
            std::fprintf(stderr, "no test case named %s\n", argv[i]);
            return 2;
        }
        run.push_back(&*it);
    }
    if (run.empty())
        for (const auto& c : check::cases()) run.push_back(&c);
    for (const auto* c : run) {
        gorocprof::replay::ReplayService::instance().reset_for_testing();
        int before = check::g_failures;
        c->fn();
        std::fprintf(stderr, "%s %s\n", check::g_failures == before ? "PASS" : "FAIL", c->name);
    }
    gorocprof::replay::ReplayService::instance().reset_for_testing();
    return check::g_failures == 0 ? 0 : 1;
}
