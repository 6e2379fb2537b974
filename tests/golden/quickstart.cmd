run --config configs/h100.cfg traces/quickstart.trace
