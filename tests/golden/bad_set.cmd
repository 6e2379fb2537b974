run --set ways=0 traces/quickstart.trace
