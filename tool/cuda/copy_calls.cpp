// Reading a driver memory call's addresses from its CUPTI parameter struct (copy_calls.hpp).
#include "copy_calls.hpp"

namespace gorocprof::cuda::tracing {

void copy_addresses(CUpti_CallbackId cbid, const void* p, uint64_t* src, uint64_t* dst) {
    auto u = [](auto v) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v)); };
    auto d = [](CUdeviceptr v) { return static_cast<uint64_t>(v); };
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: {
        auto* a = static_cast<const cuMemcpy_params*>(p);
        *src = d(a->src), *dst = d(a->dst);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
        auto* a = static_cast<const cuMemcpyAsync_params*>(p);
        *src = d(a->src), *dst = d(a->dst);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
        auto* a = static_cast<const cuMemcpyHtoD_v2_params*>(p);
        *src = u(a->srcHost), *dst = d(a->dstDevice);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
        auto* a = static_cast<const cuMemcpyHtoDAsync_v2_params*>(p);
        *src = u(a->srcHost), *dst = d(a->dstDevice);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds: {
        auto* a = static_cast<const cuMemcpyDtoH_v2_params*>(p);
        *src = d(a->srcDevice), *dst = u(a->dstHost);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: {
        auto* a = static_cast<const cuMemcpyDtoHAsync_v2_params*>(p);
        *src = d(a->srcDevice), *dst = u(a->dstHost);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds: {
        auto* a = static_cast<const cuMemcpyDtoD_v2_params*>(p);
        *src = d(a->srcDevice), *dst = d(a->dstDevice);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
        auto* a = static_cast<const cuMemcpyDtoDAsync_v2_params*>(p);
        *src = d(a->srcDevice), *dst = d(a->dstDevice);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds: {
        auto* a = static_cast<const cuMemcpyPeer_params*>(p);
        *src = d(a->srcDevice), *dst = d(a->dstDevice);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz: {
        auto* a = static_cast<const cuMemcpyPeerAsync_params*>(p);
        *src = d(a->srcDevice), *dst = d(a->dstDevice);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
        *dst = d(static_cast<const cuMemsetD8_v2_params*>(p)->dstDevice);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds:
        *dst = d(static_cast<const cuMemsetD16_v2_params*>(p)->dstDevice);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds:
        *dst = d(static_cast<const cuMemsetD32_v2_params*>(p)->dstDevice);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
        *dst = d(static_cast<const cuMemsetD8Async_params*>(p)->dstDevice);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
        *dst = d(static_cast<const cuMemsetD16Async_params*>(p)->dstDevice);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
        *dst = d(static_cast<const cuMemsetD32Async_params*>(p)->dstDevice);
        break;
    default:
        break;
    }
}

}  // namespace gorocprof::cuda::tracing
