"""torch_block.py - one transformer encoder block in fp16 (d_model 1024, 16
heads, feed-forward 4096), batch 8 x 512 tokens, two forward passes."""
import torch

torch.manual_seed(0)
blk = torch.nn.TransformerEncoderLayer(1024, 16, 4096, dropout=0.0, batch_first=True).cuda().half().eval()
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.float16)
with torch.no_grad():
    for _ in range(2):
        y = blk(x)
torch.cuda.synchronize()
print("sum %.3f" % y.float().sum().item())
