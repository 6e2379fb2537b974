run tests/golden/first_error.trace
