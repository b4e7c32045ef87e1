"""profile_gemm.py - GEMM + bias + GELU launches, ours and cuBLASLt's
(torch._addmm_activation), for ncu:
    ncu --kernel-name regex:'evt_|nvjet|gemm' --launch-skip 4 --launch-count 2 \
        python3 bench/profile_gemm.py [M N K]
(default 4096 4096 4096; B is an nn.Linear weight, column-major; PROFILE_CONFIG
forces a configuration by name; PROFILE_FAST=1: ours is gelu_tanh under fast
math, the function cuBLASLt's epilogue computes, instead of the exact gelu).  Each
iteration launches ours, then the peer.
"""
import os
import sys

import torch
import evt

SRC = """
epilogue bias_gelu { in bias : f16[N]  out y : f16[M, N] = gelu(acc + bias) }
kernel linear_gelu = gemm(a: f16 row, b: f16 col, acc: f32) with bias_gelu
"""
M, N, K = [int(v) for v in sys.argv[1:4]] if len(sys.argv) > 3 else (4096, 4096, 4096)
FAST = bool(os.environ.get("PROFILE_FAST"))
if FAST:
    SRC = SRC.replace("gelu(acc", "gelu_tanh(acc")
m = evt.compile(source=SRC, name="profile_gemm.evt", fast_math=FAST)
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
w = torch.randn(N, K, device="cuda", dtype=torch.float16) * K ** -0.5
bias = torch.randn(N, device="cuda", dtype=torch.float16)
launch = m.kernel("linear_gelu").bind(a, w.t(), bias=bias)
if os.environ.get("PROFILE_CONFIG"):  # a configuration forced by name instead of the pick
    launch.set_tuning(os.environ["PROFILE_CONFIG"])
for _ in range(4):
    launch.run()
    torch._addmm_activation(bias, a, w.t(), use_gelu=True)
torch.cuda.synchronize()
print("plan:", launch.plan)
