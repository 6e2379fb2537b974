run --set l2_size=512 --set ways=4 --set partitions=1 --set setaside=0 --set setaside_max=0 --csv tests/golden/tiny_victims.trace
