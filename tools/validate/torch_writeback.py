"""torch_writeback.py - what the write-back of stored sectors costs in DRAM
reads: a fill kernel stores 32 MiB in one of four ways, then a sum reads
128 MiB that nothing wrote (torch.empty), which evicts the stored lines;
the sum's DRAM reads beyond its own 128 MiB are what the write-backs read.
After two reads of 256 MiB that nothing wrote:

  1  z1.view(-1, 32)[:, :8] = 1    the first sector of every line, whole
                                   (half of a 64-byte DRAM granule)
  2  s1.sum()
  3  z2.view(-1, 32)[:, :16] = 1   the first two sectors of every line (one granule)
  4  s2.sum()
  5  z3.fill_(1)                   every sector
  6  s3.sum()
  7  z4[::8] = 1                   4 bytes of every sector (read first: partial_write_fill)
  8  s4.sum()

l2trace captures the fill and sum kernels (perkernel.sh: --kernel
'FillFunctor|reduce_kernel'), the two reads before the steps too: the
model starts with them.  With L2SIM_UPTO=K the program stops the
profiler after step K and ends: `ncu --replay-mode app-range` then
measures steps 1..K together (tools/validate/perkernel.sh takes the
differences).  Without it, all eight steps run."""
import torch

import kernelsteps

MIB = 1 << 20
torch.manual_seed(0)
z1, z2, z3, z4 = (torch.randn(8 * MIB, device="cuda") for _ in range(4))  # 32 MiB each
s1, s2, s3, s4 = (torch.empty(32 * MIB, device="cuda") for _ in range(4))  # 128 MiB each, never written
junk = torch.empty(64 * MIB, device="cuda")  # 256 MiB, never written
o1, o2, o3, o4 = (torch.empty((), device="cuda") for _ in range(4))
steps = [
    lambda: z1.view(-1, 32)[:, :8].fill_(1.0),
    lambda: torch.sum(s1, 0, out=o1),
    lambda: z2.view(-1, 32)[:, :16].fill_(1.0),
    lambda: torch.sum(s2, 0, out=o2),
    lambda: z3.fill_(1.0),
    lambda: torch.sum(s3, 0, out=o3),
    lambda: z4[::8].fill_(1.0),
    lambda: torch.sum(s4, 0, out=o4),
]
total = junk.sum() + junk.sum()
upto = kernelsteps.run(steps)
print("steps %d" % upto)
