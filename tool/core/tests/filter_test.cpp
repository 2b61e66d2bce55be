#include "check.hpp"

#include <filter.hpp>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

using gorocprof::core::KernelFilter;

namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

// Which of `n` consecutive dispatches of kernel `id` the filter selects, as a string of 0/1.
std::string pattern(KernelFilter& f, uint64_t id, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(f.select(id) ? '1' : '0');
    return s;
}

}  // namespace

TEST_CASE(filter_include_exclude) {
    KernelFilter f;
    std::string error;
    CHECK(f.configure("axpy|reduce", "reduce_small", {}, &error));
    f.add_kernel(1, "axpy(float*, float*, float)");
    f.add_kernel(2, "void reduce<int>(int*)");
    f.add_kernel(3, "void reduce_small<int>(int*)");
    f.add_kernel(4, "scale(float*)");
    CHECK_EQ(pattern(f, 1, 3), std::string("111"));
    CHECK_EQ(pattern(f, 2, 3), std::string("111"));
    CHECK_EQ(pattern(f, 3, 3), std::string("000"));
    CHECK_EQ(pattern(f, 4, 3), std::string("000"));
    // Search, not full match.
    KernelFilter g;
    CHECK(g.configure("^ax", "", {}, &error));
    CHECK(g.name_matches("axpy(float*)"));
    CHECK(!g.name_matches("saxpy(float*)"));
    // Empty include means everything, empty exclude nothing.
    KernelFilter all;
    CHECK(all.configure("", "", {}, &error));
    CHECK(all.name_matches("anything"));
}

TEST_CASE(filter_iteration_ranges_per_kernel_name) {
    KernelFilter f;
    std::string error;
    CHECK(f.configure("", "", Ranges{{2, 3}, {5, 5}}, &error));
    f.add_kernel(1, "a");
    f.add_kernel(2, "b");
    // Interleaved dispatches of two kernels count separately.
    std::string a, b;
    for (int i = 0; i < 6; ++i) {
        a.push_back(f.select(1) ? '1' : '0');
        b.push_back(f.select(2) ? '1' : '0');
    }
    CHECK_EQ(a, std::string("011010"));
    CHECK_EQ(b, std::string("011010"));
}

TEST_CASE(filter_each_kernel_id_counts_its_iterations) {
    // The same kernel on two agents has two ids and one name: each id counts its own iterations, as
    // rocprofv3 counts them (per kernel id), so [2] is the second dispatch on each agent.
    KernelFilter f;
    std::string error;
    CHECK(f.configure("", "", Ranges{{2, 2}}, &error));
    f.add_kernel(1, "k(int)");
    f.add_kernel(2, "k(int)");
    CHECK(!f.select(1));
    CHECK(!f.select(2));
    CHECK(f.select(1));
    CHECK(f.select(2));
    CHECK(!f.select(1));
}

TEST_CASE(filter_excluded_dispatch_consumes_no_iteration) {
    // Iterations count dispatches that passed the regexes: excluded kernels never advance anyone's count.
    KernelFilter f;
    std::string error;
    CHECK(f.configure("keep", "", Ranges{{1, 2}}, &error));
    f.add_kernel(1, "keep_me");
    f.add_kernel(2, "drop_me");
    CHECK(!f.select(2));
    CHECK(!f.select(2));
    CHECK(f.select(1));
    CHECK(!f.select(2));
    CHECK(f.select(1));
    CHECK(!f.select(1));
}

TEST_CASE(filter_each_select_is_one_iteration) {
    // select() is the once-per-logical-dispatch decision: every call is exactly one iteration, so a
    // backend calling it per pass would be visible here as shifted ranges.
    KernelFilter f;
    std::string error;
    CHECK(f.configure("", "", Ranges{{3, 4}}, &error));
    f.add_kernel(7, "k");
    CHECK_EQ(pattern(f, 7, 6), std::string("001100"));
}

TEST_CASE(filter_unknown_kernel_and_bad_config) {
    KernelFilter f;
    std::string error;
    CHECK(f.configure("", "", {}, &error));
    CHECK(!f.select(0));
    CHECK(!f.select(99));  // never added
    CHECK(!f.configure("(unclosed", "", {}, &error));
    CHECK(error.find("filters.include_regex \"(unclosed\": ") == 0);
    CHECK(!f.configure("", "[z-a]", {}, &error));
    CHECK(error.find("filters.exclude_regex \"[z-a]\": ") == 0);
    CHECK(!f.configure("", "", Ranges{{0, 3}}, &error));
    CHECK_EQ(error, std::string("filters.iteration_ranges: [0, 3] is not a range of iterations counted from 1"));
    CHECK(!f.configure("", "", Ranges{{5, 4}}, &error));
}

TEST_CASE(filter_many_kernels) {
    // Kernel ids across several table chunks, each counting its own iterations (ten names, which
    // share their verdicts, not their counts).
    KernelFilter f;
    std::string error;
    CHECK(f.configure("", "", Ranges{{1, 3}}, &error));
    for (uint64_t id = 1; id <= 3000; ++id) f.add_kernel(id, "k" + std::to_string(id % 10));
    int selected = 0;
    for (int round = 1; round <= 4; ++round) {
        for (uint64_t id = 1; id <= 3000; ++id) selected += f.select(id) ? 1 : 0;
        // Rounds 1 to 3 are each id's iterations 1 to 3; round 4 is past the range.
        CHECK_EQ(selected, 3000 * std::min(round, 3));
    }
}

TEST_CASE(filter_threads_count_every_dispatch_once) {
    KernelFilter f;
    std::string error;
    CHECK(f.configure("", "", Ranges{{1, 500}}, &error));
    f.add_kernel(1, "k");
    std::atomic<int> selected{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 250; ++i) selected += f.select(1) ? 1 : 0;
        });
    for (auto& t : threads) t.join();
    CHECK_EQ(selected.load(), 500);
    CHECK(!f.select(1));
}

TEST_CASE(filter_dialect_is_go_regexp) {
    // The front end validates with Go's regexp (RE2 syntax); the tool must accept and mean the same.
    struct Case {
        const char* include;
        const char* name;
        bool matches;
    };
    const Case cases[] = {
        {"(?i)SAXPY", "saxpy(float*)", true},
        {"(?i)SAXPY", "scale(float*)", false},
        {R"(\Qk<1>(\E)", "k<1>(int)", true},
        {R"(\Q.+\E)", "ab", false},
        {R"(\Q.+\E)", "x.+y", true},
        {R"(^\pL+\d$)", "kernel7", true},
        {R"([[:upper:]])", "lower", false},
        {R"((?s)a.b)", "a\nb", true},
        {R"(a.b)", "a\nb", false},
    };
    for (const Case& c : cases) {
        KernelFilter f;
        std::string error;
        CHECK(f.configure(c.include, "", {}, &error));
        CHECK_EQ(error, std::string());
        if (f.name_matches(c.name) != c.matches)
            check::fail(__FILE__, __LINE__, std::string(c.include) + " on \"" + c.name + "\": wrong verdict");
    }
    // Perl constructs Go's regexp refuses are refused here too, not matched some other way.
    KernelFilter f;
    std::string error;
    CHECK(!f.configure(R"((?=a)b)", "", {}, &error));
    CHECK(!f.configure(R"((a)\1)", "", {}, &error));
}

namespace {

// Runs fn on a thread with a small stack, as an app's worker thread may have: a matcher that recursed
// per character would overflow it.
void on_small_stack(std::function<void()> fn) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 128 * 1024);
    pthread_t t;
    auto* heap_fn = new std::function<void()>(std::move(fn));
    int rc = pthread_create(&t, &attr, [](void* p) -> void* {
        auto* f = static_cast<std::function<void()>*>(p);
        (*f)();
        delete f;
        return nullptr;
    }, heap_fn);
    pthread_attr_destroy(&attr);
    CHECK_EQ(rc, 0);
    if (rc == 0) pthread_join(t, nullptr);
}

}  // namespace

TEST_CASE(filter_pathological_patterns_are_linear) {
    on_small_stack([] {
        std::string error;
        // Backtracking engines take exponential time on this; the case's timeout would catch a hang.
        KernelFilter nested;
        CHECK(nested.configure("(.*.*)*z", "", {}, &error));
        auto start = std::chrono::steady_clock::now();
        CHECK(!nested.name_matches(std::string(5000, 'a')));
        CHECK(nested.name_matches(std::string(5000, 'a') + "z"));
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        // A recursing engine overflows the stack on a long name.
        KernelFilter tail;
        CHECK(tail.configure("[xy]+$", "", {}, &error));
        CHECK(tail.name_matches(std::string(40000, 'x')));
        CHECK(tail.name_matches("a" + std::string(40000, 'y')));
        CHECK(!tail.name_matches(std::string(40000, 'x') + "a"));
        KernelFilter exclude;
        CHECK(exclude.configure("", "(x|xx)+$", {}, &error));
        CHECK(!exclude.name_matches(std::string(1 << 20, 'x')));
    });
}

TEST_CASE(filter_matches_each_name_once) {
    KernelFilter f;
    std::string error;
    CHECK(f.configure("keep", "", {}, &error));
    for (uint64_t id = 1; id <= 100; ++id) f.add_kernel(id, id % 2 ? "keep(int)" : "drop(int)");
    CHECK_EQ(f.names_evaluated(), size_t{2});
    CHECK(f.select(1));
    CHECK(!f.select(2));
}
