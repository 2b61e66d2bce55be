#include "config_runs.hpp"

namespace gorocprof::cuda {

size_t longest_run(size_t start, size_t count, const std::function<bool(size_t start, size_t length)>& fits) {
    if (count == 0) return 0;
    size_t length = 1;
    while (length < count && fits(start % count, length + 1)) ++length;
    return length;
}

}  // namespace gorocprof::cuda
