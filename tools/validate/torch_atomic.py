"""torch_atomic.py - scattered atomic adds (index_add_: one 4-byte atomicAdd
per id), which the L2 performs on the sector it holds: one indexFunc kernel
per step, after two reads of 256 MiB that the program never wrote:

  1  h1.index_add_(0, i1, v)   h1 64 MiB fp32, 256 K uniform int64 ids
  2  the same again            (the lines step 1 touched, about 25 MiB, are in L2)
  3  h2.index_add_(0, i2, v)   h2 64 MiB, 256 K ids within its first 8 MiB
  4  h3.index_add_(0, i3, v)   h3 64 MiB, 256 K ids 32 bytes apart: one per sector

l2trace captures only the steps' kernels (perkernel.sh: --kernel
indexFunc), so the model starts from an empty L2.  With L2SIM_UPTO=K the
program stops the profiler after step K and ends: `ncu --replay-mode
app-range` then measures steps 1..K together (tools/validate/perkernel.sh
takes the differences).  Without it, all four steps run."""
import torch

import kernelsteps

MIB = 1 << 20
N = 256 << 10
torch.manual_seed(0)
h1, h2, h3 = (torch.randn(16 * MIB, device="cuda") for _ in range(3))  # 64 MiB each
i1 = torch.randint(0, h1.numel(), (N,), device="cuda")
i2 = torch.randint(0, 2 * MIB, (N,), device="cuda")
i3 = torch.randperm(N, device="cuda") * 8
v = torch.randn(N, device="cuda")
junk = torch.empty(64 * MIB, device="cuda")  # 256 MiB, never written
steps = [
    lambda: h1.index_add_(0, i1, v),
    lambda: h1.index_add_(0, i1, v),
    lambda: h2.index_add_(0, i2, v),
    lambda: h3.index_add_(0, i3, v),
]
total = junk.sum() + junk.sum()
upto = kernelsteps.run(steps)
print("steps %d" % upto)
