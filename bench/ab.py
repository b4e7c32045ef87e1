"""ab.py - the heuristic's pick against forced tile configurations and the peer,
under bench.py's conditions: one process, the candidates timed in turn, six
rounds or more, each starting one candidate later, a whole number of
rotations (so each takes every place, right after the peer among them,
equally often), each one's median of its round medians (bench.side_by_side).  Prints
what the pick launched (Launch.plan), so a pick that silently fell back (TMA
maps refused, say) shows.

    PYTHONPATH=bindings/python python3 bench/ab.py [gemm] [conv]

AB_PLAIN=1: GEMM shapes also run D = acc against cuBLAS's plain GEMM;
AB_PLAIN=only: D = acc alone, no GELU.
AB_FAST=1: GEMM shapes also run gelu_tanh (cuBLASLt's own function) and
gelu (erf) under fast math against the same cuBLASLt epilogue; AB_FAST=only:
gelu_tanh under fast math alone.  AB_FAST_FN=silu: silu in place of
gelu_tanh there (the peer: eager addmm, then F.silu; cuBLASLt fuses no SiLU).
AB_RELU=1: GEMM shapes also run bias + ReLU against cuBLASLt's RELU_BIAS
epilogue (torch._addmm_activation); AB_RELU=only: that alone.
AB_EXACT=1: GEMM shapes also run the GELU at f32 precision (evt_gelu, not the
evt_gelu16 an f16 output gets: `gelu(acc + bias) + 0.0`, one add more) against
the same cuBLASLt epilogue.
AB_SHAPES: the GEMM shapes instead of the default seven, as "MxNxK MxNxK ...".
AB_CONV_SHAPES: the conv layers instead of the default six, as
"N,H,W,C,K,R,PAD,STRIDE ..." (NHWC input, K filters of R x R).
AB_CONV_AS_GEMM=1: 1x1 stride-1 unpadded layers also run as the GEMM they are
(NHWC x as [M, C], the filter as [K, C], the same epilogue), the GEMM's pick
and AB_GEMM's configurations beside cuDNN.
`ab.py fp8`: bench_fp8.py's fp8 GEMM + row/column scales + bias + GELU ->
e4m3 + amax at AB_FP8_SHAPES ("MxNxK ...", default its four) against
torch._scaled_mm alone (row-wise scales, the bias), with the configurations
of AB_FP8 forced beside the pick (default the cooperative tile and the same
with the epilogue warpgroups, in clusters of two); AB_FP8_EPI=gelu: without the
amax, a per-element epilogue; AB_FP8_AMAX=acc: reduce_max(acc) in place of
the amax, a reduction of almost nothing to compute.
AB_NO_PEER=1: the peers are not run (their column times an empty call).
AB_GEMM, AB_CONV: the configurations forced beside the pick, by name
(evt.configs()), each on a launch of its own (Launch.set_tuning), without
stream-K, or with it where the name has ":sk" after it, with the
epilogue's row group n where it has ":g<n>", split-K n ways where it has
":k<n>", and with the epilogue through
the shared tile, not the consumers' registers, where it has ":sh", and in
the registers wherever the epilogue is per-element where it has ":dr"
(edge tiles and looped builtins included); by default
AB_GEMM="sm90_wg2_128x256x64_s4 sm90_pp2_128x128x64_s4" and
AB_CONV="sm90_wg2_128x128x32_s6 sm90_pp2_128x128x64_s4 sm90_pp2_128x128x64_s2_staged".
"""
import os
import sys

import torch
import torch.nn.functional as F

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import EVT_SOURCE, FAST_SOURCE, forced, side_by_side  # noqa: E402

torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
cl = torch.channels_last
m = evt.compile(source=EVT_SOURCE + """
epilogue plain {
    out y : f16[M, N] = acc
}
kernel linear = gemm(a: f16 row, b: f16 col, acc: f32) with plain
epilogue bias_relu {
    in  bias : f16[N]
    out y    : f16[M, N] = relu(acc + bias)
}
kernel linear_relu = gemm(a: f16 row, b: f16 col, acc: f32) with bias_relu
kernel linear_add_relu = gemm(a: f16 row, b: f16 col, acc: f32) with bias_add_relu
""", name="ab.evt")
FAST_FN = os.environ.get("AB_FAST_FN", "gelu_tanh")
if FAST_FN not in ("gelu_tanh", "silu"):
    raise SystemExit(f"AB_FAST_FN: gelu_tanh or silu, not {FAST_FN}")
FAST_KERNEL = f"linear_{FAST_FN}"
mf = evt.compile(source=FAST_SOURCE.replace("gelu_tanh(acc", FAST_FN + "(acc")
                 .replace("linear_gelu_tanh", FAST_KERNEL), name="ab_fast.evt", fast_math=True)
FAST_ONLY = os.environ.get("AB_FAST") == "only"
RELU_ONLY = os.environ.get("AB_RELU") == "only"
mfe = evt.compile(source=EVT_SOURCE, name="ab_fast_erf.evt", fast_math=True)
# a sum keeps a GELU at f32 precision (ir/narrow.c), whatever the output
mx = evt.compile(source=EVT_SOURCE.replace("gelu(acc + bias)", "gelu(acc + bias) + 0.0"), name="ab_exact.evt")


def compare(label, bind, configs, peer, peer_name, check):
    """`bind()` makes a launch; the pick's and one per forced configuration
    are timed beside the peer, each checked first."""
    launches, kept = [bind()], []
    for c in configs:  # a configuration the layer cannot run is left out, and said so
        name, kw = forced(c)
        try:
            launch = bind().set_tuning(name, **kw)
            launch.run()
        except evt.EvtError as e:
            print(f"  {c}: {type(e).__name__} {str(e)[:100]}", flush=True)
            continue
        launches.append(launch)
        kept.append(c)
    configs = kept
    for launch in launches:
        launch.run()
        torch.cuda.synchronize()
        check(launch.result())
    plan = launches[0].plan
    if os.environ.get("AB_NO_PEER"):  # its fallback at N off 16 bytes takes milliseconds a launch
        peer, peer_name = (lambda: None), "no peer"
    # rotated: the choices between configurations here are a few percent
    # apart, the size of a fixed order's position effect
    ts = side_by_side(peer, *(launch.run for launch in launches), rounds=6, rotate=True)
    cells = [f"{peer_name} {ts[0] * 1e6:.1f}", f"pick {ts[1] * 1e6:.1f}"]
    # a forced configuration's grid: a clustered one's is capped at its resident clusters
    grids = [launch.plan.split(" grid ")[1].split()[0] for launch in launches[1:]]
    cells += [f"{c}: {t * 1e6:.1f} (grid {g})" for c, t, g in zip(configs, ts[2:], grids)]
    print(f"{label:34s} " + "  ".join(cells) + f"   [pick = {plan}]", flush=True)
    for launch in launches:
        launch.close()


def close(name, got, ref):
    verdict = evt.check(got, ref)  # libevt's verification policy, as evtc run --check
    assert verdict, f"{name}: {verdict}"


parts = sys.argv[1:] or ["gemm", "conv"]
if "gemm" in parts:
    configs = os.environ.get("AB_GEMM", "sm90_wg2_128x256x64_s4 sm90_pp2_128x128x64_s4").split()
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 1024, 4096), (2048, 2048, 2048),
              (4096, 14336, 4096), (8192, 4096, 14336), (3000, 5000, 4000)]
    if os.environ.get("AB_SHAPES"):
        shapes = [tuple(int(x) for x in s.split("x")) for s in os.environ["AB_SHAPES"].split()]
    for M, N, K in shapes:
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        w = torch.randn(N, K, device=dev, dtype=torch.float16) * K ** -0.5
        bias = torch.randn(N, device=dev, dtype=torch.float16)
        # the float64 product the GELU, SiLU and ReLU references share: made once a shape
        gelu_rows = os.environ.get("AB_PLAIN") != "only" and not FAST_ONLY and not RELU_ONLY
        pre = (a.double() @ w.double().t() + bias.double()
               if gelu_rows or os.environ.get("AB_EXACT") or os.environ.get("AB_FAST") or os.environ.get("AB_RELU")
               else None)
        if gelu_rows:
            ref = F.gelu(pre)
            compare(f"gemm+bias+gelu {M}x{N}x{K}",
                    lambda: m.kernel("linear_gelu").bind(a, w.t(), bias=bias), configs,
                    lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True), "cublasLt",
                    lambda y: close("gemm", y, ref))
        if os.environ.get("AB_EXACT"):
            ref = F.gelu(pre)
            compare(f"gemm+bias+gelu f32-exact {M}x{N}x{K}",
                    lambda: mx.kernel("linear_gelu").bind(a, w.t(), bias=bias), configs,
                    lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True), "cublasLt",
                    lambda y: close("gemm exact", y, ref))
        if os.environ.get("AB_FAST"):
            if FAST_FN == "silu":
                ref = F.silu(pre)
                peer, peer_name = (lambda: F.silu(torch.addmm(bias, a, w.t()))), "eager"
            else:
                ref = F.gelu(pre, approximate="tanh")
                peer, peer_name = (lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)), "cublasLt"
            compare(f"gemm+bias+{FAST_FN} fast {M}x{N}x{K}",
                    lambda: mf.kernel(FAST_KERNEL).bind(a, w.t(), bias=bias), configs,
                    peer, peer_name, lambda y: close("gemm fast", y, ref))
            if not FAST_ONLY:
                ref = F.gelu(pre)
                compare(f"gemm+bias+gelu fast {M}x{N}x{K}",
                        lambda: mfe.kernel("linear_gelu").bind(a, w.t(), bias=bias), configs,
                        lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True), "cublasLt",
                        lambda y: close("gemm fast erf", y, ref))
        if os.environ.get("AB_RELU"):
            ref = F.relu(pre)
            compare(f"gemm+bias+relu {M}x{N}x{K}",
                    lambda: m.kernel("linear_relu").bind(a, w.t(), bias=bias), configs,
                    lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=False), "cublasLt",
                    lambda y: close("gemm relu", y, ref))
        pre = None
        if os.environ.get("AB_PLAIN"):  # D = acc against cuBLAS's plain GEMM (issue 16's second goal)
            ref = a.double() @ w.double().t()
            compare(f"gemm {M}x{N}x{K}", lambda: m.kernel("linear").bind(a, w.t()), configs,
                    lambda: torch.mm(a, w.t()), "cublas", lambda y: close("gemm", y, ref))
if "fp8" in parts:
    import bench_fp8  # noqa: E402
    src = bench_fp8.EVT_SOURCE
    per_element = os.environ.get("AB_FP8_EPI") == "gelu"
    if per_element:  # the same without the amax: a per-element epilogue
        src = src.replace("    out   amax      : f32 = reduce_max(abs(y))\n", "")
    acc_max = os.environ.get("AB_FP8_AMAX") == "acc"
    if acc_max:
        src = src.replace("reduce_max(abs(y))", "reduce_max(acc)")
    mfp8 = evt.compile(source=src, name="ab_fp8.evt")
    configs = os.environ.get("AB_FP8", "sm90_coop2_cl2_128x128x128_s4_fp8 "
                                       "sm90_ws8_coop2_cl2_128x128x128_s4_fp8").split()
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 4096, 1024), (4096, 14336, 4096)]
    if os.environ.get("AB_FP8_SHAPES"):
        shapes = [tuple(int(x) for x in s.split("x")) for s in os.environ["AB_FP8_SHAPES"].split()]
    for M, N, K in shapes:
        x, w, sa, sb, bias, d, amax = bench_fp8.inputs(M, N, K)
        acc = x.double() @ w.double().t()
        ref = F.gelu(acc * sa[:, None] * sb[None, :] + bias.double())
        ref_amax = acc.amax() if acc_max else ref.abs().amax()
        del acc

        def check_fp8(_):  # every launch writes d and amax: the last one's are judged
            close("fp8 d", d, ref * 0.25)
            if not per_element:
                v = evt.check(amax, ref_amax, reduce="max")
                assert v, f"fp8 amax: {v}"

        compare(f"fp8 {M}x{N}x{K}",
                (lambda: mfp8.kernel("fp8_linear").bind(x, w.t(), sa=sa, sb=sb, bias=bias, d=d, inv_scale=0.25))
                if per_element else
                (lambda: mfp8.kernel("fp8_linear").bind(x, w.t(), sa=sa, sb=sb, bias=bias, d=d, amax=amax,
                                                        inv_scale=0.25)),
                configs, lambda: bench_fp8.scaled_mm(x, w, sa, sb, bias), "scaled_mm", check_fp8)
        del x, w, ref
if "conv" in parts:
    configs = os.environ.get("AB_CONV", "sm90_wg2_128x128x32_s6 sm90_pp2_128x128x64_s4 "
                                        "sm90_pp2_128x128x64_s2_staged").split()
    layers = [(128, 56, 56, 64, 256, 1, 0, 1), (128, 28, 28, 128, 512, 1, 0, 1), (128, 14, 14, 256, 1024, 1, 0, 1),
              (128, 56, 56, 64, 64, 3, 1, 1), (128, 14, 14, 256, 256, 3, 1, 1), (128, 7, 7, 512, 2048, 1, 0, 1)]
    if os.environ.get("AB_CONV_SHAPES"):  # "N,H,W,C,K,R,PAD,STRIDE ..."
        layers = [tuple(int(x) for x in s.split(",")) for s in os.environ["AB_CONV_SHAPES"].split()]
    for n, h, w_, c, k, r, pad, st in layers:
        x = torch.randn(n, c, h, w_, device=dev, dtype=torch.float16).to(memory_format=cl)
        wt = (torch.randn(k, c, r, r, device=dev, dtype=torch.float16) * (c * r * r) ** -0.5).to(memory_format=cl)
        bias = torch.randn(k, device=dev, dtype=torch.float16)
        P, Q = (h + 2 * pad - r) // st + 1, (w_ + 2 * pad - r) // st + 1
        z = torch.randn(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
        ref = F.relu(F.conv2d(x.double(), wt.double(), bias.double(), st, pad) + z.double())
        cudnn = lambda: torch.cudnn_convolution_add_relu(x, wt, z, 1.0, bias, (st, st), (pad, pad), (1, 1), 1)
        compare(f"conv {n}x{h}x{w_}x{c}->{k} {r}x{r}/{st}",
                lambda: m.kernel("conv_add_relu").bind(x, wt, bias=bias, z=z, padding=pad, stride=st), configs,
                cudnn, "cudnn", lambda y: close("conv", y, ref))
        if os.environ.get("AB_CONV_AS_GEMM") and r == 1 and st == 1 and pad == 0:
            a2 = x.permute(0, 2, 3, 1).reshape(n * h * w_, c)  # channels_last: a view
            w2 = wt.reshape(k, c)
            z2 = z.permute(0, 2, 3, 1).reshape(n * P * Q, k)
            gemm_configs = os.environ.get("AB_GEMM", "").split()
            compare(f"  as gemm {n * h * w_}x{k}x{c}",
                    lambda: m.kernel("linear_add_relu").bind(a2, w2.t(), bias=bias, z=z2), gemm_configs,
                    cudnn, "cudnn", lambda y: close("conv as gemm", y, ref.permute(0, 2, 3, 1).reshape(n * P * Q, k)))
