// The two small kernels of cuda-many_launches, shared with the Range Profiler floor loop of the bench
// (bench/rp_floor.cu), so that the floor is measured on exactly the kernels gorocprof replays.
#pragma once

__global__ void add_one(int* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 1;
}
__global__ void add_index(int* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += i & 7;
}
