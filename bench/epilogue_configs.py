"""epilogue_configs.py - light epilogues with and without broadcast inputs (D = acc,
relu, a scale, a bias, relu(acc + bias), a row scale and a bias), bf16, the
heuristic's pick against tile configurations forced by name, batched and not, in
alternating rounds (bench.py's side_by_side, three rounds, L2 flushed).  Every
launch is checked against a float64 reference first.  The probe behind the
short-K rule for epilogues reading a bias (docs/sm90.md, session 33).

    PYTHONPATH=bindings/python python3 bench/epilogue_configs.py
    EP_CASES="6144x8192x128x1 640x1536x128x40"   # MxNxKxL (L 1: not batched)
    EP_CFGS="sm90_pp2_128x128x64_s4 ..."          # the configurations forced
    EP_EPIS="plain bias"                          # which epilogues

Prints one line per case and epilogue: the pick's time, each forced
configuration's (µs), and the pick's configuration.
"""
import os
import sys

import torch

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import side_by_side, check  # noqa: E402

dev = torch.device("cuda")
SRC = """
epilogue e_plain { out y : bf16[M, N] = acc }
epilogue e_relu { out y : bf16[M, N] = relu(acc) }
epilogue e_scale { param alpha : f32 = 1
  out y : bf16[M, N] = acc * alpha }
epilogue e_bias { in bias : bf16[N]
  out y : bf16[M, N] = acc + bias }
epilogue e_relu_bias { in bias : bf16[N]
  out y : bf16[M, N] = relu(acc + bias) }
epilogue e_rowscale { in bias : bf16[N]
  in rs : bf16[M]
  out y : bf16[M, N] = acc * rs + bias }
"""
EPIS = os.environ.get("EP_EPIS", "plain relu scale bias relu_bias rowscale").split()
for e in EPIS:
    SRC += f"kernel k_{e} = gemm(a: bf16 row, b: bf16 col, acc: f32) with e_{e}\n"
m = evt.compile(source=SRC, name="ep.evt")
CFGS = os.environ.get("EP_CFGS", "sm90_pp2_128x128x64_s4 sm90_coop2_128x256x64_s4 sm90_coop2_128x256x64_s3").split()
CASES = [tuple(int(v) for v in c.split("x")) for c in os.environ.get("EP_CASES", "6144x8192x128x1 640x1536x128x40").split()]
dt = torch.bfloat16
print("case epi | pick | " + " | ".join(CFGS), flush=True)
for M, N, K, L in CASES:
    torch.manual_seed(1)
    a = torch.randn(L, M, K, device=dev, dtype=dt)
    w = torch.randn(L, N, K, device=dev, dtype=dt) * K ** -0.5
    bias = torch.randn(N, device=dev, dtype=dt)
    rs = torch.rand(M, device=dev, dtype=dt) + 0.5
    acc = torch.matmul(a.double(), w.double().transpose(1, 2))
    refs = {"plain": acc, "relu": torch.relu(acc), "scale": acc * 1.0, "bias": acc + bias.double(),
            "relu_bias": torch.relu(acc + bias.double()), "rowscale": acc * rs.double()[:, None] + bias.double()}
    args = {"plain": {}, "relu": {}, "scale": {}, "bias": {"bias": bias}, "relu_bias": {"bias": bias},
            "rowscale": {"bias": bias, "rs": rs}}
    aa, bb = (a[0], w[0].t()) if L == 1 else (a, w.transpose(1, 2))
    for e in EPIS:
        launches = []
        for c in [None] + CFGS:
            out = torch.empty(L, M, N, device=dev, dtype=dt) if L > 1 else torch.empty(M, N, device=dev, dtype=dt)
            try:
                ln = m.kernel(f"k_{e}").bind(aa, bb, y=out, **args[e])
                if c:
                    ln.set_tuning(c)
                ln.run()
                torch.cuda.synchronize()
            except evt.EvtError as ex:
                print(f"  {c}: {ex}", flush=True)
                launches.append(None)
                continue
            check(f"{M}x{N}x{K}x{L} {e} {c}", out, refs[e] if L > 1 else refs[e][0])
            launches.append((ln, out))
        if not any(launches):
            continue
        ts = iter(side_by_side(*[x[0].run for x in launches if x], rounds=3))
        cells = [f"{next(ts) * 1e6:.1f}" if x else "-" for x in launches]
        plan = launches[0][0].plan.split()[1] if launches[0] else "?"
        print(f"{M}x{N}x{K} L{L} {e} | " + " | ".join(cells) + f"  [{plan}]", flush=True)
        for x in launches:
            if x:
                x[0].close()
