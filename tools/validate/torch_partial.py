"""torch_partial.py - stores that write part of a sector, and what they cost
in DRAM reads: one fill kernel per step, each on its own fp32 buffer that
the L2 does not hold (after two reads of 256 MiB that the program never
wrote; L2SIM_FLUSH=N makes them N), so that DRAM reads beyond the kernel's own loads (none) are fills
of the sectors it writes in part:

  1  z1[::32] = 1                  4 bytes at the start of every 128-byte
                                   line of 32 MiB (one sector in part)
  2  z2[::8] = 1                   4 bytes of every sector (four in part)
  3  z3.view(-1, 8)[:, :4] = 1     16 bytes of every sector (half of each)
  4  z4.view(-1, 32)[:, :8] = 1    the first sector of every line, whole
  5  z5.view(-1, 32)[:, :4] = 1    16 bytes of the first sector of every line
  6  z6[::8] = 1                   4 MiB: 4 bytes of every sector
  7  z6[::8] = 2                   the same again (the L2 holds it now)
  8  z7.view(-1, 32)[:, :16] = 1   the first half of every line (two sectors whole)

l2trace captures only the steps' kernels (perkernel.sh: --kernel
FillFunctor; the set-up's are random-number and sum kernels), so the
model starts from an empty L2.  With L2SIM_UPTO=K the program stops the
profiler after step K and ends: `ncu --replay-mode app-range` then
measures steps 1..K together (tools/validate/perkernel.sh takes the
differences).  Without it, all eight steps run."""
import os

import torch

import kernelsteps

MIB = 1 << 20
torch.manual_seed(0)


def f32(mib):
    return torch.randn(mib * MIB // 4, device="cuda")


z1, z2, z3, z4, z5, z7 = (f32(32) for _ in range(6))
z6 = f32(4)
junk = torch.empty(64 * MIB, device="cuda")  # 256 MiB, never written
steps = [
    lambda: z1[::32].fill_(1.0),
    lambda: z2[::8].fill_(1.0),
    lambda: z3.view(-1, 8)[:, :4].fill_(1.0),
    lambda: z4.view(-1, 32)[:, :8].fill_(1.0),
    lambda: z5.view(-1, 32)[:, :4].fill_(1.0),
    lambda: z6[::8].fill_(1.0),
    lambda: z6[::8].fill_(2.0),
    lambda: z7.view(-1, 32)[:, :16].fill_(1.0),
]
for name, t in (("z1", z1), ("z6", z6), ("z7", z7)):
    print("%s 0x%x %d" % (name, t.data_ptr(), t.numel() * 4))
# stored data outlasts one read, not two (calibration/h200/README.md);
# L2SIM_FLUSH=N reads it N times instead
total = sum(junk.sum() for _ in range(int(os.environ.get("L2SIM_FLUSH", 2))))
upto = kernelsteps.run(steps)
print("steps %d, %s" % (upto, "finite" if torch.isfinite(total) else "not finite"))
