"""rowgroup_gelu.py - GEMM + bias + GELU f16 at 4096^3 under the emitter's epilogue
row group and under row groups 2, 4, 8, 16 (Launch.set_tuning; codegen/emit_cuda.c, row_group()),
with whatever tile the heuristic picks; each result is checked against PyTorch first (evt.check).

    PYTHONPATH=bindings/python python3 bench/rowgroup_gelu.py
"""
import torch
import torch.nn.functional as F
from triton.testing import do_bench

import evt

m = evt.compile(source="""
epilogue e { in bias : f16[N]  out y : f16[M, N] = gelu(acc + bias) }
kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e
""", name="rowgroup.evt")
M = N = K = 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
w = torch.randn(N, K, device="cuda", dtype=torch.float16) * K ** -0.5
bias = torch.randn(N, device="cuda", dtype=torch.float16)
y = torch.empty(M, N, device="cuda", dtype=torch.float16)
ref = F.gelu(a.double() @ w.double().t() + bias.double())
t = lambda fn: do_bench(fn, warmup=10, rep=100, return_mode="median") * 1e3
res = [f"cuBLASLt {t(lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)):.0f}"]
for rnd in range(2):
    for g in ("-", "2", "4", "8", "16"):
        launch = m.kernel("k").bind(a, w.t(), bias=bias, y=y)
        launch.set_tuning(row_group=0 if g == "-" else int(g))
        launch.run()
        torch.cuda.synchronize()
        verdict = evt.check(y, ref)
        assert verdict, str(verdict)
        res.append(f"G{g}:{t(launch.run):.0f}")
print(" ".join(res))
