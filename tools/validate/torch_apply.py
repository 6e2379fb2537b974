#!/usr/bin/env python3
"""torch_apply.py ADVISE.json CAPTURE.out - advise's suggestions that a
PyTorch program can apply without code changes (one access-policy window
per stream, and a set-aside), as the environment of l2controls.py: prints
one line `RANK L2_SETASIDE=... L2_WINDOW=NAME::RATIO:HIT:MISS` for each.
CAPTURE.out is what the program printed while it was captured ("NAME ADDR
BYTES" lines), which names the allocation each suggestion refers to: a
buffer holding exactly one named tensor.  A buffer assigned persisting or
streaming becomes a window over its tensor with that property for hits and
misses (hitRatio 1: every line; missProp streaming, unused); a window plan
keeps its hitRatio."""
import json
import sys

adv = json.load(open(sys.argv[1]))
tensors = {}
for line in open(sys.argv[2]):
    w = line.split()
    if len(w) == 3 and w[1].startswith("0x"):
        tensors[w[0]] = (int(w[1], 16), int(w[2]))
bufs = {b["name"]: (int(b["base"], 16), b["bytes"]) for b in adv["buffers"]}


def tensor_of(buf):
    base, size = bufs[buf]
    inside = [k for k, (p, b) in tensors.items() if base <= p and p + b <= base + size]
    return inside[0] if len(inside) == 1 else None


for s in adv["suggestions"]:
    env = []
    if s["setaside"] is not None:
        env.append("L2_SETASIDE=%d" % s["setaside"])
    if s["window"] and not s["assign"]:
        t = tensor_of(s["window"]["buffer"])
        if t:
            print(s["rank"], " ".join(env + ["L2_WINDOW=%s::%.4f:persisting:streaming" % (t, s["window"]["hit_ratio"])]))
    elif len(s["assign"]) == 1 and not s["window"]:
        (buf, prop), = s["assign"].items()
        t = tensor_of(buf)
        if t and prop in ("persisting", "streaming"):
            print(s["rank"], " ".join(env + ["L2_WINDOW=%s::1.0:%s:streaming" % (t, prop)]))
