"""torch_adam.py - PyTorch's fused Adam step (torch._fused_adam_, one
kernel that reads a parameter, its gradient and both moments and writes
the parameter and the moments) over fp32 parameters whose optimizer state
fits the L2, nears its capacity or exceeds it, one kernel per step, after
two reads of 256 MiB that leave nothing of the set-up in L2:

  1  Adam step over a 6 MiB parameter     24 MiB read, 18 written: from DRAM
  2  the same again                        all of it in L2
  3  over a 12 MiB parameter               48 MiB read, 36 written: from DRAM
  4  the same again                        near the L2's capacity
  5  over a 16 MiB parameter               64 MiB read, 48 written: from DRAM
  6  the same again                        beyond it
  7  the 6 MiB parameter again             after the 16 MiB one

The steps' kernels are named FusedAdam (perkernel.sh: l2trace --kernel),
so the model starts from an empty L2.  With L2SIM_UPTO=K the program
stops the profiler after step K and ends: `ncu --replay-mode app-range`
then measures steps 1..K together (tools/validate/perkernel.sh takes the
differences).  Without it, all seven steps run."""
import torch

import kernelsteps
import l2controls

MIB = 1 << 20
torch.manual_seed(0)


def state(mib):
    n = mib * MIB // 4
    p, g, m = (torch.randn(n, device="cuda") for _ in range(3))
    v = torch.rand(n, device="cuda")
    return p, g, m, v, torch.ones((), device="cuda")


def adam(s):
    p, g, m, v, t = s
    return lambda: torch._fused_adam_([p], [g], [m], [v], [], [t], lr=1e-3, beta1=0.9, beta2=0.999,
                                      weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)


a, b, c = state(6), state(12), state(16)
junk = torch.ones(64 * MIB, device="cuda")  # 256 MiB
steps = [adam(a), adam(a), adam(b), adam(b), adam(c), adam(c), adam(a)]
for name, s in (("a", a), ("b", b), ("c", c)):
    print("%s p 0x%x g 0x%x m 0x%x v 0x%x %d" % ((name,) + tuple(x.data_ptr() for x in s[:4]) + (s[0].numel() * 4,)))
l2controls.apply()
# stored data outlasts one read, not two (calibration/h200/README.md);
# the sums are not added on the GPU
sums = (junk.sum(), junk.sum())
upto = kernelsteps.run(steps)
print("steps %d, %.1f" % (upto, sums[0].item() + sums[1].item()))
