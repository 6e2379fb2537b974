"""l2controls.py - the L2 controls of an access-policy advice, applied to a
PyTorch program through the CUDA driver API (PyTorch has no call for them):
L2_SETASIDE=BYTES sets the persisting set-aside (cuCtxSetLimit), and
L2_WINDOW=BASE:BYTES:HITRATIO:HITPROP:MISSPROP (properties normal,
streaming or persisting; BASE hex or decimal, or the name of a buffer the
program passes to apply(), whose base and size are used when BYTES is
empty) sets an access-policy window on the current stream
(cuStreamSetAttribute), of at most WINDOW_MAX bytes.  Without them it does
nothing."""
import ctypes
import os

import torch

_PROPS = {"normal": 0, "streaming": 1, "persisting": 2}
# The largest window (sim/advise.h, L2_WINDOW_MAX): the A100's and H100's
# cudaDevAttrMaxAccessPolicyWindowSize.  The H200 reports 134217728 but
# ignores a window that large (tools/validate/results/kvcache-h200/).
WINDOW_MAX = 134213632


class _Window(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int)]


class _AttrValue(ctypes.Union):  # CUstreamAttrValue / CUlaunchAttributeValue: 64 bytes
    _fields_ = [("window", _Window), ("pad", ctypes.c_char * 64)]


def apply(named=None):
    sa, win = os.environ.get("L2_SETASIDE"), os.environ.get("L2_WINDOW")
    if not sa and not win:
        return
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # a current context
    cu = ctypes.CDLL("libcuda.so.1")
    if sa:
        r = cu.cuCtxSetLimit(ctypes.c_int(0x06), ctypes.c_size_t(int(sa)))  # CU_LIMIT_PERSISTING_L2_CACHE_SIZE
        if r:
            raise SystemExit("cuCtxSetLimit(persisting L2) failed: %d" % r)
    if win:
        base, nbytes, ratio, hit, miss = win.split(":")
        if named and base in named:
            base, size = named[base]
            nbytes = nbytes or size
        nbytes = min(int(nbytes), WINDOW_MAX)
        v = _AttrValue()
        v.window = _Window(int(str(base), 0), nbytes, float(ratio), _PROPS[hit], _PROPS[miss])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        r = cu.cuStreamSetAttribute(stream, ctypes.c_int(1), ctypes.byref(v))  # ACCESS_POLICY_WINDOW
        if r:
            raise SystemExit("cuStreamSetAttribute(access policy window) failed: %d" % r)
