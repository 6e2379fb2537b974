advise --config configs/h100.cfg --policy traces/update-plain.policy --top 2 traces/update.trace
