#!/usr/bin/env python3
"""The tracing cost's workload (scripts/gpu-bench.sh, BENCH_WORKLOADS=trace): training steps of a transformer
encoder layer (forward, backward, AdamW), each inside an NVTX range, timed one by one on the host after a
synchronize. `small` is bench/transformer_step.py's block (launch-bound: tracing's worst case per step), `large`
a block whose kernels fill the GPU. Prints `STEP-MS config median mean steps`, the median over the timed steps,
and a checksum of the parameters so runs can be compared."""
import statistics
import sys
import time

import torch

CONFIGS = {
    "small": dict(d_model=256, nhead=8, ff=1024, batch=8, seq=128),
    "large": dict(d_model=1024, nhead=16, ff=4096, batch=16, seq=512),
}


def main(config, warmup=5, steps=30):
    c = CONFIGS[config]
    torch.manual_seed(0)
    dev = "cuda"
    block = torch.nn.TransformerEncoderLayer(d_model=c["d_model"], nhead=c["nhead"], dim_feedforward=c["ff"],
                                             batch_first=True).to(dev)
    opt = torch.optim.AdamW(block.parameters(), lr=1e-3)
    x = torch.randn(c["batch"], c["seq"], c["d_model"], device=dev)
    target = torch.randn(c["batch"], c["seq"], c["d_model"], device=dev)
    times = []
    for i in range(warmup + steps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        torch.cuda.nvtx.range_push("step %d" % i)
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(block(x), target)
        loss.backward()
        opt.step()
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        if i >= warmup:
            times.append((time.perf_counter() - t) * 1000)
    checksum = sum(p.double().sum().item() for p in block.parameters())
    print("STEP-MS %s %.3f %.3f %d checksum %.6f" % (config, statistics.median(times), statistics.mean(times), steps, checksum))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "small")
