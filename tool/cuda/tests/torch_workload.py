#!/usr/bin/env python3
"""A small PyTorch training step (convolution, matmul, softmax, optimizer step) whose tensors are
saved to a file, so that a run under kernel replay can be compared bit for bit with an unprofiled
one. `compare A B` compares two saved files."""
import os
import sys

import torch


def workload(path):
    torch.manual_seed(1234)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.use_deterministic_algorithms(True)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(16 * 16 * 16, 64),
    ).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(32, 3, 16, 16, device=dev)
    target = torch.randint(0, 64, (32,), device=dev)
    out = {}
    for step in range(2):
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        probs = torch.softmax(logits, dim=1)
        loss = torch.nn.functional.cross_entropy(logits, target)
        loss.backward()
        opt.step()
        out["probs%d" % step] = probs.detach().cpu()
        out["loss%d" % step] = loss.detach().cpu()
    a = torch.randn(256, 256, device=dev)
    b = torch.randn(256, 256, device=dev)
    out["matmul"] = (a @ b).cpu()
    for name, p in model.named_parameters():
        out["param." + name] = p.detach().cpu()
    torch.cuda.synchronize()
    torch.save(out, path)
    print("saved %d tensors to %s" % (len(out), path))


def compare(pa, pb):
    a, b = torch.load(pa), torch.load(pb)
    if sorted(a) != sorted(b):
        print("DIFF: tensor sets differ")
        return 1
    diff = [k for k in sorted(a) if not torch.equal(a[k], b[k])]
    if diff:
        worst = max((a[k] - b[k]).abs().max().item() for k in diff)
        print("DIFF: %d of %d tensors differ (%s); max abs diff %g" % (len(diff), len(a), ", ".join(diff[:5]), worst))
        return 1
    print("IDENTICAL: %d tensors bitwise equal" % len(a))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    workload(sys.argv[1])
