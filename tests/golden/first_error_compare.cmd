compare --threads 2 --variant name=a --variant name=b,set=sms=4 tests/golden/first_error_compare.trace
