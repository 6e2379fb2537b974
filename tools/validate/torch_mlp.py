"""torch_mlp.py - an fp16 MLP: three 4096x4096 linear layers (32 MiB of
weights each) with GELU, batch 256, two forward passes."""
import torch

torch.manual_seed(0)
d = 4096
m = torch.nn.Sequential(torch.nn.Linear(d, d), torch.nn.GELU(), torch.nn.Linear(d, d), torch.nn.GELU(),
                        torch.nn.Linear(d, d)).cuda().half()
x = torch.randn(256, d, device="cuda", dtype=torch.float16)
with torch.no_grad():
    for _ in range(2):
        y = m(x)
torch.cuda.synchronize()
print("sum %.3f" % y.float().sum().item())
