run --config configs/a100.cfg --set sms=132 --semantics documented --csv traces/quickstart.trace
