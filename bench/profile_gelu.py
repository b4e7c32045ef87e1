"""profile_gelu.py - GEMM + bias (+ z) + {relu, gelu, gelu_tanh, silu, exp, sigmoid} at 4096^3,
each under several epilogue row groups (Launch.set_tuning(row_group=G); "-" = the emitter's choice), for tuning
codegen's row_group() and for ncu.  Each result is checked against PyTorch first (evt.check).

    PYTHONPATH=bindings/python python3 bench/profile_gelu.py [--fast-math]

--fast-math: the kernels compiled with fast math (exp, sigmoid, silu, gelu and
gelu_tanh on the approximate ex2 and rcp; relu is the same code either way).
"""
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

import evt

FNS = {"relu": F.relu, "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
       "silu": F.silu, "exp": torch.exp, "sigmoid": torch.sigmoid}
SRC = "\n".join(f"""
epilogue e_{f} {{ in bias : f16[N]  out y : f16[M, N] = {f}(acc + bias) }}
kernel k_{f} = gemm(a: f16 row, b: f16 col, acc: f32) with e_{f}
epilogue z_{f} {{ in bias : f16[N]  in z : f16[M, N]  out y : f16[M, N] = {f}(acc + bias + z) }}
kernel kz_{f} = gemm(a: f16 row, b: f16 col, acc: f32) with z_{f}""" for f in FNS)
FAST = "--fast-math" in sys.argv[1:]
m = evt.compile(source=SRC, name="gelu.evt", fast_math=FAST)
print("fast math" if FAST else "exact builtins (evt_math.h)")
M = N = K = 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
w = torch.randn(N, K, device="cuda", dtype=torch.float16) * K ** -0.5
bias = torch.randn(N, device="cuda", dtype=torch.float16)
z = torch.randn(M, N, device="cuda", dtype=torch.float16) * 0.1
y = torch.empty(M, N, device="cuda", dtype=torch.float16)
acc = a.double() @ w.double().t() + bias.double()
lt = do_bench(lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True), warmup=10, rep=50,
              return_mode="median") * 1e3
print(f"cuBLASLt bias+gelu {lt:.0f} us (0.55x of it = {lt / 0.55:.0f} us)")
for f, ref in FNS.items():
    for kern, extra, r in ((f"k_{f}", {}, ref(acc)), (f"kz_{f}", {"z": z}, ref(acc + z.double()))):
        res = []
        for g in ("-", "1", "2", "4", "8"):
            l = m.kernel(kern).bind(a, w.t(), bias=bias, y=y, **extra)
            l.set_tuning(row_group=0 if g == "-" else int(g))
            y.zero_()
            l.run()
            torch.cuda.synchronize()
            verdict = evt.check(y, r)
            ok = "" if verdict else f"(WRONG {verdict.max_err:.2g}, {verdict.bad} off)"
            res.append(f"G{g}:{do_bench(l.run, warmup=10, rep=50, return_mode='median') * 1e3:.0f}{ok}")
        print(f"{kern:14s}", " ".join(res), flush=True)
