"""torch_mlp.py - a tiny PyTorch program for l2trace: two fp16 linear
layers on a batch of 64, one forward pass."""
import torch

torch.manual_seed(0)
x = torch.randn(64, 1024, device="cuda", dtype=torch.float16)
m = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024)).cuda().half()
with torch.no_grad():
    y = m(x)
torch.cuda.synchronize()
print("sum %.3f" % y.float().sum().item())
