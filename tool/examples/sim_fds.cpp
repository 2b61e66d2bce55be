// sim-fds MODE FILE: runs kernels, then does to its file descriptors what daemons and careful apps do,
// and writes 100 lines of its own into FILE ("-" for stdout) with a kernel before each line; at the
// end it reads FILE back and checks that it holds exactly its own lines. For the tests of the record
// file's descriptor (docs/record-format.md, "The tool's descriptors"):
//   close-range  close_range(3, ~0) (every descriptor it did not open itself), then opens FILE
//   close-loop   closes descriptors 3 to 9 one by one, then opens FILE, which gets the lowest of them
//   dup2         opens FILE, then dup2()s it over every other regular file it has open
#include "common.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

using namespace examples;

namespace {

constexpr int kLines = 100;

// The descriptors >= 3 open now, read from /proc/self/fd.
std::vector<int> open_fds() {
    std::vector<int> fds;
    DIR* d = ::opendir("/proc/self/fd");
    if (d == nullptr) return fds;
    const int own = ::dirfd(d);
    while (dirent* e = ::readdir(d)) {
        char* end = nullptr;
        long fd = std::strtol(e->d_name, &end, 10);
        if (*end == '\0' && fd >= 3 && fd != own) fds.push_back(static_cast<int>(fd));
    }
    ::closedir(d);
    return fds;
}

int open_output(const char* path) {
    int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) std::fprintf(stderr, "sim-fds: open %s: %s\n", path, std::strerror(errno));
    return fd;
}

// Replaces every other regular file the process has open by out: where the tool's record file was,
// the app's file is now.
void dup2_over_regular_files(int out) {
    for (int fd : open_fds()) {
        struct stat st {};
        if (fd != out && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ::dup2(out, fd);
    }
}

bool check_file(const char* path) {
    FILE* f = std::fopen(path, "r");
    if (f == nullptr) {
        std::fprintf(stderr, "sim-fds: reopen %s: %s\n", path, std::strerror(errno));
        return false;
    }
    char line[256];
    int n = 0;
    bool ok = true;
    while (std::fgets(line, sizeof line, f) != nullptr) {
        std::string want = "sim-fds line " + std::to_string(n) + "\n";
        if (want != line) {
            std::fprintf(stderr, "sim-fds: %s line %d is not the app's: %.60s\n", path, n + 1, line);
            ok = false;
            break;
        }
        ++n;
    }
    std::fclose(f);
    if (ok && n != kLines) {
        std::fprintf(stderr, "sim-fds: %s holds %d lines, expected %d\n", path, n, kLines);
        ok = false;
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    g_app = "sim-fds";
    if (argc != 3) {
        std::fprintf(stderr, "usage: sim-fds close-range|close-loop|dup2 FILE|-\n");
        return 2;
    }
    const std::string mode = argv[1];
    const char* path = argv[2];
    const bool to_stdout = std::strcmp(path, "-") == 0;
    if (!increment_and_check(256, 5)) return 1;
    int out = -1;
    if (mode == "close-range") {
        if (::close_range(3, ~0U, 0) != 0) {
            std::perror("sim-fds: close_range");
            return 1;
        }
        out = to_stdout ? 1 : open_output(path);
    } else if (mode == "close-loop") {
        for (int fd = 3; fd <= 9; ++fd) ::close(fd);
        out = to_stdout ? 1 : open_output(path);
    } else if (mode == "dup2") {
        out = to_stdout ? 1 : open_output(path);
        if (out >= 0) dup2_over_regular_files(out);
    } else {
        std::fprintf(stderr, "sim-fds: unknown mode %s\n", mode.c_str());
        return 2;
    }
    if (out < 0) return 1;
    simKernel_t inc = register_increment();
    uint32_t* data = nullptr;
    SIM_CHECK(simMalloc(reinterpret_cast<void**>(&data), 256 * sizeof(uint32_t)));
    SIM_CHECK(simMemset(data, 0, 256 * sizeof(uint32_t)));
    for (int i = 0; i < kLines; ++i) {
        launch_increment(inc, data, 256, nullptr);
        SIM_CHECK(simDeviceSynchronize());
        std::string line = "sim-fds line " + std::to_string(i) + "\n";
        if (::write(out, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
            std::fprintf(stderr, "sim-fds: write: %s\n", std::strerror(errno));
            return 1;
        }
    }
    if (!check_all(data, 256, kLines, "data")) return 1;
    if (!to_stdout && (::close(out) != 0 || !check_file(path))) return 1;
    std::fprintf(stderr, "sim-fds: %s: PASS\n", mode.c_str());
    return 0;
}
