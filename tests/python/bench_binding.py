"""Times GEMM + bias + GELU through the Python binding against PyTorch.

    PYTHONPATH=bindings/python python3 tests/python/bench_binding.py [M N K]
    PYTHONPATH=bindings/python python3 tests/python/bench_binding.py --host

The second prints only the host-overhead table (also printed last by the
first): host microseconds per call of a 64x64x64 GEMM, whose GPU time is a
few microseconds, for an unbound kernel(...) call (checks, cached by call
signature; the output allocated), a bound launch.run(), the same kernel as a
torch custom op, and torch.addmm.

bf16, A [M, K] row-major, W an nn.Linear weight [N, K], bias [N]:

- evt: examples.evt's mlp_up, y = gelu(A W^T + b) in one kernel (erf GELU);
- torch: F.gelu(F.linear(A, W, b)): cuBLAS with its bias epilogue, then a GELU kernel;
- cuBLASLt: torch._addmm_activation(b, A, W^T, use_gelu=True), cuBLASLt's fused
  GELU_BIAS epilogue (the tanh approximation of GELU).

Each is timed as the mean of REPS back-to-back launches between two CUDA
events (launch costs hidden behind the GPU's work), after warm-up; evt is
also timed with evt_launch_benchmark, which puts events around every run.
"""

import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

try:
    import evt
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import evt

WARMUP, REPS, ROUNDS = 10, 50, 5


def batch_ms(fn):
    """Median over ROUNDS of the mean time of REPS back-to-back calls."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(ROUNDS):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(REPS):
            fn()
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) / REPS)
    return statistics.median(times)


def host_us(fn, n=200):
    """Host time of one call, microseconds (the GPU is not waited for)."""
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    dt = (time.perf_counter() - t) / n
    torch.cuda.synchronize()
    return dt * 1e6


def host_overhead(module):
    """The host-overhead table: median over ROUNDS of host_us, each call's
    GPU work (a 64x64x64 GEMM) far shorter than its host time."""
    kernel = module.kernel("mlp_up")
    op = kernel.torch_op("evt_bench::mlp_up")
    a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(64, device="cuda", dtype=torch.bfloat16)
    launch = kernel.bind(a, w.t(), b=bias)
    rows = [
        ("evt kernel(a, w.t(), b=bias) (unbound)", lambda: kernel(a, w.t(), b=bias)),
        ("evt launch.run() (bound)", launch.run),
        ("evt custom op (kernel.torch_op)", lambda: op(a, w.t(), bias)),
        ("torch.addmm(bias, a, w.t())", lambda: torch.addmm(bias, a, w.t())),
    ]
    print("\nhost overhead, 64x64x64 bf16 GEMM + bias (+ GELU for evt), median of "
          f"{ROUNDS} rounds of 2000 calls")
    print("\n| call | host us/call |")
    print("| --- | ---: |")
    for label, fn in rows:
        for _ in range(WARMUP):
            fn()
        us = statistics.median(host_us(fn, 2000) for _ in range(ROUNDS))
        print(f"| {label} | {us:.1f} |")


def main():
    module = evt.compile(path=Path(__file__).resolve().parents[2] / "examples" / "examples.evt")
    target, name = evt.device_target()
    print(f"{name} ({target}), torch {torch.__version__}, libevt {evt.library_version}")
    if sys.argv[1:] == ["--host"]:
        host_overhead(module)
        return
    m, n, k = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (4096, 4096, 4096)
    print(f"GEMM + bias + GELU, bf16, M={m} N={n} K={k}")
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)

    kernel = module.kernel("mlp_up")
    t = time.perf_counter()
    kernel(a, w.t(), b=bias, y=y)
    torch.cuda.synchronize()
    first_s = time.perf_counter() - t
    launch = kernel.bind(a, w.t(), b=bias, y=y)

    ref = F.gelu(F.linear(a.double(), w.double(), bias.double()))
    fused = torch._addmm_activation(bias, a, w.t(), use_gelu=True)
    verdicts = {"evt": evt.check(y, ref), "cuBLASLt": evt.check(fused, ref)}
    del ref

    rows = [
        ("evt mlp_up (launch.run)", batch_ms(launch.run), host_us(launch.run)),
        ("evt mlp_up (kernel(...))", batch_ms(lambda: kernel(a, w.t(), b=bias, y=y)),
         host_us(lambda: kernel(a, w.t(), b=bias, y=y))),
        ("torch F.gelu(F.linear)", batch_ms(lambda: F.gelu(F.linear(a, w, bias))),
         host_us(lambda: F.gelu(F.linear(a, w, bias)))),
        ("cuBLASLt _addmm_activation", batch_ms(
            lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)),
         host_us(lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True))),
    ]
    evt_bench = launch.benchmark(warmup=10, reps=50)
    flops = 2.0 * m * n * k
    print("\n| method | ms | TFLOP/s | host us/call |")
    print("| --- | ---: | ---: | ---: |")
    for label, ms, us in rows:
        print(f"| {label} | {ms:.4f} | {flops / ms / 1e9:.0f} | {us:.0f} |")
    print(f"| evt evt_launch_benchmark (events around each run) | {evt_bench:.4f} | "
          f"{flops / evt_bench / 1e9:.0f} | |")
    print(f"\nfirst evt call (NVRTC compile or disk cache, load, run): {first_s:.2f} s")
    print("against F.gelu(F.linear) in float64, by evt.check (cuBLASLt's GELU is the tanh "
          "approximation):")
    for k, v in verdicts.items():
        print(f"  {k}: {v}")
    host_overhead(module)


if __name__ == "__main__":
    main()
