// Writing a whole buffer to a file descriptor, which write(2) alone does not promise: the record files
// (records.cpp) and the CUDA backend's kept counter availability (tool/cuda/availability_cache.cpp).
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <cstddef>

namespace gorocprof::core {

// Writes all n bytes through write_fn (write(2), or a test's stand-in), again after EINTR and short writes.
// False when a write fails or writes nothing; *err is then its errno, or 0 for a write of nothing.
inline bool write_fully(ssize_t (*write_fn)(int, const void*, size_t), int fd, const void* data, size_t n, int* err) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = write_fn(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            *err = w < 0 ? errno : 0;
            return false;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

}  // namespace gorocprof::core
