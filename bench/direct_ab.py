"""direct_ab.py - the sm_90a ping-pong tile's register-direct epilogue against
the shared tile (":sh") and the peer, in one process, alternating rounds
(bench.side_by_side), every result checked first with evt.check against float64: bias + GELU
(bench.py's wide-sweep kernels, f16 and bf16), fast math's bias + gelu_tanh
(f16, "gtanh"), D = acc and bias + ReLU, on
ragged and whole-tile problems (session 28 found the direct form 1.2-2.0x
slower wherever M or N had edge tiles; since session 29 edge rows take the
staged instance and are faster, edge columns are not, docs/codegen.md).  The pick is timed
too, with its plan, so what the launch chose (api/launch.c shared_epi_of)
shows.

    PYTHONPATH=bindings/python python3 bench/direct_ab.py
    D_SHAPES="MxNxK:bf16 ..."  D_PROGS="gelu plain relu"  D_CFGS="cfg:dr cfg:sh pick:sh ..."
    D_CONVS="N,H,W,C,K,R,STRIDE,PAD ..."   (conv + bias + ReLU, f16, against cuDNN's)
"""
import os
import sys

import torch
import torch.nn.functional as F

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import FAST_SOURCE, WIDE_SOURCE, forced, side_by_side  # noqa: E402
dev = torch.device("cuda")
wm = evt.compile(source=WIDE_SOURCE, name="wide.evt")
fm = evt.compile(source=FAST_SOURCE, name="fast.evt", fast_math=True)  # gelu_tanh unrolls
PL = """
epilogue pb { out y : bf16[M, N] = acc }
kernel plain_bf16 = gemm(a: bf16 row, b: bf16 col, acc: f32) with pb
epilogue ph { out y : f16[M, N] = acc }
kernel plain_f16 = gemm(a: f16 row, b: f16 col, acc: f32) with ph
epilogue rb { in bias : bf16[N]
 out y : bf16[M, N] = relu(acc + bias) }
kernel relu_bf16 = gemm(a: bf16 row, b: bf16 col, acc: f32) with rb
"""
pm = evt.compile(source=PL, name="pl.evt")
CV = """
epilogue cbr { in bias : f16[N]
 out y : f16[M, N] = relu(acc + bias) }
kernel conv_relu = conv2d_fprop(x: f16, w: f16, acc: f32) with cbr
"""
cm = evt.compile(source=CV, name="cv.evt")
cfgs = os.environ.get("D_CFGS", "sm90_pp2_128x128x64_s4:dr sm90_pp2_128x128x64_s4:sh").split()


def compare(label, peer_name, bind, ref, peer):
    """The pick and each of cfgs, checked against ref, then timed beside peer:
    one line, the pick's plan with it."""
    ls = [bind()] + [bind().set_tuning(n, **kw) for n, kw in map(forced, cfgs)]
    for l in ls:
        l.run(); torch.cuda.synchronize()
        v = evt.check(l.result(), ref)
        assert v, f"{label}: {v}"
    ts = side_by_side(peer, *(l.run for l in ls))
    where = " direct" if "direct-epilogue" in ls[0].plan else ""  # the pick's epilogue in registers
    print(f"{label} {peer_name} {ts[0]*1e6:7.1f}  pick {ts[1]*1e6:7.1f} [{ls[0].plan.split(' grid')[0].replace('sm_90a ','')}{where}]  " +
          "  ".join(f"{c}: {t*1e6:.1f}" for c, t in zip(cfgs, ts[2:])), flush=True)
    for l in ls: l.close()


for spec in os.environ.get("D_SHAPES", "1000x16384x256:bf16 1000x16384x256:f16 1024x16384x256:bf16 333x5120x1280:bf16 384x5120x1280:bf16 4096x16384x256:f16 4096x16384x256:bf16").split():
    shp, dts = spec.split(":")
    M, N, K = map(int, shp.split("x"))
    dt = torch.float16 if dts == "f16" else torch.bfloat16
    a = torch.randn(M, K, device=dev, dtype=dt)
    w = torch.randn(N, K, device=dev, dtype=dt) * K ** -0.5
    bias = torch.randn(N, device=dev, dtype=dt)
    for prog in os.environ.get("D_PROGS", "gelu plain relu").split():
        if prog == "gelu":
            k = wm.kernel("gelu_f16" if dt == torch.float16 else "gelu_bf16")
            bind = lambda: k.bind(a, w.t(), bias=bias)
            ref = F.gelu(a.double() @ w.double().t() + bias.double())
            peer = lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)
        elif prog == "gtanh":  # fast math's gelu_tanh, cuBLASLt's own GELU
            if dt != torch.float16: continue
            k = fm.kernel("linear_gelu_tanh")
            bind = lambda: k.bind(a, w.t(), bias=bias)
            ref = F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh")
            peer = lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)
        elif prog == "relu":
            if dt != torch.bfloat16: continue
            k = pm.kernel("relu_bf16")
            bind = lambda: k.bind(a, w.t(), bias=bias)
            ref = F.relu(a.double() @ w.double().t() + bias.double())
            peer = lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=False)
        else:
            k = pm.kernel("plain_f16" if dt == torch.float16 else "plain_bf16")
            bind = lambda: k.bind(a, w.t())
            ref = a.double() @ w.double().t()
            peer = lambda: torch.mm(a, w.t())
        compare(f"{spec:22s} {prog:5s}", "peer", bind, ref, peer)

# conv + bias + ReLU (f16 NHWC, no residual: an [M, N] input keeps the shared
# tile), whose launches keep the shared tile on edge rows (plan.direct_tiles):
# "N,H,W,C,K,R,STRIDE,PAD" specs, against cuDNN's conv + bias + ReLU
for spec in os.environ.get("D_CONVS", "").split():
    n, h, w_, c, kc, r, st, pad = map(int, spec.split(","))
    x = torch.randn(n, c, h, w_, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last)
    wt = (torch.randn(kc, c, r, r, device=dev, dtype=torch.float16) * (c * r * r) ** -0.5).to(
        memory_format=torch.channels_last)
    bias = torch.randn(kc, device=dev, dtype=torch.float16)
    k = cm.kernel("conv_relu")
    bind = lambda: k.bind(x, wt, bias=bias, stride=st, padding=pad)
    ref = F.relu(F.conv2d(x.double(), wt.double(), bias.double(), st, pad))
    peer = lambda: torch.cudnn_convolution_relu(x, wt, bias, (st, st), (pad, pad), (1, 1), 1)
    compare(f"conv {spec:18s}", "cudnn", bind, ref, peer)
