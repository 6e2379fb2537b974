"""kernelsteps.py - the measured part of a tools/validate/perkernel.sh
workload: its steps, one kernel each, between the profiler's start and
stop (the range `ncu --replay-mode app-range` measures).  With
L2SIM_UPTO=K only the first K steps run, so that perkernel.sh can take
step K's counters as range K's minus range K-1's."""
import os

import torch


def run(steps):
    """Runs the steps (callables), or the first L2SIM_UPTO of them, inside
    the profiled range; returns how many ran."""
    upto = int(os.environ.get("L2SIM_UPTO", len(steps)))
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for step in steps[:upto]:
        step()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    return upto
