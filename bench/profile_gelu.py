"""profile_gelu.py - GEMM + bias + {relu, gelu, gelu_tanh, silu, exp} at 4096^3, for ncu and timing."""
import torch
from triton.testing import do_bench
import evt

SRC = "\n".join(f"""
epilogue e_{f} {{ in bias : f16[N]  out y : f16[M, N] = {f}(acc + bias) }}
kernel k_{f} = gemm(a: f16 row, b: f16 col, acc: f32) with e_{f}""" for f in ("relu", "gelu", "gelu_tanh", "silu", "exp", "sigmoid"))
m = evt.compile(source=SRC, name="gelu.evt")
M = N = K = 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
w = torch.randn(N, K, device="cuda", dtype=torch.float16) * K ** -0.5
bias = torch.randn(N, device="cuda", dtype=torch.float16)
y = torch.empty(M, N, device="cuda", dtype=torch.float16)
for f in ("relu", "gelu", "gelu_tanh", "silu", "exp", "sigmoid"):
    l = m.kernel(f"k_{f}").bind(a, w.t(), bias=bias, y=y)
    l.run()
    torch.cuda.synchronize()
    print(f, f"{do_bench(l.run, warmup=10, rep=50, return_mode='median') * 1e3:.0f} us", flush=True)
