"""small_gemm.py - small GEMMs (M up to about 1000, few tiles): the heuristic's plan
against the small-problem tiles forced at split-K 1, 2, 4 and 8 (mma.sync 64x64, the
one-warpgroup wgmma 64x128 and 64x64, the two-warpgroup wgmma 128x128), and cuBLASLt's fused
bias + GELU; f16, A row-major, B column-major.  Every launch is checked against
float64 first; then all are timed in three alternating rounds as the wide sweep
times them (bench.graph_side_by_side: CUDA graphs, GPU time only; timed call by
call, the host's launch cost hid differences of a few microseconds).
One line a shape, the best plan and the pick against cuBLASLt; a forced plan
marked "+" summed its split-K shares in their clusters.  docs/sm90.md
("Small problems") has a run.

    PYTHONPATH=bindings/python python3 bench/small_gemm.py
    SMALL_GEMM_SHAPES="16x4096x4096 77x3000x1000" ...   (MxNxK, space-separated)
    SMALL_GEMM_SECONDS=150 ...   (stop starting new shapes after that long)
    SMALL_GEMM_CANDS="sm90_wg1_64x128x64_s8:0,2,4" ...   (the forced plans instead:
        configuration:split-K ways, 0 the planner's, "sk" stream-K; "none": the pick alone)
    SMALL_GEMM_SHAPES="16x4096x4096@sm90_wg1_64x64x64_s8:0@sm90_wg1_16x64x64_s16:0" ...
        (a shape's own forced plans, in place of the others: a held-out set's old
        and new picks, each at the planner's split; "CONFIG:sk" forces stream-K)
"""
import os
import sys
import time

import torch
import torch.nn.functional as F

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import EVT_SOURCE, graph_side_by_side  # noqa: E402

dev = torch.device("cuda")
m = evt.compile(source=EVT_SOURCE, name="small_gemm.evt")
cands = [("sm80_64x64x32_w4_s4", s) for s in (1, 2, 4, 8)] + \
        [("sm90_wg1_64x128x64_s4", s) for s in (1, 2, 4, 8)] + \
        [("sm90_wg1_64x64x64_s8", s) for s in (1, 2, 4, 8)] + \
        [("sm90_wg2_128x128x64_s3", s) for s in (1, 2, 4)]
if os.environ.get("SMALL_GEMM_CANDS") == "none":  # the pick alone against cuBLASLt (a survey)
    cands = []
elif os.environ.get("SMALL_GEMM_CANDS"):  # "CONFIG:S,S,... CONFIG:S,..." (S: split-K ways, 0 the planner's)
    cands = [(c.split(":")[0], s if s == "sk" else int(s)) for c in os.environ["SMALL_GEMM_CANDS"].split()
             for s in c.split(":")[1].split(",")]
shapes = [(1,4096,4096),(16,4096,4096),(128,4096,4096),(16,11008,4096),(77,4096,11008),(128,2560,2560),
          (16,2560,2560),(512,1024,4096),(1,1024,4096),(128,1024,4096),(16,768,768),(333,768,768),
          (77,256,16384),(512,256,16384),(128,16384,256),(16,5120,1280),(77,3000,1000),(512,3000,1000),
          (333,11008,4096),(1000,2560,2560),(512,4096,11008),(256,8192,8192),(64,14336,4096),(200,3072,768)]
own = {}  # (M, N, K) -> that shape's forced plans
if os.environ.get("SMALL_GEMM_SHAPES"):
    shapes = []
    for s in os.environ["SMALL_GEMM_SHAPES"].split():
        shape, *plans = s.split("@")
        shapes.append(tuple(int(x) for x in shape.split("x")))
        if plans:
            own[shapes[-1]] = [(p.split(":")[0], p.split(":")[1]) for p in plans]
t0 = time.time()
failed = False
for M, N, K in shapes:
    if time.time() - t0 > float(os.environ.get("SMALL_GEMM_SECONDS", "200")):
        print("time is up", flush=True)
        break
    torch.manual_seed(M * 7 + N)
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    w = torch.randn(N, K, device=dev, dtype=torch.float16) * K ** -0.5
    bias = torch.randn(N, device=dev, dtype=torch.float16)
    ref = F.gelu(a.double() @ w.double().t() + bias.double())
    k = m.kernel("linear_gelu")
    launches, names = [k.bind(a, w.t(), bias=bias)], ["pick"]
    for c, s in own.get((M, N, K), cands):
        try:
            sk = s == "sk"  # stream-K, where the configuration has it
            launch = k.bind(a, w.t(), bias=bias).set_tuning(c, split_k=0 if sk else int(s), stream_k=2 if sk else 0)
            launch.run()
            torch.cuda.synchronize()
        except evt.EvtError as e:
            print(f"  {c}/{s}: {type(e).__name__} {str(e)[:80]}")
            continue
        launches.append(launch)
        # "+": the shares summed in their clusters (the runtime may decline clusters: docs/sm90.md)
        names.append(f"{c.split('_', 1)[1]}/{s}" + ("+" if "cluster-sum" in launch.plan else ""))
    bad = False
    for n_, launch in zip(names, launches):
        launch.run()
        torch.cuda.synchronize()
        v = evt.check(launch.result(), ref)
        if not v:
            print(f"  FAIL {M}x{N}x{K} {n_}: {v}", flush=True)
            bad = True
    if bad:  # not timing a wrong kernel
        failed = True
        continue
    peer = lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)
    ts = graph_side_by_side(peer, *(launch.run for launch in launches), rounds=3)
    best = min(range(1, len(ts)), key=lambda i: ts[i])
    cells = "  ".join(f"{n_} {ts[i + 1] * 1e6:.1f}" for i, n_ in enumerate(names))
    print(f"{M}x{N}x{K}: lt {ts[0]*1e6:.1f}  {cells}  | best {names[best-1]} {ts[0]/ts[best]:.2f}x lt, pick {ts[0]/ts[1]:.2f}x  [{launches[0].plan}]", flush=True)
    for launch in launches:
        launch.close()
sys.exit(1 if failed else 0)
