"""bench.py - our fused kernels against the peers, on the same inputs, in one run.

    PYTHONPATH=bindings/python python3 bench/bench.py [--quick] [--wide] [--out docs/benchmarks.md]

--wide adds the sweep of issue 15: GEMM + bias + GELU (f16 and bf16, M from 1
to 16384, N and K from 256 to 16384, transformer shapes among them) against
cuBLASLt's fused epilogue, and relu(conv + b + z) (1x1, 3x3, 7x7, stride 1 and
2, batch 1 to 256, channel counts that are not multiples of 64) against cuDNN's
fused kernel, each with the heuristic's plan and with the plan Launch.tune
measured (in a tuning database of this run), the configuration of each named.
WIDE_PARTS="gemm" or "conv" runs one half; WIDE_FAST=1 compiles our kernels
under fast math (the GELU on the approximate ex2 and rcp, docs/codegen.md).
WIDE_GELU=tanh times `gelu_tanh` in place of `gelu` (erf): the function cuBLASLt's
epilogue computes, so the like-for-like GEMM half (with WIDE_FAST=1, a few
instructions on ex2 and rcp, as cuBLASLt's on the hardware tanh); at short K the erf GELU's instructions alone
take longer than cuBLASLt's whole kernel (docs/benchmarks.md, session 42).
WIDE_NK="11008x4096 2560x2560 ...": only those N x K pairs of the GEMM half,
each with the same four M and types as in the whole sweep (the GEMM half
with tuning and the tanh GELU outgrew one ten-minute device call in session
43: 36 of its 44 shapes).  WIDE_SHAPES="MxNxK ...": these GEMM shapes in
place of the sweep's (f16 and bf16 in turn), e.g. bench/heldout.py's draw.

GEMM + bias + GELU (f16; A row-major, B column-major = an nn.Linear weight)
against cuBLASLt's fused epilogue (torch._addmm_activation), eager PyTorch and
plain cuBLAS; conv2d fprop + bias + ReLU + residual on the six ResNet-50
shapes of ../shared/anchors/README.md against cuDNN's fused kernel
(torch.cudnn_convolution_add_relu), eager PyTorch and torch.compile.  Every
time is the median of CUDA-event timings from triton.testing.do_bench, the
same for us and the peers.  Every one of our results is first checked
against PyTorch (a float64 reference of the same inputs, as the policy
wants it) by evt.check, the library's verification policy, so a fast
wrong kernel cannot appear in the table.

Floor = max(FLOPs / peak, bytes / bandwidth) with peak = the cuBLAS f16
8192^3 rate and bandwidth = a device-to-device copy, both measured in this
run; "floor/time" is the fraction of that roofline a kernel reaches.
"""
import argparse
import datetime
import os
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

import evt
from shapes import WIDE_CONV

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
cl = torch.channels_last


def t(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e-3  # seconds


def side_by_side(*fns, rounds=5, rotate=False):
    """Times fns in turn, `rounds` times over, and returns each one's median of its
    round medians: clocks and L2 state drift over a run (the same kernel moved 10%
    between measurements minutes apart), and alternating keeps that drift out of the
    ratios.  rotate: each round starts one function later, so that no function
    always runs in the same place; the one timed right after the peer ran 2-3%
    slower than the same kernel timed later in the round (docs/fp8.md).  The
    rounds are then a whole number of rotations (rounded up), so that every
    function takes every place equally often: with fewer, one of them sat
    right after the peer in three rounds of four (docs/fp8.md, session 42)."""
    times = [[] for _ in fns]
    if rotate:
        rounds = -(-rounds // len(fns)) * len(fns)
    for r in range(rounds):
        for j in range(len(fns)):
            i = (j + r) % len(fns) if rotate else j
            times[i].append(t(fns[i]))
    return [sorted(ts)[len(ts) // 2] for ts in times]


EVT_SOURCE = """
epilogue bias_gelu {
    in  bias : f16[N]
    out y    : f16[M, N] = gelu(acc + bias)
}
kernel linear_gelu = gemm(a: f16 row, b: f16 col, acc: f32) with bias_gelu

epilogue bias_relu_add {
    in  bias : f16[N]
    in  z    : f16[M, N]
    out y    : f16[M, N] = relu(acc + bias) + z
}
kernel linear_relu_add = gemm(a: f16 row, b: f16 col, acc: f32) with bias_relu_add
kernel conv_relu_add = conv2d_fprop(x: f16, w: f16, acc: f32) with bias_relu_add

epilogue bias_add_relu {
    in  bias : f16[N]
    in  z    : f16[M, N]
    out y    : f16[M, N] = relu(acc + bias + z)
}
kernel conv_add_relu = conv2d_fprop(x: f16, w: f16, acc: f32) with bias_add_relu
"""


# cuBLASLt's GELU epilogue is the tanh approximation on the hardware tanh
# (docs/sm90.md): the like-for-like kernel is gelu_tanh under fast math.
FAST_SOURCE = """
epilogue bias_gelu_tanh {
    in  bias : f16[N]
    out y    : f16[M, N] = gelu_tanh(acc + bias)
}
kernel linear_gelu_tanh = gemm(a: f16 row, b: f16 col, acc: f32) with bias_gelu_tanh
"""


def forced(name):
    """A forced configuration's name with its suffixes, ":sk" (stream-K),
    ":g<n>" (the epilogue's row group), ":k<n>" (split-K n ways), ":sh" (the
    epilogue through shared memory, not in registers) and ":dr" (in
    registers wherever it can), as set_tuning's arguments; the name "pick"
    is the heuristic's configuration."""
    parts = name.split(":")
    kw = {"stream_k": 2 if "sk" in parts[1:] else 1,
          "shared_epilogue": True if "sh" in parts[1:] else -1 if "dr" in parts[1:] else False}
    for p in parts[1:]:
        if p.startswith("g"):
            kw["row_group"] = int(p[1:])
        if p.startswith("k") and p[1:].isdigit():
            kw["split_k"] = int(p[1:])
    return (None if parts[0] == "pick" else parts[0]), kw


def gelu_tanh_source(source):
    """source with every `gelu(acc` made `gelu_tanh(acc` (the tanh form,
    cuBLASLt's function); refused where there is none, so that a changed
    source cannot time the erf GELU under the tanh form's name."""
    if "gelu(acc" not in source:
        raise SystemExit("gelu_tanh_source: the source has no gelu(acc ...)")
    return source.replace("gelu(acc", "gelu_tanh(acc")


def gelu_of(form):
    """The float64 reference's GELU of form "erf" or "tanh"."""
    return (lambda x: F.gelu(x, approximate="tanh")) if form == "tanh" else F.gelu


def check(name, got, ref):
    """Judges got against ref by libevt's verification policy (evt.check, the
    one of evtc run --check); a wrong kernel ends the run before it is timed."""
    verdict = evt.check(got, ref)
    if not verdict:
        raise SystemExit(f"{name}: {verdict}: not timing a wrong kernel")
    return verdict.max_err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="two GEMM and two conv cases")
    ap.add_argument("--out", default=None, help="write the tables as markdown here")
    ap.add_argument("--wide", action="store_true", help="also the wide sweep, heuristic and tuned")
    ap.add_argument("--only-wide", action="store_true", help="only the wide sweep")
    args = ap.parse_args()

    p = torch.cuda.get_device_properties(0)
    header = (f"{p.name}, {p.multi_processor_count} SMs, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, evt {evt.library_version}, "
              f"{datetime.date.today().isoformat()}")
    print("#", header)

    # Ceilings, measured now.
    x = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    y = torch.empty_like(x)
    bw = 2 * x.numel() / t(lambda: y.copy_(x))
    del x, y
    a = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
    peak = 2 * 8192 ** 3 / t(lambda: a @ b)
    del a, b
    print(f"# ceilings: copy {bw / 1e9:.0f} GB/s, cuBLAS f16 8192^3 {peak / 1e12:.0f} TFLOP/s")

    m = evt.compile(source=EVT_SOURCE, name="bench.evt")
    lines = [f"# Benchmarks\n", f"Measured by `bench/bench.py` on {header}.",
             f"Ceilings in the same run: copy {bw / 1e9:.0f} GB/s, cuBLAS f16 8192^3 "
             f"{peak / 1e12:.0f} TFLOP/s. Times are medians of CUDA-event timings "
             "(triton do_bench, L2 flushed) in µs, each the median of five rounds that alternate "
             "our kernel and the peers; ratios are peer time / our time (above 1: we are faster); "
             "floor/time is the fraction of the roofline floor reached.\n"]

    if args.only_wide:
        lines += wide(m, peak, bw)
        return write(args, lines)

    # ---- GEMM + bias + GELU -------------------------------------------------
    gemm_cases = [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 1024, 4096), (2048, 2048, 2048)]
    if args.quick:
        gemm_cases = gemm_cases[:2]
    lines += ["## GEMM + bias + GELU (f16, B = nn.Linear weight)\n",
              "evt: `gelu` (erf), exact; evt fast: `gelu_tanh` under fast math (what cuBLASLt's "
              "epilogue computes), checked against the float64 tanh GELU.\n",
              "| M×N×K | evt µs | TFLOP/s | GB/s | floor/time | cuBLASLt fused µs | ratio | "
              "evt fast µs | ratio | eager µs | ratio | plain mm µs |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    k_gelu = m.kernel("linear_gelu")
    k_fast = evt.compile(source=FAST_SOURCE, name="bench_fast.evt", fast_math=True).kernel("linear_gelu_tanh")
    for M, N, K in gemm_cases:
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        w = torch.randn(N, K, device=dev, dtype=torch.float16) * K ** -0.5
        bias = torch.randn(N, device=dev, dtype=torch.float16)
        out = torch.empty(M, N, device=dev, dtype=torch.float16)
        launch = k_gelu.bind(a, w.t(), bias=bias, y=out)
        launch.run()
        torch.cuda.synchronize()
        check(f"gemm {M}x{N}x{K}", out, F.gelu(a.double() @ w.double().t() + bias.double()))
        out_f = torch.empty_like(out)
        fast = k_fast.bind(a, w.t(), bias=bias, y=out_f)
        fast.run()
        torch.cuda.synchronize()
        check(f"gemm fast {M}x{N}x{K}", out_f,
              F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh"))
        ours, lt, ours_f, eager, mm = side_by_side(
            launch.run, lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True), fast.run,
            lambda: F.gelu(a @ w.t() + bias), lambda: a @ w.t())
        fl = 2 * M * N * K
        by = 2 * (M * K + N * K + M * N + N)
        floor = max(fl / peak, by / bw)
        row = (f"| {M}×{N}×{K} | {ours * 1e6:.1f} | {fl / ours / 1e12:.0f} | {by / ours / 1e9:.0f} | "
               f"{floor / ours:.2f} | {lt * 1e6:.1f} | {lt / ours:.2f} | {ours_f * 1e6:.1f} | "
               f"{lt / ours_f:.2f} | {eager * 1e6:.1f} | "
               f"{eager / ours:.2f} | {mm * 1e6:.1f} |")
        print(row)
        lines.append(row)
        launch.close()
        fast.close()
        del a, w, bias, out, out_f

    # ---- conv + bias + ReLU + residual -------------------------------------
    conv_cases = [(128, 56, 56, 64, 256, 1, 1, 0), (128, 56, 56, 64, 64, 3, 3, 1),
                  (128, 28, 28, 128, 512, 1, 1, 0), (128, 14, 14, 256, 1024, 1, 1, 0),
                  (128, 14, 14, 256, 256, 3, 3, 1), (128, 7, 7, 512, 2048, 1, 1, 0)]
    if args.quick:
        conv_cases = conv_cases[:1] + conv_cases[2:3]
    lines += ["\n## conv2d fprop + bias + ReLU + residual (f16, NHWC, ResNet-50 layers)\n",
              "`evt post` = relu(conv + b + z) (what cuDNN fuses), `evt pre` = relu(conv + b) + z.\n",
              "| N×H×W×C → K, R×S | floor µs | evt post µs | floor/time | GB/s | cuDNN fused µs | ratio | "
              "evt pre µs | eager µs | ratio | torch.compile µs | ratio |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    k_post = m.kernel("conv_add_relu")
    k_pre = m.kernel("conv_relu_add")
    for n, h, w_, c, k, r, s, pad in conv_cases:
        xx = torch.randn(n, c, h, w_, device=dev, dtype=torch.float16).to(memory_format=cl)
        ww = (torch.randn(k, c, r, s, device=dev, dtype=torch.float16) * (c * r * s) ** -0.5).to(memory_format=cl)
        bias = torch.randn(k, device=dev, dtype=torch.float16)
        P = (h + 2 * pad - r) + 1
        Q = (w_ + 2 * pad - s) + 1
        z = torch.randn(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
        y_post = torch.empty(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
        y_pre = torch.empty_like(y_post)
        lp = k_post.bind(xx, ww, bias=bias, z=z, y=y_post, padding=pad)
        lq = k_pre.bind(xx, ww, bias=bias, z=z, y=y_pre, padding=pad)
        lp.run()
        lq.run()
        torch.cuda.synchronize()
        ref_conv = F.conv2d(xx.double(), ww.double(), bias.double(), 1, pad)
        check(f"conv post {n}x{h}x{w_}x{c}->{k}", y_post, F.relu(ref_conv + z.double()))
        check(f"conv pre {n}x{h}x{w_}x{c}->{k}", y_pre, F.relu(ref_conv) + z.double())
        peers = [lp.run, lq.run,
                 lambda: torch.cudnn_convolution_add_relu(xx, ww, z, 1.0, bias, (1, 1), (pad, pad), (1, 1), 1),
                 lambda: F.relu(F.conv2d(xx, ww, bias, 1, pad)) + z]
        try:
            # Fresh, static-shape compiles per layer: a lambda's code object is
            # the same for every layer, so without the reset dynamo would recompile
            # it for dynamic shapes from the second layer on (slower kernels, up to
            # 3x on the 3x3 layers, depending on the order the layers run in).  Two
            # independent compiles, the faster one counted: the same layer's
            # compiled module ran 61 us in one run and 125 in the next.
            torch._dynamo.reset()
            for cf in (torch.compile(lambda xx, ww, bias, z: F.relu(F.conv2d(xx, ww, bias, 1, pad)) + z,
                                     dynamic=False),
                       torch.compile(lambda xx, ww, bias, z: F.relu(F.conv2d(xx, ww, bias, 1, pad)) + z,
                                     dynamic=False)):
                cf(xx, ww, bias, z)
                peers.append(lambda cf=cf: cf(xx, ww, bias, z))
        except Exception as e:  # report, do not hide
            print("torch.compile failed:", e)
        ours, ours_pre, cudnn, eager, *comp = side_by_side(*peers)
        if comp:
            print("  torch.compile, two compiles:", " ".join(f"{c * 1e6:.1f}" for c in comp), "us")
        comp = min(comp) if comp else float("nan")
        fl = 2 * n * P * Q * k * c * r * s
        by = 2 * (xx.numel() + ww.numel() + 2 * y_post.numel() + k)
        floor = max(fl / peak, by / bw)
        row = (f"| {n}×{h}×{w_}×{c} → {k}, {r}×{s} | {floor * 1e6:.1f} | {ours * 1e6:.1f} | "
               f"{floor / ours:.2f} | {by / ours / 1e9:.0f} | {cudnn * 1e6:.1f} | {cudnn / ours:.2f} | "
               f"{ours_pre * 1e6:.1f} | {eager * 1e6:.1f} | {eager / ours_pre:.2f} | "
               f"{comp * 1e6:.1f} | {comp / ours_pre:.2f} |")
        print(row)
        lines.append(row)
        lp.close()
        lq.close()
        del xx, ww, bias, z, y_post, y_pre

    lines.append("\nRatios: peer time / evt time of the same computation "
                 "(cuDNN fused against evt post; eager and torch.compile, which compute "
                 "relu(conv + b) + z, against evt pre).")
    if args.wide:
        lines += wide(m, peak, bw)
    return write(args, lines)


def write(args, lines):
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("wrote", args.out)


# ---- the wide sweep: heuristic and tuned, against the fused peers ----------

WIDE_SOURCE = """
epilogue bias_gelu_h {
    in  bias : f16[N]
    out y    : f16[M, N] = gelu(acc + bias)
}
kernel gelu_f16 = gemm(a: f16 row, b: f16 col, acc: f32) with bias_gelu_h
epilogue bias_gelu_b {
    in  bias : bf16[N]
    out y    : bf16[M, N] = gelu(acc + bias)
}
kernel gelu_bf16 = gemm(a: bf16 row, b: bf16 col, acc: f32) with bias_gelu_b
epilogue bias_add_relu {
    in  bias : f16[N]
    in  z    : f16[M, N]
    out y    : f16[M, N] = relu(acc + bias + z)
}
kernel conv_add_relu = conv2d_fprop(x: f16, w: f16, acc: f32) with bias_add_relu
"""

# (N, K) pairs, each with the M values it runs at: M cycles through 1 ... 16384
# so every M meets several N x K without the product of the two lists.
WIDE_NK = [(4096, 4096), (11008, 4096), (4096, 11008), (2560, 2560), (14336, 4096), (1024, 4096),
           (768, 768), (256, 16384), (16384, 256), (5120, 1280), (3000, 1000)]
WIDE_M = [1, 16, 77, 128, 333, 512, 1000, 2048, 4096, 8192, 16384]


def short_plan(plan):
    """'sm90_pp2_128x128x64_s4 /1' from a launch's plan line ('... tail 28x4' where a
    persistent plan splits its last wave, '... stream-K 80' where it shares out its
    last tiles' k tiles)."""
    f = plan.split()
    if "splits" not in f:
        return plan
    s = f"{f[1]} /{f[f.index('splits') + 1]}"
    if "tail" in f:
        i = f.index("tail")
        s += f" tail {f[i + 1]}x{f[i + 3]}"
    if "stream-K" in f:
        s += f" stream-K {f[f.index('stream-K') + 1]}"
    return s


def graph_time(fn, replays=10):
    """Seconds per call of fn replayed from a CUDA graph: GPU time only.  Small
    problems run in a few microseconds, less than a Python call costs on the
    host; timed call by call they would measure the host, not the kernel, for
    us and the peer alike.  The graph holds about a millisecond of calls (1 to
    50); the median of `replays` replays between CUDA events, per call."""
    fn()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    fn()
    e1.record()
    e1.synchronize()
    calls = max(1, min(50, int(1.0 / max(e0.elapsed_time(e1), 1e-3))))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    g.replay()
    times = []
    for _ in range(replays):
        e0.record()
        g.replay()
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) / calls)
    del g
    return sorted(times)[len(times) // 2] * 1e-3


def graph_side_by_side(*fns, rounds=3):
    times = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            times[i].append(graph_time(fn))
    return [sorted(ts)[len(ts) // 2] for ts in times]


def heuristic_and_tuned(bind, peer, rounds=3):
    """(heuristic s, tuned s, peer s, heuristic plan, tuned plan, tune result):
    two launches of the same call, one held to the heuristic's plan, one
    taking the tuning database's record, and the peer, in alternating rounds."""
    lh = bind()
    lh.set_tuning(ignore_records=True)
    lh.run()
    heur_plan = short_plan(lh.plan)
    r = lh.tune(max_seconds=10)
    lt = bind()
    lt.run()
    tuned_plan = short_plan(lt.plan)
    h, tu, p = graph_side_by_side(lh.run, lt.run, peer, rounds=rounds)
    lh.close()
    lt.close()
    return h, tu, p, heur_plan, tuned_plan, r


def geomean(xs):
    g = 1.0
    for x in xs:
        g *= x
    return g ** (1.0 / len(xs)) if xs else float("nan")


def wide(m, peak, bw):
    import tempfile
    os.environ["EVT_CACHE_DIR"] = os.environ.get("EVT_WIDE_CACHE_DIR") or tempfile.mkdtemp(prefix="evt-wide-")
    fast = os.environ.get("WIDE_FAST") == "1"  # our kernels under fast math (docs/codegen.md)
    tanh = os.environ.get("WIDE_GELU", "erf") == "tanh"  # cuBLASLt's own GELU
    wm = evt.compile(source=gelu_tanh_source(WIDE_SOURCE) if tanh else WIDE_SOURCE, name="wide.evt",
                     fast_math=fast)
    lines = [f"\n## The wide sweep: heuristic and tuned (issue 15){', evt under fast math' if fast else ''}"
             f"{', gelu_tanh' if tanh else ''}\n",
             "Every shape checked first, and again after tuning; then our kernel with the "
             "heuristic's plan, with the plan `Launch.tune` recorded (tuned in this run, "
             "`max_seconds=10`) and the peer, timed in three alternating rounds, each the median "
             "of ten replays of a CUDA graph of about a millisecond of calls (GPU time, without "
             "the host time of a Python call, which exceeds a small problem's kernel; L2 not "
             "flushed).  "
             "Ratio = peer time / our time.  Plans: configuration / split-K.\n",
             "### GEMM + bias + GELU against cuBLASLt's fused epilogue (torch._addmm_activation)\n",
             "| M×N×K | type | heuristic µs | plan | ratio | tuned µs | plan | ratio | cuBLASLt µs | "
             "floor/time tuned | tuning s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    ratios = {"gemm": ([], []), "conv": ([], [])}
    parts = os.environ.get("WIDE_PARTS", "gemm conv").split()  # a device call's worth: one half
    only = os.environ.get("WIDE_NK", "").split()  # "NxK ...": a part of the GEMM half
    unknown = set(only) - {f"{N}x{K}" for N, K in WIDE_NK}
    if unknown:
        raise SystemExit(f"WIDE_NK: {' '.join(sorted(unknown))} not among the sweep's N x K pairs")
    shapes = []  # (M, N, K, dtype)
    if "gemm" in parts and os.environ.get("WIDE_SHAPES"):  # "MxNxK ...": these, f16 and bf16 in turn
        shapes = [tuple(int(x) for x in s.split("x")) + (torch.float16 if j % 2 == 0 else torch.bfloat16,)
                  for j, s in enumerate(os.environ["WIDE_SHAPES"].split())]
    elif "gemm" in parts:  # the pair's index picks its M and types, as in the whole sweep
        for i, (N, K) in enumerate(WIDE_NK):
            if not only or f"{N}x{K}" in only:
                shapes += [(WIDE_M[(i + 3 * j) % len(WIDE_M)], N, K,
                            torch.float16 if (i + j) % 2 == 0 else torch.bfloat16) for j in range(4)]
    for M, N, K, dt in shapes:
        name = "gelu_f16" if dt == torch.float16 else "gelu_bf16"
        a = torch.randn(M, K, device=dev, dtype=dt)
        w = torch.randn(N, K, device=dev, dtype=dt) * K ** -0.5
        bias = torch.randn(N, device=dev, dtype=dt)
        out = torch.empty(M, N, device=dev, dtype=dt)
        launch = wm.kernel(name).bind(a, w.t(), bias=bias, y=out)
        launch.run()
        torch.cuda.synchronize()
        ref = gelu_of("tanh" if tanh else "erf")(  # once: checked before and after tuning
            a.double() @ w.double().t() + bias.double())
        check(f"wide gemm {M}x{N}x{K}", out, ref)
        launch.close()
        h, tu, p, hp, tp, r = heuristic_and_tuned(
            lambda: wm.kernel(name).bind(a, w.t(), bias=bias, y=out),
            lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True))
        torch.cuda.synchronize()
        check(f"wide gemm {M}x{N}x{K} tuned", out, ref)
        fl = 2 * M * N * K
        by = 2 * (M * K + N * K + M * N + N)
        floor = max(fl / peak, by / bw)
        ratios["gemm"][0].append(p / h)
        ratios["gemm"][1].append(p / tu)
        row = (f"| {M}×{N}×{K} | {'f16' if dt == torch.float16 else 'bf16'} | {h * 1e6:.1f} | {hp} | "
               f"{p / h:.2f} | {tu * 1e6:.1f} | {tp} | {p / tu:.2f} | {p * 1e6:.1f} | "
               f"{floor / tu:.2f} | {r.seconds:.1f} |")
        print(row, flush=True)
        lines.append(row)
        del a, w, bias, out, ref
    lines += ["\n### relu(conv + b + z) against cuDNN's fused kernel (torch.cudnn_convolution_add_relu), f16 NHWC\n",
              "| N×H×W×C → K, R×S /stride | heuristic µs | plan | ratio | tuned µs | plan | ratio | "
              "cuDNN µs | floor/time tuned | tuning s |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    kc = wm.kernel("conv_add_relu")
    for n, h_, w_, c, k, r_, s_, pad, stride in (WIDE_CONV if "conv" in parts else []):
        xx = torch.randn(n, c, h_, w_, device=dev, dtype=torch.float16).to(memory_format=cl)
        ww = (torch.randn(k, c, r_, s_, device=dev, dtype=torch.float16) * (c * r_ * s_) ** -0.5).to(
            memory_format=cl)
        bias = torch.randn(k, device=dev, dtype=torch.float16)
        P = (h_ + 2 * pad - r_) // stride + 1
        Q = (w_ + 2 * pad - s_) // stride + 1
        z = torch.randn(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
        y = torch.empty(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
        launch = kc.bind(xx, ww, bias=bias, z=z, y=y, padding=pad, stride=stride)
        launch.run()
        torch.cuda.synchronize()
        ref = F.relu(F.conv2d(xx.double(), ww.double(), bias.double(), stride, pad) + z.double())
        what = f"{n}×{h_}×{w_}×{c} → {k}, {r_}×{s_} /{stride}"
        check(f"wide conv {what}", y, ref)
        launch.close()
        hh, tu, p, hp, tp, r = heuristic_and_tuned(
            lambda: kc.bind(xx, ww, bias=bias, z=z, y=y, padding=pad, stride=stride), lambda: torch.cudnn_convolution_add_relu(xx, ww, z, 1.0, bias, (stride, stride),
                                                             (pad, pad), (1, 1), 1))
        torch.cuda.synchronize()
        check(f"wide conv {what} tuned", y, ref)
        fl = 2 * n * P * Q * k * c * r_ * s_
        by = 2 * (xx.numel() + ww.numel() + 2 * y.numel() + k)
        floor = max(fl / peak, by / bw)
        ratios["conv"][0].append(p / hh)
        ratios["conv"][1].append(p / tu)
        row = (f"| {what} | {hh * 1e6:.1f} | {hp} | {p / hh:.2f} | {tu * 1e6:.1f} | {tp} | "
               f"{p / tu:.2f} | {p * 1e6:.1f} | {floor / tu:.2f} | {r.seconds:.1f} |")
        print(row, flush=True)
        lines.append(row)
        del xx, ww, bias, z, y
    lines.append("\n| sweep | shapes | heuristic: geomean, min | tuned: geomean, min | tuned >= 0.9 |")
    lines.append("| --- | --- | --- | --- | --- |")
    for kind, (hs, ts) in ratios.items():
        if hs:
            row = (f"| {kind} | {len(hs)} | {geomean(hs):.3f}, {min(hs):.2f} | {geomean(ts):.3f}, "
                   f"{min(ts):.2f} | {sum(t_ >= 0.9 for t_ in ts)} of {len(ts)} |")
            print(row)
            lines.append(row)
    return lines


if __name__ == "__main__":
    sys.exit(main())
