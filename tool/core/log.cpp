#include "log.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace gorocprof::core {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warning)};
}

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }

bool log_enabled(LogLevel level) { return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed); }

void log(LogLevel level, const std::string& message) {
    if (!log_enabled(level)) return;
    std::string line = "gorocprof-tool: " + message + "\n";
    // The app's errno must survive our diagnostics.
    int saved = errno;
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        ssize_t n = ::write(STDERR_FILENO, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        p += n;
        left -= static_cast<size_t>(n);
    }
    errno = saved;
}

}  // namespace gorocprof::core
