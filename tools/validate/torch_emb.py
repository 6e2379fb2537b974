"""torch_emb.py - an embedding-bag lookup over a large table: 200,000 rows
of 64 fp32 (48.8 MiB, about the H100's L2), 4096 bags of 32 indices drawn
from a skewed (Zipf-like) distribution, three forward passes."""
import torch

import l2controls

torch.manual_seed(0)
rows, dim, bags, per = 200_000, 64, 4096, 32
emb = torch.nn.EmbeddingBag(rows, dim, mode="sum").cuda()
# skewed ids: rank r drawn with probability ~ 1/(r+1)^1.05
u = torch.rand(bags * per, device="cuda", dtype=torch.float64)
ids = (torch.exp(u * torch.log(torch.tensor(float(rows), dtype=torch.float64))) - 1).long().clamp_(0, rows - 1)
perm = torch.randperm(rows, device="cuda")
ids = perm[ids]
offsets = torch.arange(0, bags * per, per, device="cuda")
print("table 0x%x %d" % (emb.weight.data_ptr(), emb.weight.numel() * 4))
l2controls.apply({"table": (emb.weight.data_ptr(), emb.weight.numel() * 4)})
torch.cuda.synchronize()
torch.cuda.profiler.start()  # the range ncu --replay-mode app-range measures
with torch.no_grad():
    for _ in range(3):
        y = emb(ids, offsets)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
print("sum %.3f" % y.sum().item())
