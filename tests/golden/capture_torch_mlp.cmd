run --config configs/h100.cfg traces/torch_mlp.l2b.zst
