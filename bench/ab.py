"""ab.py - the heuristic's pick against forced tile configurations and the peer,
under bench.py's conditions: one process, the candidates timed in turn, five
rounds, each one's median of its round medians (bench.side_by_side).  Prints
what the pick launched (Launch.plan), so a pick that silently fell back (TMA
maps refused, say) shows.

    PYTHONPATH=bindings/python python3 bench/ab.py [gemm] [conv]
AB_GEMM="5 7", AB_CONV="10 11 13": the configurations forced beside the pick.
"""
import os
import sys

import torch
import torch.nn.functional as F

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import EVT_SOURCE, side_by_side  # noqa: E402

torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
cl = torch.channels_last
m = evt.compile(source=EVT_SOURCE, name="ab.evt")


def forced(launch, cid):
    def run():
        os.environ["EVT_CONFIG"] = str(cid)
        launch.run()
    return run


def picked(launch):
    def run():
        os.environ.pop("EVT_CONFIG", None)
        launch.run()
    return run


def compare(label, launch, ids, peer, peer_name, check):
    picked(launch)()
    torch.cuda.synchronize()
    check()
    plan = launch.plan
    for cid in ids:
        forced(launch, cid)()
        torch.cuda.synchronize()
        check()
    fns = [peer, picked(launch)] + [forced(launch, c) for c in ids]
    ts = side_by_side(*fns)
    os.environ.pop("EVT_CONFIG", None)
    cells = [f"{peer_name} {ts[0] * 1e6:.1f}", f"pick {ts[1] * 1e6:.1f}"]
    cells += [f"{c}: {t * 1e6:.1f}" for c, t in zip(ids, ts[2:])]
    print(f"{label:34s} " + "  ".join(cells) + f"   [pick = {plan}]", flush=True)


def close(name, got, ref):
    verdict = evt.check(got, ref)  # libevt's verification policy, as evtc run --check
    assert verdict, f"{name}: {verdict}"


parts = sys.argv[1:] or ["gemm", "conv"]
if "gemm" in parts:
    ids = [int(i) for i in os.environ.get("AB_GEMM", "5 7").split()]
    for M, N, K in [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 1024, 4096), (2048, 2048, 2048)]:
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        w = torch.randn(N, K, device=dev, dtype=torch.float16) * K ** -0.5
        bias = torch.randn(N, device=dev, dtype=torch.float16)
        ref = F.gelu(a.float() @ w.float().t() + bias.float())
        launch = m.kernel("linear_gelu").bind(a, w.t(), bias=bias)
        compare(f"gemm+bias+gelu {M}x{N}x{K}", launch, ids,
                lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True), "cublasLt",
                lambda: close("gemm", launch.result(), ref))
if "conv" in parts:
    ids = [int(i) for i in os.environ.get("AB_CONV", "10 11 14").split()]
    for n, h, w_, c, k, r, pad in [(128, 56, 56, 64, 256, 1, 0), (128, 28, 28, 128, 512, 1, 0),
                                   (128, 14, 14, 256, 1024, 1, 0), (128, 56, 56, 64, 64, 3, 1),
                                   (128, 14, 14, 256, 256, 3, 1), (128, 7, 7, 512, 2048, 1, 0)]:
        x = torch.randn(n, c, h, w_, device=dev, dtype=torch.float16).to(memory_format=cl)
        wt = (torch.randn(k, c, r, r, device=dev, dtype=torch.float16) * (c * r * r) ** -0.5).to(memory_format=cl)
        bias = torch.randn(k, device=dev, dtype=torch.float16)
        P, Q = h + 2 * pad - r + 1, w_ + 2 * pad - r + 1
        z = torch.randn(n, k, P, Q, device=dev, dtype=torch.float16).to(memory_format=cl)
        ref = F.relu(F.conv2d(x.float(), wt.float(), bias.float(), 1, pad) + z.float())
        launch = m.kernel("conv_add_relu").bind(x, wt, bias=bias, z=z, padding=pad)
        compare(f"conv {h}x{w_}x{c}->{k} {r}x{r}", launch, ids,
                lambda: torch.cudnn_convolution_add_relu(x, wt, z, 1.0, bias, (1, 1), (pad, pad), (1, 1), 1),
                "cudnn", lambda: close("conv", launch.result(), ref))
