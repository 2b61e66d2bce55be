// sim-spawn MODE: runs and checks a few kernels, then ends its process image the ways real apps do,
// for the record-file tests (each image and each child that records gets its own record stream;
// nothing that ends without a crash reads as one; the tool's writes never end the app):
//   exec       execs itself (`done`): the same pid, a second image that profiles
//   fork-exec  a child execs itself (`done`) while the parent runs more kernels
//   fork-exit  a child ends at once with _exit(0), recording nothing
//   exec-true  a child execs /bin/true, which never touches the GPU
//   quit       ends at once with _exit(0), running no exit handler
//   become-true  execs /bin/true itself
//   limit N    after the first kernels, lowers its own file size limit to N bytes, then runs many
//              more kernels; the app itself writes no file
//   orphan     a child runs 100 more kernels after the parent has ended (it is left running)
//   daemon     the same from a grandchild that left the session (double fork, setsid)
//   linger     a child runs 1 kernel, then sleeps for an hour after the parent has ended
//   done       the kernels only
#include "common.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

using namespace examples;

namespace {

std::string self_path() {
    char buf[4096] = {};
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

[[noreturn]] void exec_self_done() {
    std::string self = self_path();
    ::execl(self.c_str(), "sim-spawn", "done", static_cast<char*>(nullptr));
    std::fprintf(stderr, "sim-spawn: exec %s: %s\n", self.c_str(), std::strerror(errno));
    ::_exit(126);
}

// Forks a child that runs `child` and waits for it; true when it exited with status 0.
template <typename Child>
bool child_succeeds(Child child) {
    std::fflush(stdout);
    pid_t pid = ::fork();
    if (pid < 0) {
        std::perror("sim-spawn: fork");
        return false;
    }
    if (pid == 0) child();
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return false;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "sim-spawn: child %d ended with wait status %#x\n", static_cast<int>(pid), status);
        return false;
    }
    return true;
}

bool limit_then_launch(const char* bytes) {
    char* end = nullptr;
    unsigned long long limit = std::strtoull(bytes, &end, 10);
    if (*bytes == '\0' || *end != '\0') {
        std::fprintf(stderr, "sim-spawn: limit '%s' is not a number of bytes\n", bytes);
        return false;
    }
    rlimit lim{};
    if (::getrlimit(RLIMIT_FSIZE, &lim) != 0) return false;
    lim.rlim_cur = static_cast<rlim_t>(limit);
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) {
        std::perror("sim-spawn: setrlimit");
        return false;
    }
    return increment_and_check(256, 2000);
}

// The child of fork_left_running: waits until its parent has gone, then runs its kernels in a new
// image (`left-child`; the simulated runtime, like a GPU runtime, is not used across fork).
[[noreturn]] void run_left_running(int kernels, unsigned sleep_after) {
    ::usleep(300 * 1000);
    std::string self = self_path();
    std::string k = std::to_string(kernels), s = std::to_string(sleep_after);
    ::execl(self.c_str(), "sim-spawn", "left-child", k.c_str(), s.c_str(), static_cast<char*>(nullptr));
    ::_exit(126);
}

// left-child N S: the kernels of a process left running, then S seconds of sleep.
bool left_child(const char* kernels, const char* sleep_after) {
    bool ok = increment_and_check(256, static_cast<uint32_t>(std::atoi(kernels)));
    std::printf("sim-spawn: left-running child %d: %s\n", static_cast<int>(::getpid()), ok ? "PASS" : "FAIL");
    std::fflush(stdout);
    ::sleep(static_cast<unsigned>(std::atoi(sleep_after)));
    return ok;
}

// Leaves a process running that outlives this one: a child, or (daemon) a grandchild in a session
// of its own, its parent reaped here.
void fork_left_running(bool daemon, int kernels, unsigned sleep_after) {
    std::fflush(stdout);
    pid_t pid = ::fork();
    if (pid != 0) {
        if (pid > 0 && daemon) ::waitpid(pid, nullptr, 0);
        return;
    }
    if (!daemon) run_left_running(kernels, sleep_after);
    ::setsid();
    if (::fork() == 0) run_left_running(kernels, sleep_after);
    ::_exit(0);
}

}  // namespace

int main(int argc, char** argv) {
    g_app = "sim-spawn";
    std::string mode = argc > 1 ? argv[1] : "";
    if (!increment_and_check(256, 4)) return 1;
    bool ok = true;
    if (mode == "done") {
    } else if (mode == "exec") {
        std::printf("sim-spawn: 4 kernels checked; exec\n");
        std::fflush(stdout);
        exec_self_done();
    } else if (mode == "fork-exec") {
        ok = child_succeeds(exec_self_done) && increment_and_check(256, 4);
    } else if (mode == "fork-exit") {
        ok = child_succeeds([] { ::_exit(0); });
    } else if (mode == "exec-true") {
        ok = child_succeeds([] {
            ::execl("/bin/true", "true", static_cast<char*>(nullptr));
            ::_exit(126);
        });
    } else if (mode == "quit") {
        std::printf("sim-spawn: quit: PASS\n");
        std::fflush(stdout);
        ::_exit(0);
    } else if (mode == "become-true") {
        std::printf("sim-spawn: become-true: PASS\n");
        std::fflush(stdout);
        ::execl("/bin/true", "true", static_cast<char*>(nullptr));
        return 126;
    } else if (mode == "orphan" || mode == "daemon") {
        fork_left_running(mode == "daemon", 100, 0);
    } else if (mode == "linger") {
        fork_left_running(false, 1, 3600);
    } else if (mode == "left-child" && argc > 3) {
        ok = left_child(argv[2], argv[3]);
    } else if (mode == "limit" && argc > 2) {
        ok = limit_then_launch(argv[2]);
    } else {
        std::fprintf(stderr, "usage: sim-spawn exec|fork-exec|fork-exit|exec-true|quit|become-true|orphan|daemon|linger|limit BYTES|done\n");
        return 2;
    }
    if (!ok) return 1;
    std::printf("sim-spawn: %s: PASS\n", mode.c_str());
    return 0;
}
