run --config configs/h100.cfg --threads 2 - < traces/concurrent.trace
