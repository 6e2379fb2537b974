#!/bin/sh
# golden.sh [--update] L2SIM - runs every golden case and diffs its output
# (standard output, standard error and exit code) with the committed
# expectation, byte for byte.
#
# A case is tests/golden/NAME.cmd: one line of arguments for l2sim, run from
# the repository root.  Its expectation is tests/golden/NAME.out.  To
# regenerate after an intended model change: make golden-update, then read
# `git diff tests/golden` and explain every number that moved in the commit.
set -u
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
l2sim=${1:?usage: golden.sh [--update] L2SIM}
pass=0 fail=0
for cmd in tests/golden/*.cmd; do
    name=${cmd%.cmd}
    exp="$name.out"
    got=$(mktemp)
    # shellcheck disable=SC2046
    eval "$l2sim $(cat "$cmd")" > "$got" 2>&1
    echo "exit $?" >> "$got"
    if [ $update = 1 ]; then
        cp "$got" "$exp"
        echo "golden: wrote $exp"
    elif diff -u "$exp" "$got" > "$got.diff" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "golden: $(basename "$name") differs:"
        head -40 "$got.diff"
    fi
    rm -f "$got" "$got.diff"
done
[ $update = 1 ] && exit 0
echo "golden: $pass passed, $fail failed"
[ $fail = 0 ]
