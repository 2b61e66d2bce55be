// CUDA graphs, four ways, every kernel updating memory in place (a node run twice, or replayed without its
// memory restored, changes the result): a captured graph (memset, three kernels) launched five times
// after its graph was destroyed, as PyTorch does; a graph built with the explicit API (kernel, device copy,
// kernel) launched three times; a graph with a child graph of two kernels, launched twice; a captured graph
// relaunched after cudaGraphExecUpdate swapped its kernels' arguments. 33 kernel nodes run in all.
#include "check.cuh"
#include <vector>

namespace {
constexpr unsigned kMod = 1000003u;
}

__global__ void step(unsigned* a, int n, unsigned mul) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (a[i] * mul + 7u) % kMod;
}

__global__ void add(unsigned* dst, const unsigned* src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = (dst[i] + src[i]) % kMod;
}

namespace {

const int n = 1 << 16;
const dim3 grid((n + 255) / 256), block(256);

void host_step(std::vector<unsigned>& a, unsigned mul) {
    for (unsigned& v : a) v = (v * mul + 7u) % kMod;
}

std::vector<unsigned> start(unsigned seed) {
    std::vector<unsigned> v(n);
    for (int i = 0; i < n; ++i) v[i] = unsigned(i * 31 + seed) % kMod;
    return v;
}

unsigned* upload(const std::vector<unsigned>& v) {
    unsigned* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
    CHECK(cudaMemcpy(d, v.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    return d;
}

int compare(const char* what, const unsigned* d, const std::vector<unsigned>& want) {
    std::vector<unsigned> got(n);
    CHECK(cudaMemcpy(got.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    return verdict(what, got.data(), want.data(), n);
}

cudaGraphNode_t kernel_node(cudaGraph_t g, const cudaGraphNode_t* deps, size_t ndeps, unsigned* a, unsigned mul) {
    int count = n;
    void* args[] = {&a, &count, &mul};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(step);
    p.gridDim = grid;
    p.blockDim = block;
    p.kernelParams = args;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddKernelNode(&node, g, deps, ndeps, &p));
    return node;
}

// Memset, then t = a, a = step(a), a += t: five launches of the graph, destroyed once instantiated.
int captured(cudaStream_t s) {
    std::vector<unsigned> want = start(1);
    unsigned* a = upload(want);
    unsigned* t = upload(std::vector<unsigned>(n, 5));
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemsetAsync(t, 0, n * sizeof(unsigned), s));
    add<<<grid, block, 0, s>>>(t, a, n);
    step<<<grid, block, 0, s>>>(a, n, 3u);
    add<<<grid, block, 0, s>>>(a, t, n);
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    CHECK(cudaGraphDestroy(g));
    for (int k = 0; k < 5; ++k) {
        CHECK(cudaGraphLaunch(exec, s));
        std::vector<unsigned> old = want;
        host_step(want, 3u);
        for (int i = 0; i < n; ++i) want[i] = (want[i] + old[i]) % kMod;
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(exec));
    int rc = compare("graphs: captured", a, want);
    CHECK(cudaFree(a));
    CHECK(cudaFree(t));
    return rc;
}

// b = step5(b), c = b (a copy node), c = step7(c): three launches.
int explicit_api(cudaStream_t s) {
    std::vector<unsigned> b_want = start(2), c_want(n);
    unsigned* b = upload(b_want);
    unsigned* c = upload(std::vector<unsigned>(n, 0));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t k1 = kernel_node(g, nullptr, 0, b, 5u), copy;
    CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &k1, 1, c, b, n * sizeof(unsigned), cudaMemcpyDeviceToDevice));
    kernel_node(g, &copy, 1, c, 7u);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    for (int k = 0; k < 3; ++k) {
        CHECK(cudaGraphLaunch(exec, s));
        host_step(b_want, 5u);
        c_want = b_want;
        host_step(c_want, 7u);
    }
    CHECK(cudaStreamSynchronize(s));
    int rc = compare("graphs: explicit API (b)", b, b_want);
    if (rc == 0) rc = compare("graphs: explicit API (c)", c, c_want);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    return rc;
}

// step2, then a child graph of step11 and step13, then step17: two launches.
int child_graph(cudaStream_t s) {
    std::vector<unsigned> want = start(3);
    unsigned* d = upload(want);
    cudaGraph_t child, parent;
    CHECK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t c1 = kernel_node(child, nullptr, 0, d, 11u);
    kernel_node(child, &c1, 1, d, 13u);
    CHECK(cudaGraphCreate(&parent, 0));
    cudaGraphNode_t p1 = kernel_node(parent, nullptr, 0, d, 2u), inner;
    CHECK(cudaGraphAddChildGraphNode(&inner, parent, &p1, 1, child));
    kernel_node(parent, &inner, 1, d, 17u);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, parent, 0));
    for (int k = 0; k < 2; ++k) {
        CHECK(cudaGraphLaunch(exec, s));
        for (unsigned mul : {2u, 11u, 13u, 17u}) host_step(want, mul);
    }
    CHECK(cudaStreamSynchronize(s));
    int rc = compare("graphs: child graph", d, want);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(parent));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaFree(d));
    return rc;
}

cudaGraph_t capture_two(cudaStream_t s, unsigned* e, unsigned m1, unsigned m2) {
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    step<<<grid, block, 0, s>>>(e, n, m1);
    step<<<grid, block, 0, s>>>(e, n, m2);
    CHECK(cudaStreamEndCapture(s, &g));
    return g;
}

// step19, step23; then the exec updated to step29, step31 and launched again.
int exec_update(cudaStream_t s) {
    std::vector<unsigned> want = start(4);
    unsigned* e = upload(want);
    cudaGraph_t g1 = capture_two(s, e, 19u, 23u);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g1, 0));
    CHECK(cudaGraphLaunch(exec, s));
    host_step(want, 19u);
    host_step(want, 23u);
    cudaGraph_t g2 = capture_two(s, e, 29u, 31u);
    cudaGraphExecUpdateResultInfo info{};
    CHECK(cudaGraphExecUpdate(exec, g2, &info));
    CHECK(cudaGraphLaunch(exec, s));
    host_step(want, 29u);
    host_step(want, 31u);
    CHECK(cudaStreamSynchronize(s));
    int rc = compare("graphs: exec update", e, want);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g1));
    CHECK(cudaGraphDestroy(g2));
    CHECK(cudaFree(e));
    return rc;
}

}  // namespace

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int rc = captured(s);
    if (rc == 0) rc = explicit_api(s);
    if (rc == 0) rc = child_graph(s);
    if (rc == 0) rc = exec_update(s);
    CHECK(cudaStreamDestroy(s));
    return rc;
}
