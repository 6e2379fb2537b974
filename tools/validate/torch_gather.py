"""torch_gather.py - irregular reads and writes of real PyTorch kernels, one
kernel per step, after two reads of 256 MiB that leave nothing of the
set-up in L2:

  1  y = s.index_select(0, iu)    s 4 MiB fp32, 256 K uniform int32 ids:
                                  4-byte gathers, each sector read ~2 times
  2  the same again
  3  y = b.index_select(0, ib)    b 128 MiB fp32, 256 K uniform ids
  4  y = b.index_select(0, iz)    256 K power-law ids over b (Zipf-like)
  5  y = b.index_select(0, ih)    256 K ids: 90% in a 16 MiB hot region of
                                  b, the rest uniform over b
  6  the same again
  7  r = e.index_select(0, ir)    e 96 MiB of 128-byte rows (32 fp32),
                                  128 K uniform ids: whole-line gathers
  8  w.index_copy_(0, iw, v)      w 64 MiB fp32, 256 K random int64 slots:
                                  4-byte scattered stores

Every id tensor is int32 but iw (index_copy_ takes int64); y (1 MiB), r
(16 MiB) and v (1 MiB) are written or read whole.  The steps are sized so
that their capture stays small (about 2 M records); l2trace captures only
them (perkernel.sh: --kernel 'gather_|index_copy'), so the model starts
from an empty L2.  With L2SIM_UPTO=K the program stops the profiler after
step K and ends: `ncu --replay-mode app-range` then measures steps 1..K
together (tools/validate/perkernel.sh takes the differences).  Without it,
all eight steps run."""
import torch

import kernelsteps
import l2controls

MIB = 1 << 20
N = 256 << 10
torch.manual_seed(0)


def f32(mib, cols=1):
    return torch.randn(mib * MIB // 4 // cols, cols, device="cuda").squeeze(1)


s, b, e, w = f32(4), f32(128), f32(96, 32), f32(64)
nb = b.numel()
iu = torch.randint(0, s.numel(), (N,), device="cuda", dtype=torch.int32)
ib = torch.randint(0, nb, (N,), device="cuda", dtype=torch.int32)
# power law: rank r drawn with probability ~ 1/(r+1)^1.05, the ranks spread
# over b by an odd multiplier (elementwise kernels only, none named like a step's)
u = torch.rand(N, device="cuda", dtype=torch.float64)
rank = (torch.exp(u * torch.log(torch.tensor(float(nb), dtype=torch.float64))) - 1).long().clamp_(0, nb - 1)
iz = (rank * 2654435761 % nb).int()
del u, rank
hot = 16 * MIB // 4
ih = torch.where(torch.rand(N, device="cuda") < 0.9, torch.randint(0, hot, (N,), device="cuda"),
                 torch.randint(0, nb, (N,), device="cuda")).int()
ir = torch.randint(0, e.shape[0], (128 << 10,), device="cuda", dtype=torch.int32)
iw = torch.randint(0, w.numel(), (N,), device="cuda")
v = torch.randn(N, device="cuda")
y = torch.empty(N, device="cuda")
r = torch.empty(128 << 10, 32, device="cuda")
junk = torch.ones(64 * MIB, device="cuda")  # 256 MiB
steps = [
    lambda: torch.index_select(s, 0, iu, out=y),
    lambda: torch.index_select(s, 0, iu, out=y),
    lambda: torch.index_select(b, 0, ib, out=y),
    lambda: torch.index_select(b, 0, iz, out=y),
    lambda: torch.index_select(b, 0, ih, out=y),
    lambda: torch.index_select(b, 0, ih, out=y),
    lambda: torch.index_select(e, 0, ir, out=r),
    lambda: w.index_copy_(0, iw, v),
]
for name, t in (("s", s), ("b", b), ("e", e), ("w", w)):
    print("%s 0x%x %d" % (name, t.data_ptr(), t.numel() * 4))
l2controls.apply({"hot": (b.data_ptr(), 16 * MIB)})
total = junk.sum() + junk.sum()  # stored data outlasts one read, not two (calibration/h200/README.md)
upto = kernelsteps.run(steps)
print("steps %d, %.1f" % (upto, total.item()))
