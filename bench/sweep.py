"""sweep.py - time one fused kernel under every tile configuration that can
run it on this GPU (each name of evt.configs() that Kernel.configs(target)
keeps, forced with Launch.set_tuning), then under the planner's pick, to tune
the heuristics of kernels/*.cuh.  Each result is checked first (evt.check
against a float32 PyTorch reference).
The conv shapes run under the emitter's epilogue row group, and under each
of SWEEP_G's (e.g. SWEEP_G="- 4 16": the row_group of the tuning,
codegen/emit_cuda.c); SWEEP_IDS="sm90_wg2_128x128x32_s6 sm90_pp2_128x128x64_s4"
times only those configurations.

    PYTHONPATH=bindings/python python3 bench/sweep.py [gemm] [conv]
"""
import os
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

import evt

cl = torch.channels_last
dev = torch.device("cuda")
SRC = """
epilogue gelu_b { in bias : f16[N]  out y : f16[M, N] = gelu(acc + bias) }
epilogue relu_b { in bias : f16[N]  out y : f16[M, N] = relu(acc + bias) }
epilogue add_relu { in bias : f16[N]  in z : f16[M, N]  out y : f16[M, N] = relu(acc + bias + z) }
kernel g_gelu = gemm(a: f16 row, b: f16 col, acc: f32) with gelu_b
kernel g_relu = gemm(a: f16 row, b: f16 col, acc: f32) with relu_b
kernel c_add_relu = conv2d_fprop(x: f16, w: f16, acc: f32) with add_relu
"""
m = evt.compile(source=SRC, name="sweep.evt")
TARGET = evt.device_target()[0]


def t(fn):
    return do_bench(fn, warmup=10, rep=50, return_mode="median") * 1e3  # us


def sweep(label, launch, check, row_group=0):
    res = []
    names = os.environ.get("SWEEP_IDS")  # e.g. "sm90_pp2_128x128x64_s4": only these
    for config in names.split() if names else launch.kernel.configs(TARGET):
        try:
            launch.set_tuning(config, row_group=row_group)
            launch.run()
            torch.cuda.synchronize()
            check()
            res.append(f"{config}:{t(launch.run):.0f}")
        except Exception as e:
            res.append(f"{config}:err({str(e)[:40]})")
    launch.set_tuning(row_group=row_group)
    launch.run()
    torch.cuda.synchronize()
    res.append(f"pick:{t(launch.run):.0f}")
    print(label, " ".join(res), flush=True)


parts = sys.argv[1:] or ["gemm", "conv"]
for M, N, K in [] if "gemm" not in parts else [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 1024, 4096), (2048, 2048, 2048)]:
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    w = torch.randn(N, K, device=dev, dtype=torch.float16) * K ** -0.5
    bias = torch.randn(N, device=dev, dtype=torch.float16)
    y = torch.empty(M, N, device=dev, dtype=torch.float16)
    ref = (a.double() @ w.double().t() + bias.double())
    for name, f in (("g_gelu", F.gelu), ("g_relu", F.relu)):
        r = f(ref)
        def chk(r=r):
            verdict = evt.check(y, r)
            assert verdict, str(verdict)
        sweep(f"{name} {M}x{N}x{K} lt={t(lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)):.0f}",
              m.kernel(name).bind(a, w.t(), bias=bias, y=y), chk)

for n, h, w_, c, k, r, s, pad, cud in [] if "conv" not in parts else [(128, 56, 56, 64, 256, 1, 1, 0, 164), (128, 56, 56, 64, 64, 3, 3, 1, 83.5),
                                        (128, 28, 28, 128, 512, 1, 1, 0, 69.7), (128, 14, 14, 256, 1024, 1, 1, 0, 48.8),
                                        (128, 14, 14, 256, 256, 3, 3, 1, 56.8), (128, 7, 7, 512, 2048, 1, 1, 0, 36.4)]:
    xx = torch.randn(n, c, h, w_, device=dev, dtype=torch.float16).to(memory_format=cl)
    ww = (torch.randn(k, c, r, s, device=dev, dtype=torch.float16) * (c * r * s) ** -0.5).to(memory_format=cl)
    bias = torch.randn(k, device=dev, dtype=torch.float16)
    P, Q = h + 2 * pad - r + 1, w_ + 2 * pad - s + 1
    z = torch.randn(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
    y = torch.empty(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
    ref = F.relu(F.conv2d(xx.double(), ww.double(), bias.double(), 1, pad) + z.double())
    def chk():
        verdict = evt.check(y, ref)
        assert verdict, str(verdict)
    cudnn = t(lambda: torch.cudnn_convolution_add_relu(xx, ww, z, 1.0, bias, (1, 1), (pad, pad), (1, 1), 1))
    for g in os.environ.get("SWEEP_G", "-").split():
        sweep(f"conv {n}x{h}x{w_}x{c}->{k} {r}x{s} G{g} cudnn={cudnn:.0f}",
              m.kernel("c_add_relu").bind(xx, ww, bias=bias, z=z, y=y, padding=pad), chk,
              row_group=0 if g == "-" else int(g))
