// The counter availability image kept between processes (availability_cache.*, RangeCounters): read from the
// driver once and then from the file, read again when a cached image no longer serves, never trusted when the
// file is not whole, and a file that cannot be written costs a warning, not the counters.
#include "../testkit/check.hpp"

#include "availability_cache.hpp"
#include "counter_plans.hpp"
#include "fake_cupti.hpp"
#include "range_counters.hpp"

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

using gorocprof::cuda::availability_cache_path;
using gorocprof::cuda::load_availability;
using gorocprof::cuda::RangeCounters;
using gorocprof::cuda::save_availability;

namespace {

std::string temp_dir() {
    char tmpl[] = "/tmp/gorocprof-availability-XXXXXX";
    const char* d = mkdtemp(tmpl);
    return d ? d : "";
}

// One pass of `group` on kernel `kernel`: arm, the kernel, stop, collect into *got; true when all of it
// worked and every hardware pass ran.
bool one_pass(RangeCounters& rc, const gorocprof::cuda::Group& group, size_t kernel,
              std::vector<gorocprof::core::CounterSample>* got) {
    std::string note;
    if (!rc.arm(&group, &note, 1).ok) return false;
    fakecupti::kernel(kernel);
    bool all = false;
    return rc.stop(&all).ok && all && rc.collect(got).ok;
}

// A reset fake whose host objects take only the device's current image (`device`), and a kept file holding
// another (`kept`): the file's path.
std::string stale_kept_image(uint8_t kept, uint8_t device) {
    fakecupti::reset();
    fakecupti::state().value = counter_plans::value;
    fakecupti::state().availability = device;
    fakecupti::state().host_wants_current_availability = true;
    const std::string path = temp_dir() + "/a.bin";
    CHECK(save_availability(path, {kept}).ok);
    return path;
}

// One dispatch of group 0 in a process of its own (a RangeCounters of its own) that keeps the availability
// at `path`; true when the pass read its group's values.
// `eager`: enabled at once, as at context creation; else by the first arm, as at a context's first launch.
bool one_process(const std::string& path, bool* cached = nullptr, std::string* problem = nullptr, bool eager = true) {
    const std::vector<gorocprof::core::PlanPass> passes = counter_plans::plan({{"a", "b"}});
    RangeCounters rc(reinterpret_cast<CUcontext>(0x10), "GH100");
    rc.use_availability_cache(path);
    rc.plan_passes(passes);
    if (eager && !rc.enable_now().ok) return false;
    std::vector<gorocprof::core::CounterSample> got;
    if (!one_pass(rc, passes[0].counters, 7, &got) || got.size() != 2) return false;
    if (cached) *cached = rc.availability_cached();
    if (problem) {
        *problem = rc.take_availability_cache_problem();
        if (!rc.take_availability_cache_problem().empty()) *problem = "told twice: " + *problem;
    }
    return got[0].values[0] == counter_plans::value("a", 7) && got[1].values[0] == counter_plans::value("b", 7);
}

// A reset fake profiler and a plain file in a new directory: a cache path under it cannot be created.
std::string fresh_run_with_a_blocking_file() {
    fakecupti::reset();
    fakecupti::state().value = counter_plans::value;
    const std::string blocker = temp_dir() + "/file";
    std::FILE* f = std::fopen(blocker.c_str(), "w");
    if (f) std::fclose(f);
    return blocker;
}

}  // namespace

TEST_CASE(availability_is_read_once_and_then_kept_between_processes) {
    fakecupti::reset();
    fakecupti::state().value = counter_plans::value;
    const std::string dir = temp_dir();
    const std::string path = availability_cache_path(dir + "/cache", "GPU-1234:ab/cd", 13000, 130000);
    CHECK_EQ(path, dir + "/cache/cuda-availability-GPU-1234_ab_cd-driver13000-cupti130000.bin");
    bool cached = true;
    std::string problem = "unset";
    CHECK(one_process(path, &cached, &problem));
    CHECK(!cached);
    CHECK(problem.empty());
    CHECK_EQ(fakecupti::state().availability_reads, size_t(1));
    std::vector<uint8_t> kept;
    CHECK(load_availability(path, &kept));
    CHECK(kept == std::vector<uint8_t>{1});
    // The next processes read the file, not the driver.
    for (int run = 0; run < 3; ++run) {
        CHECK(one_process(path, &cached));
        CHECK(cached);
    }
    CHECK_EQ(fakecupti::state().availability_reads, size_t(1));
    // No directory given: the driver every time.
    CHECK_EQ(availability_cache_path("", "GPU-1", 1, 1), std::string());
    CHECK(one_process("", &cached));
    CHECK(!cached);
    CHECK_EQ(fakecupti::state().availability_reads, size_t(2));
}

TEST_CASE(a_cached_availability_that_no_longer_serves_is_read_again) {
    // The device changed since the file was kept: host objects refuse the old image. The configuration is
    // built under the driver's image instead, which replaces the file.
    const std::string path = stale_kept_image(7, 1);
    bool cached = true;
    CHECK(one_process(path, &cached));
    CHECK(!cached);
    CHECK_EQ(fakecupti::state().availability_reads, size_t(1));
    std::vector<uint8_t> kept;
    CHECK(load_availability(path, &kept));
    CHECK(kept == std::vector<uint8_t>{1});
    CHECK(one_process(path, &cached));
    CHECK(cached);
    CHECK_EQ(fakecupti::state().availability_reads, size_t(1));
}

TEST_CASE(a_refreshed_availability_leaves_the_earlier_groups_image_in_place) {
    // CUPTI's host objects keep a pointer to the image they were built on. Group a is built under the kept
    // image; the device changes; group b is refused it and reads the driver's; group a must still find its
    // own image when its values are evaluated. The two groups do not fit one hardware pass together, and
    // without union sessions each pass has a configuration (and a host object) of its own.
    const std::string path = stale_kept_image(7, 7);  // not stale yet: the device changes below
    fakecupti::state().capacity = 1;
    const auto plan = counter_plans::plan({{"a"}, {"b"}});
    RangeCounters rc(reinterpret_cast<CUcontext>(0x10), "GH100");
    rc.use_availability_cache(path);
    rc.allow_union_sessions(false);
    rc.allow_union_runs(false);
    rc.plan_passes(plan);
    const auto pass = [&](size_t p, size_t kernel) {
        std::vector<gorocprof::core::CounterSample> got;
        return one_pass(rc, plan[p].counters, kernel, &got) && got.size() == 1 &&
               got[0].values[0] == counter_plans::value(plan[p].counters[0].name, kernel);
    };
    CHECK(rc.enable_now().ok);
    CHECK(pass(0, 1));
    CHECK(rc.availability_cached());
    fakecupti::state().availability = 1;
    CHECK(pass(1, 2));
    CHECK(!rc.availability_cached());
    CHECK(pass(0, 3));
    CHECK(pass(1, 4));
}

TEST_CASE(availability_files_that_are_not_whole_are_never_read) {
    const std::string dir = temp_dir();
    const std::string path = dir + "/a.bin";
    CHECK(save_availability(path, {1, 2, 3, 4}).ok);
    std::vector<uint8_t> image{9};
    CHECK(load_availability(path, &image));
    CHECK(image == (std::vector<uint8_t>{1, 2, 3, 4}));
    // Cut short, one byte too many, another format, absent: the image stays as it was.
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::vector<char> whole(4096);
    whole.resize(std::fread(whole.data(), 1, whole.size(), f));
    std::fclose(f);
    const auto write = [&](const std::vector<char>& bytes) {
        std::FILE* out = std::fopen(path.c_str(), "wb");
        if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), out);  // an empty vector's data() may be null
        std::fclose(out);
    };
    std::vector<char> cut(whole.begin(), whole.end() - 1), longer = whole, other = whole;
    longer.push_back(0);
    other[0] = 'x';
    for (const auto& bytes : {cut, longer, other, std::vector<char>{}}) {
        write(bytes);
        image = {9};
        CHECK(!load_availability(path, &image));
        CHECK(image == std::vector<uint8_t>{9});
    }
    CHECK(!load_availability(dir + "/absent.bin", &image));
    CHECK(!load_availability("", &image));
}

TEST_CASE(an_availability_file_that_cannot_be_written_costs_a_warning) {
    const std::string blocker = fresh_run_with_a_blocking_file();
    std::string problem;
    bool cached = true;
    // Its directory would be under a plain file.
    CHECK(one_process(blocker + "/cache/a.bin", &cached, &problem));
    CHECK(!cached);
    CHECK(problem.find("keeping the counter availability in " + blocker + "/cache/a.bin") == 0);
    CHECK(problem.find("mkdir") != std::string::npos);
}

TEST_CASE(an_availability_problem_is_told_once_when_the_first_arm_enabled_the_profiler) {
    const std::string blocker = fresh_run_with_a_blocking_file();
    std::string problem;
    CHECK(one_process(blocker + "/a.bin", nullptr, &problem, false));
    CHECK(problem.find("keeping the counter availability in " + blocker + "/a.bin") == 0);
}
