"""Where an unbound kernel(...) call's host time goes (64x64x64 bf16 GEMM +
bias + GELU): each piece of Kernel.__call__ timed alone, then cProfile of
the whole call, then per-round times with the collector on and off.  Run on the GPU machine:
    EVT_LIBRARY=build-gpu/libevt.so PYTHONPATH=bindings/python python3 bench/profile_host.py
"""
import cProfile
import ctypes
import gc
import pstats
import statistics
import time
from pathlib import Path

import torch

import evt
from evt import _lib, _module

lib = _lib.lib


def round_times(fn, n=5000, rounds=5):
    """Host microseconds per call of fn, one figure per round of n calls."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        out.append((time.perf_counter() - t) / n * 1e6)
        torch.cuda.synchronize()
    return out


def us(fn):
    return statistics.median(round_times(fn))


root = Path(__file__).resolve().parents[1]
m = evt.compile(path=str(root / "examples" / "examples.evt"))
kernel = m.kernel("mlp_up")
a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
w = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
bias = torch.randn(64, device="cuda", dtype=torch.bfloat16)
wt = w.t()
y = kernel(a, wt, b=bias)
y = kernel(a, wt, b=bias)  # the first call, before torch is known, is not kept
launch = kernel.bind(a, wt, b=bias)
launch.run()
print("plan:", launch.plan)
key, tensors, stream = kernel._signature((a, wt), {"b": bias})
call = kernel._calls[key]
native = kernel._native(_module._current_stream(0))
s = _module._current_stream(0)
h = launch._live().h
# The floor: cuLaunchKernel of an empty kernel through ctypes, on the same stream.
cu = ctypes.CDLL("libcuda.so.1")
ptx = b""".version 8.0
.target sm_90a
.address_size 64
.visible .entry empty(.param .u64 p) { ret; }
"""
mod, empty_fn = ctypes.c_void_p(), ctypes.c_void_p()
assert cu.cuModuleLoadData(ctypes.byref(mod), ptx) == 0
assert cu.cuModuleGetFunction(ctypes.byref(empty_fn), mod, b"empty") == 0
arg = ctypes.c_uint64(0)
params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(arg), ctypes.c_void_p))
cu.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
def raw_launch():
    cu.cuLaunchKernel(empty_fn, 1, 1, 1, 128, 1, 1, 0, s, params, None)

rows = [
    ("ctypes cuLaunchKernel, empty kernel (floor)", raw_launch),
    ("whole unbound call", lambda: kernel(a, wt, b=bias)),
    ("whole unbound call, w.t() inside", lambda: kernel(a, w.t(), b=bias)),
    ("bound launch.run()", launch.run),
    ("C evt_launch_run_with_workspace (ctypes)", lambda: lib.evt_launch_run_with_workspace(h, s, None, 0)),
    ("C evt_launch_run (ctypes)", lambda: lib.evt_launch_run(h, s)),
    ("ctypes evt_version (call floor)", lambda: lib.evt_version_number()),
    ("_signature", lambda: kernel._signature((a, wt), {"b": bias})),
    ("call.allocate (empty_strided)", lambda: call.allocate(torch)),
    ("call.bind (pointers unchanged)", lambda: call.bind(native, tensors + [y], {})),
    ("native.run", lambda: native.run(s, 0, call)),
    ("_current_stream", lambda: _module._current_stream(0)),
    ("torch.cuda.current_device", torch.cuda.current_device),
    ("module lock", lambda: m._lock.__enter__() or m._lock.__exit__(None, None, None)),
    ("torch.addmm", lambda: torch.addmm(bias, a, wt)),
    ("torch.empty(64,64)", lambda: torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)),
]
print("| piece | us |\n| --- | ---: |")
for label, fn in rows:
    print(f"| {label} | {us(fn):.2f} |")
pr = cProfile.Profile()
pr.enable()
for _ in range(20000):
    kernel(a, wt, b=bias)
pr.disable()
torch.cuda.synchronize()
pstats.Stats(pr).sort_stats("tottime").print_stats(18)

# Each round apart, with the garbage collector on and off: is a spread
# between processes the collector's, or the machine's (addmm moves too)?
for gc_on in (True, False):
    (gc.enable if gc_on else gc.disable)()
    for label, fn in (("evt  ", lambda: kernel(a, w.t(), b=bias)),
                      ("addmm", lambda: torch.addmm(bias, a, w.t()))):
        times = " ".join(f"{x:5.1f}" for x in round_times(fn, n=2000, rounds=7))
        print(f"gc {'on ' if gc_on else 'off'} {label} {times}")
gc.enable()
