compare --jsonl --config configs/h100.cfg --variant name=default --variant name=no-setaside,set=setaside=0 traces/update.trace
