#!/usr/bin/env python3
"""PyTorch's CUDA graphs (torch.cuda.CUDAGraph): a small MLP's forward pass captured once and replayed
five times on new inputs, each output saved, so that a run under kernel replay (every kernel node of the
graph a dispatch of its own) can be compared bit for bit with an unprofiled one. `compare A B` as in
torch_workload.py."""
import os
import sys

import torch

from torch_workload import compare


def workload(path):
    torch.manual_seed(4321)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.use_deterministic_algorithms(True)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512),
        torch.nn.GELU(),
        torch.nn.Linear(512, 128),
        torch.nn.LayerNorm(128),
    ).to(dev)
    static_x = torch.randn(64, 256, device=dev)
    inputs = [torch.randn(64, 256, device=dev) for _ in range(5)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):
        for _ in range(3):  # warm-up outside the capture, as PyTorch asks
            model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        static_y = model(static_x)
    out = {}
    for i, x in enumerate(inputs):
        static_x.copy_(x)
        graph.replay()
        out["y%d" % i] = static_y.detach().cpu()
    torch.cuda.synchronize()
    torch.save(out, path)
    print("saved %d tensors to %s" % (len(out), path))


if __name__ == "__main__":
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    workload(sys.argv[1])
