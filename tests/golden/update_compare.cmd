compare --config configs/h100.cfg --variant name=annotated --variant name=plain,policy=traces/update-plain.policy --variant name=max-setaside,set=setaside=32768000 traces/update.trace
