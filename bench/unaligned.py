"""unaligned.py - GEMMs whose operand rows are not 16-byte aligned (an odd K, an
odd N of a row-major B, a padded leading dimension): the heuristic's plan (which
copies such operands into aligned rows ahead of the fast path, api/launch.c's
repack) against the same configuration forced (its guarded entry, no copy) and
against the peer: cuBLASLt's fused bias + GELU for A row-major, B column-major,
and torch.mm + bias + GELU (eager) for a row-major B.  Event-timed
(bench.side_by_side, three alternating rounds), every result checked first.

    PYTHONPATH=bindings/python python3 bench/unaligned.py
"""
import os
import sys

import torch
import torch.nn.functional as F

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import side_by_side  # noqa: E402

SRC = """
epilogue bias_gelu {
    in  bias : f16[N]
    out y    : f16[M, N] = gelu(acc + bias)
}
kernel tn = gemm(a: f16 row, b: f16 col, acc: f32) with bias_gelu
kernel nn = gemm(a: f16 row, b: f16 row, acc: f32) with bias_gelu
"""
m = evt.compile(source=SRC, name="unaligned.evt")

# (kernel, M, N, K, pad of A's leading dimension)
SHAPES = [("tn", 4500, 4500, 4500, 0), ("tn", 4096, 4096, 4001, 0), ("tn", 8000, 3000, 1999, 0),
          ("tn", 1000, 4096, 4095, 0), ("tn", 4096, 4096, 4096, 3), ("nn", 2048, 50257, 1024, 0),
          ("nn", 4096, 3001, 4096, 0)]


def main():
    for kernel, M, N, K, pad in SHAPES:
        torch.manual_seed(M + N + K)
        a = torch.randn(M, K + pad, device="cuda", dtype=torch.float16)[:, :K]
        w = torch.randn(N, K, device="cuda", dtype=torch.float16) * K ** -0.5
        bias = torch.randn(N, device="cuda", dtype=torch.float16)
        ref = F.gelu(a.double() @ w.double().t() + bias.double())
        if kernel == "tn":
            b = w.t()  # column-major B
            peer = lambda: torch._addmm_activation(bias, a, b, use_gelu=True)  # noqa: E731
            peer_name = "cublasLt"
        else:
            b = w.t().contiguous()  # row-major B: K x N
            peer = lambda: F.gelu(torch.addmm(bias, a, b))  # noqa: E731
            peer_name = "eager"
        pick = m.kernel(kernel).bind(a, b, bias=bias)
        pick.run()
        torch.cuda.synchronize()
        verdict = evt.check(pick.result(), ref)
        assert verdict, f"{kernel} {M}x{N}x{K}: {verdict}"
        config = pick.plan.split()[1]
        forced = m.kernel(kernel).bind(a, b, bias=bias).set_tuning(config)
        forced.run()
        torch.cuda.synchronize()
        verdict = evt.check(forced.result(), ref)
        assert verdict, f"{kernel} {M}x{N}x{K} forced: {verdict}"
        ts = side_by_side(peer, pick.run, forced.run, rounds=3)
        print(f"{kernel} {M}x{N}x{K} pad {pad}: {peer_name} {ts[0] * 1e6:.1f}  pick {ts[1] * 1e6:.1f} "
              f"[{pick.plan}]  forced {ts[2] * 1e6:.1f} [{forced.plan}]  peer/pick {ts[0] / ts[1]:.2f}", flush=True)
        for launch in (pick, forced):
            launch.close()
        del ref
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
