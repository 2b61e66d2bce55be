// A virtual-memory allocation: physical memory from cuMemCreate mapped with cuMemMap, updated in
// place by a kernel.
#include "check.cuh"
#include <vector>

__global__ void inc(int* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * 3 + 1;
}

int main() {
    CHECK(cudaFree(0));  // creates the primary context
    CUdevice dev;
    CHECK_CU(cuCtxGetDevice(&dev));
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CHECK_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const int n = 1 << 20;
    size_t bytes = (n * sizeof(int) + gran - 1) / gran * gran;
    CUmemGenericAllocationHandle h;
    CHECK_CU(cuMemCreate(&h, bytes, &prop, 0));
    CUdeviceptr ptr;
    CHECK_CU(cuMemAddressReserve(&ptr, bytes, 0, 0, 0));
    CHECK_CU(cuMemMap(ptr, bytes, 0, h, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_CU(cuMemSetAccess(ptr, bytes, &access, 1));
    std::vector<int> host(n), want(n);
    for (int i = 0; i < n; ++i) host[i] = want[i] = i % 1000;
    CHECK_CU(cuMemcpyHtoD(ptr, host.data(), n * sizeof(int)));
    for (int k = 0; k < 8; ++k) {
        inc<<<(n + 255) / 256, 256>>>(reinterpret_cast<int*>(ptr), n);
        CHECK_LAUNCH();
        for (int i = 0; i < n; ++i) want[i] = want[i] * 3 + 1;
    }
    CHECK_CU(cuMemcpyDtoH(host.data(), ptr, n * sizeof(int)));
    CHECK_CU(cuMemUnmap(ptr, bytes));
    CHECK_CU(cuMemRelease(h));
    CHECK_CU(cuMemAddressFree(ptr, bytes));
    return verdict("vmm", host.data(), want.data(), n);
}
