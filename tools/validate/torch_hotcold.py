"""torch_hotcold.py - hotcold.cu's pattern in PyTorch: six passes, each
summing a 16 MiB fp32 tensor (`hot`) and a 40 MiB slice of a 120 MiB one
(`big`, its three slices in turn), so that under LRU the slices evict
`hot` before it is read again.  Prints the tensors' addresses; the L2
controls of l2controls.py (L2_SETASIDE, L2_WINDOW with `hot` or `big` as
the base) apply to the passes, which run between cudaProfilerStart and
Stop (the range ncu --replay-mode app-range measures)."""
import torch

import l2controls

torch.manual_seed(0)
hot = torch.randn(4 << 20, device="cuda")
big = torch.randn(30 << 20, device="cuda")
n = 10 << 20
named = {"hot": (hot.data_ptr(), hot.numel() * 4), "big": (big.data_ptr(), big.numel() * 4)}
for k, (p, b) in named.items():
    print("%s 0x%x %d" % (k, p, b))
l2controls.apply(named)
acc = torch.zeros((), device="cuda")
torch.cuda.synchronize()
torch.cuda.profiler.start()
for i in range(6):
    acc += hot.sum() + big[(i % 3) * n:(i % 3 + 1) * n].sum()
torch.cuda.synchronize()
torch.cuda.profiler.stop()
print("sum %.3f" % acc.item())
