"""torch_search.py - index lookups: binary searches of real PyTorch kernels
(torch.searchsorted, one thread per query, each a chain of dependent
4-byte loads), one kernel per step, after two reads of 256 MiB that leave
nothing of the set-up in L2:

  1  searchsorted(k, q1)    k 512 MiB of sorted int32 keys (2i), 16 K
                            uniform queries: the top of the tree is read
                            by every query, its lower levels each in a
                            line of their own per query (16.35 MiB of
                            lines in all, counted in the capture)
  2  the same again
  3  x.sum()                x 48 MiB fp32: a stream between
  4  searchsorted(k, q1)    the first queries once more: what is left of
                            them after 48 MiB of other reads
  5  searchsorted(k, q2)    16 K new uniform queries: the top of the tree
                            is in L2, the bottom not
  6  searchsorted(k, qs)    16 K sorted uniform queries: a warp's queries
                            end in neighbouring lines

Every step writes its result (int32, 64 KiB) whole.  The steps are sized so
that their capture stays small (1.48 M records); l2trace captures
only them (perkernel.sh: --kernel 'searchsorted|reduce_kernel'; the
set-up's reads are dot products, which it leaves out), so the model starts
from an empty L2.  With L2SIM_UPTO=K the program stops the profiler after
step K and ends: `ncu --replay-mode app-range` then measures steps 1..K
together (tools/validate/perkernel.sh takes the differences).  Without it,
all six steps run."""
import torch

import kernelsteps

MIB = 1 << 20
Q = 16 << 10
torch.manual_seed(0)

nk = 512 * MIB // 4
k = torch.arange(0, 2 * nk, 2, device="cuda", dtype=torch.int32)
q1, q2, qs = (torch.randint(0, 2 * nk, (Q,), device="cuda", dtype=torch.int32) for _ in range(3))
qs = qs.sort().values
x = torch.randn(48 * MIB // 4, device="cuda")
out = torch.empty(Q, device="cuda", dtype=torch.int32)
junk = torch.ones(64 * MIB, device="cuda")  # 256 MiB


def search(q):
    return lambda: torch.searchsorted(k, q, out_int32=True, out=out)


steps = [search(q1), search(q1), lambda: x.sum(), search(q1), search(q2), search(qs)]
for name, t in (("k", k), ("x", x)):
    print("%s 0x%x %d" % (name, t.data_ptr(), t.numel() * 4))
# stored data outlasts one read, not two (calibration/h200/README.md)
total = torch.dot(junk, junk) + torch.dot(junk, junk)
upto = kernelsteps.run(steps)
print("steps %d, %.1f" % (upto, total.item()))
