#include "window_lock.hpp"

#include <iterator>

namespace gorocprof::cuda {

// Every memory call that waits for an open window: the synchronous ones first, then, from cuMemcpyAsync
// on, the asynchronous ones (memory_call() tells them apart by that position).
constexpr CUpti_CallbackId kMemoryCallIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoA_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoA_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoA_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoA_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
};
const size_t kMemoryCallIdCount = std::size(kMemoryCallIds);

namespace {

constexpr size_t first_async() {
    for (size_t i = 0; i < std::size(kMemoryCallIds); ++i)
        if (kMemoryCallIds[i] == CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync) return i;
    return std::size(kMemoryCallIds);
}
constexpr size_t kFirstAsync = first_async();
static_assert(kFirstAsync > 0 && kFirstAsync < std::size(kMemoryCallIds), "cuMemcpyAsync opens the asynchronous calls");

}  // namespace

MemoryCall memory_call(CUpti_CallbackId cbid) {
    for (size_t i = 0; i < std::size(kMemoryCallIds); ++i)
        if (kMemoryCallIds[i] == cbid) return i < kFirstAsync ? MemoryCall::Sync : MemoryCall::Async;
    return MemoryCall::None;
}

void DeviceWindows::reset(int devices) {
    if (devices < 1) devices = 1;
    mu_.reset(new std::mutex[devices]);
    n_.store(devices, std::memory_order_release);
}

std::unique_lock<std::mutex> DeviceWindows::hold(int ordinal) {
    if (ordinal < 0 || ordinal >= devices()) return std::unique_lock<std::mutex>();
    return std::unique_lock<std::mutex>(mu_[ordinal]);
}

}  // namespace gorocprof::cuda
