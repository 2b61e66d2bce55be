#include "availability_cache.hpp"

#include "fd_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gorocprof::cuda {
namespace {

// The first line of every file: its format, so that another layout is never read as an image.
constexpr char kMagic[] = "gorocprof cuda counter availability 1\n";

bool safe_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'; }

PortStatus os_failure(const char* call, const std::string& path) {
    return PortStatus::failure(call, path + ": " + std::strerror(errno));
}

// mkdir -p, with the cache's directory mode.
PortStatus make_dirs(const std::string& dir) {
    for (size_t i = 1; i <= dir.size(); ++i) {
        if (i != dir.size() && dir[i] != '/') continue;
        const std::string part = dir.substr(0, i);
        if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return os_failure("mkdir", part);
    }
    return PortStatus::success();
}

// errno stays what the failed write(2) set, for os_failure.
bool write_all(int fd, const void* data, size_t n) {
    int err = 0;
    return core::write_fully(::write, fd, data, n, &err);
}

}  // namespace

std::string availability_cache_path(const std::string& dir, const std::string& uuid, int driver_version,
                                    uint32_t cupti_version) {
    if (dir.empty()) return "";
    std::string name = "cuda-availability-";
    for (char c : uuid) name += safe_char(c) ? c : '_';
    name += "-driver" + std::to_string(driver_version) + "-cupti" + std::to_string(cupti_version) + ".bin";
    return dir + (dir.back() == '/' ? "" : "/") + name;
}

bool load_availability(const std::string& path, std::vector<uint8_t>* image) {
    if (path.empty()) return false;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    char magic[sizeof kMagic - 1];
    uint64_t size = 0;
    bool ok = std::fread(magic, 1, sizeof magic, f) == sizeof magic && std::memcmp(magic, kMagic, sizeof magic) == 0 &&
              std::fread(&size, sizeof size, 1, f) == 1 && size > 0 && size <= (uint64_t(64) << 20);
    std::vector<uint8_t> data;
    if (ok) {
        data.resize(static_cast<size_t>(size));
        ok = std::fread(data.data(), 1, data.size(), f) == data.size() && std::fgetc(f) == EOF;
    }
    std::fclose(f);
    if (ok) image->swap(data);
    return ok;
}

PortStatus save_availability(const std::string& path, const std::vector<uint8_t>& image) {
    if (path.empty() || image.empty()) return PortStatus::success();
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        PortStatus st = make_dirs(path.substr(0, slash));
        if (!st.ok) return st;
    }
    // A name of this process's own, so that two processes saving at once never write into one file.
    const std::string tmp = path + ".tmp" + std::to_string(getpid());
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return os_failure("open", tmp);
    const uint64_t size = image.size();
    const bool ok = write_all(fd, kMagic, sizeof kMagic - 1) && write_all(fd, &size, sizeof size) &&
                    write_all(fd, image.data(), image.size());
    if (close(fd) != 0 || !ok) {
        PortStatus st = os_failure("write", tmp);
        unlink(tmp.c_str());
        return st;
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) {
        PortStatus st = os_failure("rename", path);
        unlink(tmp.c_str());
        return st;
    }
    return PortStatus::success();
}

}  // namespace gorocprof::cuda
