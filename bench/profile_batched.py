"""profile_batched.py - batched GEMM + bias + activation launches, ours and
torch.bmm's (cuBLAS strided batched, no epilogue), for ncu: the issue-19 gap
against bmm where the output is most of the bytes (short K).
    ncu --kernel-name regex:'evt_|gemm|nvjet' --launch-skip 4 --launch-count 2 \
        python3 bench/profile_batched.py [M N K L]
(default 2048 2048 128 32; bf16, a [L, M, K], B the transposed view of a
[L, N, K] weight, a shared [N] bias; PROFILE_ACT=gelu for the exact GELU,
relu by default; PROFILE_TANH=1 makes the GELU gelu_tanh under fast math, as
bench_batched's --gelu tanh --fast-math; PROFILE_CONFIG forces a
configuration by name).  Each
iteration launches ours, then bmm.  Our result is checked against float64
before the launches ncu counts.
"""
import os
import sys

import torch

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_batched import EVT_SOURCE, ACTS  # noqa: E402  (the batched table's kernels and references)
from bench import gelu_tanh_source, gelu_of  # noqa: E402

ACT = os.environ.get("PROFILE_ACT", "relu")
if ACT not in ACTS:
    sys.exit(f"profile_batched: PROFILE_ACT is one of {', '.join(ACTS)}, not {ACT}")
M, N, K, L = [int(v) for v in sys.argv[1:5]] if len(sys.argv) > 4 else (2048, 2048, 128, 32)
TANH = os.environ.get("PROFILE_TANH") == "1"
if TANH and ACT != "gelu":
    sys.exit("profile_batched: PROFILE_TANH=1 is for PROFILE_ACT=gelu")
m = evt.compile(source=gelu_tanh_source(EVT_SOURCE) if TANH else EVT_SOURCE, name="profile_batched.evt",
                fast_math=TANH)
a = torch.randn(L, M, K, device="cuda", dtype=torch.bfloat16)
w = torch.randn(L, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
bias = torch.randn(N, device="cuda", dtype=torch.bfloat16)
b = w.transpose(1, 2)
out = torch.empty(L, M, N, device="cuda", dtype=torch.bfloat16)
launch = m.kernel(f"{ACT}_bf16").bind(a, b, bias=bias, y=out)
if os.environ.get("PROFILE_CONFIG"):  # a configuration forced by name instead of the pick
    c = os.environ["PROFILE_CONFIG"]  # NAME:sh: the shared-memory epilogue, not the direct one
    launch.set_tuning(c.removesuffix(":sh"), shared_epilogue=c.endswith(":sh"))
launch.run()
ref = (gelu_of("tanh") if TANH else ACTS[ACT])(torch.matmul(a.double(), b.double()) + bias.double())
verdict = evt.check(out, ref)
if not verdict:
    sys.exit(f"profile_batched: wrong result, not profiled: {verdict}")
for _ in range(4):
    launch.run()
    torch.bmm(a, b)
torch.cuda.synchronize()
print("plan:", launch.plan)
