run --config configs/a100.cfg --semantics documented --csv traces/quickstart.trace
