"""torch_stride.py - reads a power of two apart: a column and strided rows of
a matrix whose rows are 4 KiB (a pitch of 32 lines), one kernel per step,
after two reads of 256 MiB that leave nothing of the set-up in L2:

  1  o.copy_(x[:, 0:8])     x 65536 x 1024 fp32 (256 MiB): 32 bytes of
                            every row, one sector of each of 65536 lines
                            32 lines apart (8 MiB of lines)
  2  the same again
  3  o.copy_(x[:, 8:16])    the next sector of the same lines
  4  y.sum()                y 48 MiB fp32: a stream between
  5  o.copy_(x[:, 0:8])     the first column once more: what is left of
                            it after 48 MiB of other reads
  6  x[::16].sum(1)         every 16th row (4 KiB runs 64 KiB apart:
                            16 MiB, 32 consecutive lines every 512)
  7  the same again
  8  x[8::16].sum(1)        the rows between them, 16 MiB not read before

o is 2 MiB, written whole by each copy.  l2trace captures only the steps
(perkernel.sh: --kernel 'direct_copy|reduce_kernel'; the set-up's reads
are dot products, which it leaves out), so the model starts from an empty
L2.  With L2SIM_UPTO=K the program stops the profiler after step K and
ends: `ncu --replay-mode app-range` then measures steps 1..K together
(tools/validate/perkernel.sh takes the differences).  Without it, all
eight steps run."""
import torch

import kernelsteps

MIB = 1 << 20
torch.manual_seed(0)

x = torch.randn(65536, 1024, device="cuda")
y = torch.randn(48 * MIB // 4, device="cuda")
o = torch.empty(65536, 8, device="cuda")
junk = torch.ones(64 * MIB, device="cuda")  # 256 MiB


def column(j):
    return lambda: o.copy_(x[:, j:j + 8])


def rows(first):
    return lambda: x[first::16].sum(1)


steps = [column(0), column(0), column(8), lambda: y.sum(), column(0), rows(0), rows(0), rows(8)]
for name, t in (("x", x), ("y", y), ("o", o)):
    print("%s 0x%x %d" % (name, t.data_ptr(), t.numel() * 4))
# stored data outlasts one read, not two (calibration/h200/README.md)
total = torch.dot(junk, junk) + torch.dot(junk, junk)
upto = kernelsteps.run(steps)
print("steps %d, %.1f" % (upto, total.item()))
