"""Per-round host time of an unbound call and torch.addmm, with the garbage
collector on and off: is the spread between processes the collector's?"""
import gc
import sys
import time
from pathlib import Path

import torch

import evt

root = Path(__file__).resolve().parents[1]
kernel = evt.compile(path=str(root / "examples" / "examples.evt")).kernel("mlp_up")
a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
w = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
bias = torch.randn(64, device="cuda", dtype=torch.bfloat16)


def rounds(fn, n=2000, k=7):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(k):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        out.append((time.perf_counter() - t) / n * 1e6)
        torch.cuda.synchronize()
    return " ".join(f"{x:5.1f}" for x in out)


for gc_on in (True, False):
    (gc.enable if gc_on else gc.disable)()
    print(f"gc {'on ' if gc_on else 'off'} evt   ", rounds(lambda: kernel(a, w.t(), b=bias)))
    print(f"gc {'on ' if gc_on else 'off'} addmm ", rounds(lambda: torch.addmm(bias, a, w.t())))
