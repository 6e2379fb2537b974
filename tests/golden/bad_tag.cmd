run tests/golden/bad_tag.trace
