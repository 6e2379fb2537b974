run --config configs/h100.cfg --threads 2 --histogram traces/update.trace
