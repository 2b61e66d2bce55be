// The record file under the faults real runs meet: a second image of the process (exec), a forked
// child that records nothing, a full disk, a file size limit.
#include "core_fixture.hpp"

#include <records.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

using namespace core_fixture;

namespace {

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

// Every line of a record file parses, and the file ends with a newline: nothing partial is left.
bool whole_lines(const std::string& path, std::vector<std::string>* out) {
    std::string text = check::read_file(path);
    if (!text.empty() && text.back() != '\n') return false;
    *out = check::lines_of(text);
    for (const std::string& l : *out) {
        Value v;
        std::string error;
        if (!gorocprof::json::parse(l, &v, &error)) return false;
    }
    return true;
}

// A disk that fills in the middle of a write: the first call writes half, the next fails with ENOSPC;
// after that (the tool's `stopped` line, once the file was cut back) writes work again.
std::atomic<int> g_calls{0};
ssize_t filling_write(int fd, const void* buf, size_t n) {
    switch (g_calls++) {
        case 0: return ::write(fd, buf, n / 2);
        case 1: errno = ENOSPC; return -1;
        default: return ::write(fd, buf, n);
    }
}

const char* kExecImageDir = "GOROCPROF_TEST_EXEC_IMAGE_DIR";

}  // namespace

TEST_CASE(record_file_each_image_gets_a_new_file) {
    std::string dir = check::temp_dir();
    records::File first, second;
    std::string error;
    CHECK(first.open(dir, 42, &error));
    CHECK(first.write_all("{\"t\":\"end\"}\n", &error));
    CHECK(second.open(dir, 42, &error));
    CHECK_EQ(first.path(), dir + "/records/42.ndjson");
    CHECK_EQ(second.path(), dir + "/records/42-1.ndjson");
    CHECK_EQ(check::read_file(first.path()), std::string("{\"t\":\"end\"}\n"));
    CHECK_EQ(check::read_file(second.path()), std::string());
}

// The case an exec'd image of record_file_exec_gets_its_own_stream runs: it profiles into the run
// directory the first image used. Run on its own, it does nothing.
TEST_CASE(record_file_exec_image) {
    const char* dir = std::getenv(kExecImageDir);
    if (dir == nullptr) return;
    g_dir = dir;
    if (!start()) std::_Exit(3);
    register_agents();
    run_dispatch(2, kernel("k"));
    std::exit(0);
}

TEST_CASE(record_file_exec_gets_its_own_stream) {
    pid_t child = fork_started_child();
    if (child == 0) {
        run_dispatch(2, kernel("k"));
        ::setenv(kExecImageDir, g_dir.c_str(), 1);
        char self[4096] = {};
        ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0) ::execl(self, self, "record_file_exec_image", static_cast<char*>(nullptr));
        std::_Exit(4);
    }
    int status = wait_status(child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::vector<std::string> before, after;
    CHECK(whole_lines(records_path(child), &before));
    CHECK(whole_lines(g_dir + "/records/" + std::to_string(child) + "-1.ndjson", &after));
    CHECK_EQ(count_type(before, "header"), size_t{1});
    CHECK_EQ(count_type(before, "dispatch"), size_t{1});
    CHECK_EQ(count_type(before, "end"), size_t{0});  // exec runs no exit handler
    CHECK_EQ(count_type(after, "header"), size_t{1});
    CHECK_EQ(count_type(after, "dispatch"), size_t{1});
    CHECK_EQ(count_type(after, "end"), size_t{1});
}

TEST_CASE(record_file_child_that_records_nothing_leaves_no_file) {
    CHECK(start());
    register_agents();
    run_dispatch(0, kernel("_Z4axpyPfS_f"));
    pid_t quits = ::fork();
    if (quits == 0) ::_exit(0);
    pid_t execs = ::fork();
    if (execs == 0) {
        ::execl("/bin/true", "true", static_cast<char*>(nullptr));
        ::_exit(5);
    }
    CHECK_EQ(wait_status(quits), 0);
    CHECK_EQ(wait_status(execs), 0);
    CHECK(!exists(records_path(quits)));
    CHECK(!exists(records_path(execs)));
    Core::instance().finish();
    CHECK_EQ(count_type(child_lines(::getpid()), "end"), size_t{1});
}

TEST_CASE(record_file_short_write_stops_at_a_whole_line) {
    CHECK(start());
    register_agents();
    KernelRef k = kernel("k");
    run_dispatch(0, k);
    detail::State* s = detail::state();
    s->file.attach(s->file.fd(), filling_write);
    run_dispatch(0, k);  // torn, then refused: cut back, `stopped` written
    run_dispatch(0, k);  // nothing more is appended
    Core::instance().finish();
    CHECK(s->file.stopped());
    std::vector<std::string> lines;
    CHECK(whole_lines(records_path(), &lines));
    CHECK_EQ(count_type(lines, "dispatch"), size_t{3});  // the first dispatch's three passes
    CHECK_EQ(count_type(lines, "stopped"), size_t{1});
    CHECK_EQ(count_type(lines, "end"), size_t{0});
    CHECK(!lines.empty() && lines.back().find("No space left on device") != std::string::npos);
}

namespace {

// A child that profiles under a file size limit of `limit` bytes, set before core starts or after
// (when the tool cannot know it and the kernel raises SIGXFSZ at its write); SIGXFSZ keeps its
// default action, which ends the process. Returns the child's pid; *status is its wait status.
pid_t run_under_size_limit(rlim_t limit, bool before_start, int* status) {
    g_dir = check::temp_dir();
    pid_t child = ::fork();
    if (child == 0) {
        rlimit lim{limit, RLIM_INFINITY};
        if (before_start && ::setrlimit(RLIMIT_FSIZE, &lim) != 0) std::_Exit(6);
        if (!start()) std::_Exit(3);
        register_agents();
        if (!before_start && ::setrlimit(RLIMIT_FSIZE, &lim) != 0) std::_Exit(6);
        KernelRef k = kernel("k");
        for (int i = 0; i < 200; ++i) run_dispatch(0, k);
        sigset_t mask;
        pthread_sigmask(SIG_SETMASK, nullptr, &mask);
        if (sigismember(&mask, SIGXFSZ)) std::_Exit(7);  // the app's mask is as it was
        std::exit(0);
    }
    *status = wait_status(child);
    return child;
}

}  // namespace

TEST_CASE(record_file_size_limit_never_kills_the_app) {
    const rlim_t limit = 8192;
    for (bool before_start : {true, false}) {
        int status = 0;
        pid_t child = run_under_size_limit(limit, before_start, &status);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        std::vector<std::string> lines;
        CHECK(whole_lines(records_path(child), &lines));
        CHECK(check::read_file(records_path(child)).size() <= limit);
        CHECK(count_type(lines, "dispatch") > 0);
        CHECK_EQ(count_type(lines, "end"), size_t{0});
        // Known in advance, the limit leaves room for the line that says why the records stop.
        if (before_start) CHECK(!lines.empty() && lines.back().find("ulimit -f") != std::string::npos);
    }
}

// The app takes the record file's descriptor: it closes it (close_range, a close loop) or puts its
// own file there (dup2). The tool's records never go into the app's file; the tool opens its file
// again, says so in a warning, and loses no dispatch.
TEST_CASE(record_file_app_takes_the_descriptor) {
    CHECK(start());
    register_agents();
    KernelRef k = kernel("k");
    run_dispatch(0, k);
    detail::State* s = detail::state();
    rlimit lim{};
    CHECK(::getrlimit(RLIMIT_NOFILE, &lim) == 0);
    // High: an app's next open() does not get it.
    CHECK(s->file.fd() >= static_cast<int>(std::min<rlim_t>(lim.rlim_cur, 1024)) - records::File::kFdHeadroom);
    std::string app_path = g_dir + "/app-file";
    int app = ::open(app_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(app >= 0);
    CHECK(::dup2(app, s->file.fd()) == s->file.fd());
    run_dispatch(0, k);
    CHECK(::close(s->file.fd()) == 0);
    run_dispatch(0, k);
    CHECK(::write(app, "app\n", 4) == 4);
    ::close(app);
    Core::instance().finish();
    CHECK_EQ(check::read_file(app_path), std::string("app\n"));
    std::vector<std::string> lines;
    CHECK(whole_lines(records_path(), &lines));
    CHECK_EQ(count_type(lines, "dispatch"), size_t{9});  // three dispatches of three passes
    size_t gaps = 0;
    for (const std::string& l : lines) gaps += l.find("closed or replaced the record file's descriptor") != std::string::npos;
    CHECK_EQ(gaps, size_t{2});
    CHECK_EQ(count_type(lines, "end"), size_t{1});
    CHECK_EQ(s->file.reopened(), uint64_t{2});
}
