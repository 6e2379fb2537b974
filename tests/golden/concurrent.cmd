run --config configs/h100.cfg traces/concurrent.trace
