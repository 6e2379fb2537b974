"""torch_reuse.py - fp32 elementwise kernels that re-read tensors at
footprints below, at and beyond the L2's capacity, one kernel per step:

  1  c = a + b        a, b 8 MiB each, written by the set-up just before
  2  d = c * a        c just written, a read again
  3  g = f * 2        f 96 MiB, written long before: streams 192 MiB
  4  e = c + d        c, d after that stream
  5  r = p + q        p, q, r 12 MiB each (36 MiB)
  6  r = p + q        the same again
  7  z = x + y        x, y, z 16 MiB each (48 MiB)
  8  z = x + y        the same again

The set-up writes every input with torch.randn (its kernels have other
names than the steps').  With L2SIM_UPTO=K the program stops the profiler
after step K and ends: `ncu --replay-mode app-range` then measures steps
1..K together (tools/validate/perkernel.sh takes the differences).  Without it, all eight steps run."""
import torch

import kernelsteps
import l2controls

MIB = 1 << 20
torch.manual_seed(0)


def t(mib):
    return torch.randn(mib * MIB // 4, device="cuda")


f = t(96)
p, q = t(12), t(12)
x, y = t(16), t(16)
a, b = t(8), t(8)
c, d, e, g = torch.empty_like(a), torch.empty_like(a), torch.empty_like(a), torch.empty_like(f)
r, z = torch.empty_like(p), torch.empty_like(x)
steps = [
    lambda: torch.add(a, b, out=c),
    lambda: torch.mul(c, a, out=d),
    lambda: torch.mul(f, 2.0, out=g),
    lambda: torch.add(c, d, out=e),
    lambda: torch.add(p, q, out=r),
    lambda: torch.add(p, q, out=r),
    lambda: torch.add(x, y, out=z),
    lambda: torch.add(x, y, out=z),
]
for name, v in (("a", a), ("c", c), ("f", f), ("p", p), ("x", x)):
    print("%s 0x%x %d" % (name, v.data_ptr(), v.numel() * 4))
l2controls.apply({"x": (x.data_ptr(), x.numel() * 4)})
upto = kernelsteps.run(steps)
print("steps %d" % upto)
