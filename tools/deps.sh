#!/bin/sh
# deps.sh PACKAGE... - makes sure the Debian packages the build needs are
# installed.  As root with apt-get it installs what is missing; otherwise it
# stops with the exact command to run.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } >&2 || {
        echo "deps: apt-get install$missing failed" >&2
        exit 1
    }
    exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: run: sudo apt-get install$missing" >&2
exit 1
