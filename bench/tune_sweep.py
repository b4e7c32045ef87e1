#!/usr/bin/env python3
"""tune_sweep.py - every plan's time on a wide set of shapes, for fitting the
heuristic: `evtc tune --dry-run` (nothing recorded) per shape, GEMM and conv.

$SWEEP_GEMM_KERNELS names the GEMM kernels of examples/examples.evt to sweep
(default mlp_up: bias + GELU, bf16; train_fwd: bias + ReLU + aux + amax, f16).
$TUNE_GEMM_SHAPES replaces the GEMM shapes with its own, as evtc's --gemm
sizes (M,N,K ...), e.g. drawn at random to find where the heuristic misses.
$TUNE_CONV_LAYERS replaces the conv layers with its own, as evtc's --conv
sizes (N,H,W,C,K,R,S,PAD,STRIDE,DILATION ...): session 37 drew them at
random, off the benchmark's list, to find where the heuristic misses
(docs/conv2d_fprop.md, "Mined from the tuner").

Prints one line per shape (the heuristic's plan and time, the fastest plan and
time, the speed-up tuning gives) and writes every plan's time to
$OUT/tune_sweep.csv (shape, kernel, config, split, ms, heuristic, best).

    EVTC=build-gpu/evtc python3 bench/tune_sweep.py [gemm] [conv]

The shapes spread wide rather than deep: M from 1 to 16384 against the N x K
of transformer layers and square ones; conv layers 1x1, 3x3 and 7x7, stride 1
and 2, batch 1 to 256, channel counts that are not multiples of 64.
"""
import csv
import os
import re
import subprocess
import sys
import time

from shapes import WIDE_CONV

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVTC = os.environ.get("EVTC", os.path.join(ROOT, "build-gpu", "evtc"))
OUT = os.environ.get("OUT", ".")

GEMM_MS = [1, 32, 128, 256, 512, 1024, 2048, 4096, 16384]
GEMM_NK = [(4096, 4096), (11008, 4096), (4096, 11008), (2560, 2560), (14336, 4096), (1024, 4096),
           (768, 768), (256, 256), (16384, 1024)]

ROW = re.compile(r"^(\S+)\s+(\d+)\s+([0-9.]+|-)\s+")


def tune(kernel_file, kernel, size_flag, size):
    cmd = [EVTC, "tune", kernel_file, "--kernel", kernel, size_flag, size, "--dry-run",
           "--max-seconds", "20", "--seed", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stdout + p.stderr
    rows, heuristic, best = [], None, None
    for line in p.stdout.splitlines():
        m = ROW.match(line)
        if m and m.group(1) != "configuration":
            ms = None if m.group(3) == "-" else float(m.group(3))
            rows.append((m.group(1), int(m.group(2)), ms, "heuristic" in line, " best" in line))
    for r in rows:
        if r[3]:
            heuristic = r
        if r[4]:
            best = r
    return (rows, heuristic, best), p.stdout


def main():
    which = sys.argv[1:] or ["gemm", "conv"]
    jobs = []
    if "gemm" in which:
        for kernel in os.environ.get("SWEEP_GEMM_KERNELS", "mlp_up").split():
            sizes = os.environ.get("TUNE_GEMM_SHAPES", "").split() or [
                f"{m},{n},{k}" for n, k in GEMM_NK for m in GEMM_MS]
            for size in sizes:
                jobs.append(("examples/examples.evt", kernel, "--gemm", size))
    if "conv" in which:
        # evtc's --conv sizes: $TUNE_CONV_LAYERS's, or the wide sweep's layers
        sizes = os.environ.get("TUNE_CONV_LAYERS", "").split() or [
            f"{n},{h},{w},{ci},{co},{r},{s},{pad},{stride},1" for n, h, w, ci, co, r, s, pad, stride in WIDE_CONV]
        for size in sizes:
            jobs.append(("examples/resnet_block.evt", "resnet_add_relu", "--conv", size))
    os.makedirs(OUT, exist_ok=True)
    start = time.time()
    speedups = []
    with open(os.path.join(OUT, "tune_sweep.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["shape", "kernel", "config", "split", "ms", "heuristic", "best"])
        print(f"{'kernel':16} {'shape':28} {'heuristic':34} {'ms':>9} {'best':34} {'ms':>9} {'x':>6}")
        for path, kernel, flag, size in jobs:
            got, log = tune(os.path.join(ROOT, path), kernel, flag, size)
            if got is None:
                print(f"{kernel:16} {size:28} FAILED: {log.strip().splitlines()[-1:]}")
                continue
            rows, h, b = got
            for r in rows:
                out.writerow([size, kernel, r[0], r[1], "" if r[2] is None else r[2], int(r[3]), int(r[4])])
            if h and b and h[2] and b[2]:
                speedups.append(h[2] / b[2])
                print(f"{kernel:16} {size:28} {h[0] + ' /' + str(h[1]):34} {h[2]:9.4f} "
                      f"{b[0] + ' /' + str(b[1]):34} {b[2]:9.4f} {h[2] / b[2]:6.2f}", flush=True)
    if speedups:
        g = 1.0
        for s in speedups:
            g *= s
        g **= 1.0 / len(speedups)
        worst = max(speedups)
        print(f"{len(speedups)} shapes in {time.time() - start:.0f} s: tuning's speed-up over the "
              f"heuristic geomean {g:.3f}x, at most {worst:.2f}x; heuristic within 5% of the best on "
              f"{sum(s <= 1.05 for s in speedups)}")


if __name__ == "__main__":
    main()
