run --config configs/h100.cfg --json traces/update.trace
