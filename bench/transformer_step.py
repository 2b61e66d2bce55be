"""Workload (2) of the bench: one training step (forward + backward + optimizer) of a small transformer
block, deterministic, with a checksum of the parameters printed at the end so runs can be compared."""
import sys

import torch

torch.manual_seed(0)
torch.backends.cudnn.benchmark = False
torch.use_deterministic_algorithms(True, warn_only=True)
dev = "cuda"
block = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True).to(dev)
opt = torch.optim.AdamW(block.parameters(), lr=1e-3)
x = torch.randn(8, 128, 256, device=dev)
target = torch.randn(8, 128, 256, device=dev)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
for _ in range(steps):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(block(x), target)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("transformer_step: loss %.6f checksum %.6f" % (loss.item(), sum(p.double().sum().item() for p in block.parameters())))
