run --expect tests/golden/quickstart_moved.exp --tolerance 0.01 --csv traces/quickstart.trace
