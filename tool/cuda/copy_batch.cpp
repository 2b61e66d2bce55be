#include "copy_batch.hpp"

#include <string>

namespace gorocprof::cuda {

PortStatus CopyBatch::run(CUstream stream) {
    if (size_.empty()) return PortStatus::success();
#if CUDA_VERSION >= 12080
    if (!batch_unsupported_ && size_.size() > 1) {
        CUmemcpyAttributes attr{};
        attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
        size_t first = 0;
#if CUDA_VERSION >= 13000
        CUresult r = cuMemcpyBatchAsync(dst_.data(), src_.data(), size_.data(), size_.size(), &attr, &first, 1, stream);
#else
        size_t fail = 0;
        CUresult r =
            cuMemcpyBatchAsync(dst_.data(), src_.data(), size_.data(), size_.size(), &attr, &first, 1, &fail, stream);
#endif
        if (r != CUDA_ERROR_NOT_SUPPORTED) {
            PortStatus st = cu(r, "cuMemcpyBatchAsync");
            if (!st.ok) st.reason += " (" + std::to_string(size_.size()) + " copies)";
            return st;
        }
        batch_unsupported_ = true;  // an older driver: fall through to one call per copy
    }
#endif
    for (size_t i = 0; i < size_.size(); ++i) {
        PortStatus st = cu(cuMemcpyAsync(dst_[i], src_[i], size_[i], stream), "cuMemcpyAsync");
        if (!st.ok) return st;
    }
    return PortStatus::success();
}

}  // namespace gorocprof::cuda
