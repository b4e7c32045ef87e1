"""batched_configs.py - batched GEMM + bias + ReLU / GELU (bf16): the heuristic's
pick against tile configurations forced by name, beside torch.bmm, in alternating
rounds (bench.py's side_by_side; triton do_bench, L2 flushed).  Every launch is
checked against a float64 reference first.  The probe behind the short-K rule of
docs/sm90.md (the cooperative tile at K <= 128 with many tiles).

    PYTHONPATH=bindings/python python3 bench/batched_configs.py
    BB_CFGS="sm90_wg2_128x128x64_s3 sm90_coop2_128x256x64_s3" ...   # the configurations forced
    BB_CASES="512x768x64x128 256x4096x1024x8s" ...   # MxNxKxL cases (s: B shared) instead of CASES
    BB_ACTS="relu"                                   # the activations (default: relu gelu)
    BB_CFGS="sm90_pp2_128x128x64_s4:sh" ...            # :sh, the shared-memory tile's epilogue (not the direct one)
    BB_TANH=1                                        # the GELU as gelu_tanh under fast math
                                                     # (bench_batched's --gelu tanh --fast-math)

Prints one line per case and activation: bmm's time, the pick's, each forced
configuration's (µs), and the pick's plan.
"""
import os
import sys

import torch

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import side_by_side, check, gelu_tanh_source, gelu_of  # noqa: E402
from bench_batched import EVT_SOURCE, ACTS, short_plan  # noqa: E402

dev = torch.device("cuda")
CFGS = os.environ.get("BB_CFGS", "sm90_wg2_128x128x64_s3 sm90_wg2_128x256x64_s4 sm90_pp2_128x128x64_s4 "
                      "sm90_coop2_128x256x64_s3 sm90_wg1_64x128x64_s4").split()
# (M, N, K, L, weight shared by the batch)
CASES = [(128, 128, 64, 512, False), (512, 512, 64, 256, False), (1024, 1024, 128, 64, False),
         (2048, 2048, 128, 32, False), (256, 4096, 1024, 8, False), (256, 4096, 1024, 8, True),
         (512, 1024, 4096, 8, False), (200, 1408, 2048, 64, False), (1000, 1000, 1000, 16, False),
         (64, 64, 64, 4096, False), (300, 200, 96, 128, False)]
if os.environ.get("BB_CASES"):
    CASES = [tuple(int(v) for v in c.rstrip("s").split("x")) + (c.endswith("s"),)
             for c in os.environ["BB_CASES"].split()]
RUN_ACTS = os.environ.get("BB_ACTS", "relu gelu").split()


TANH = os.environ.get("BB_TANH") == "1"
REF_ACTS = dict(ACTS, gelu=gelu_of("tanh" if TANH else "erf"))


def main():
    m = evt.compile(source=gelu_tanh_source(EVT_SOURCE) if TANH else EVT_SOURCE, name="batched_configs.evt",
                    fast_math=TANH)
    dt = torch.bfloat16
    print("case act | bmm | pick | " + " | ".join(CFGS), flush=True)
    for M, N, K, L, shared in CASES:
        torch.manual_seed(0)
        a = torch.randn(L, M, K, device=dev, dtype=dt)
        if shared:
            w = torch.randn(N, K, device=dev, dtype=dt) * K ** -0.5
            b = w.t()
            b3 = b.unsqueeze(0).expand(L, K, N)
            b_ref = w.double().t()
        else:
            w = torch.randn(L, N, K, device=dev, dtype=dt) * K ** -0.5
            b = b3 = w.transpose(1, 2)
            b_ref = w.double().transpose(1, 2)
        bias = torch.randn(N, device=dev, dtype=dt)
        ref = torch.matmul(a.double(), b_ref) + bias.double()
        for act in RUN_ACTS:
            launches = []
            for c in [None] + CFGS:
                out = torch.empty(L, M, N, device=dev, dtype=dt)
                launch = m.kernel(f"{act}_bf16").bind(a, b, bias=bias, y=out)
                try:
                    if c:  # NAME:sh: the shared-memory epilogue instead of the direct one
                        launch.set_tuning(c.removesuffix(":sh"), shared_epilogue=c.endswith(":sh"))
                    launch.run()
                    torch.cuda.synchronize()
                except evt.EvtError as e:  # a configuration that cannot run this kernel: say so
                    print(f"  {c}: {type(e).__name__}: {e}", flush=True)
                    launch.close()
                    launches.append(None)
                    continue
                check(f"{M}x{N}x{K} L{L} {act} {c or 'pick'}", out, REF_ACTS[act](ref))
                launches.append(launch)
            runs = [x.run for x in launches if x]
            ts = iter(side_by_side(lambda: torch.bmm(a, b3), *runs, rounds=3))
            bmm = next(ts)
            cells = [f"{next(ts) * 1e6:.1f}" if x else "-" for x in launches]
            print(f"{M}x{N}x{K} L{L}{' shared' if shared else ''} {act} | {bmm * 1e6:.1f} | " +
                  " | ".join(cells) + f"  [pick {short_plan(launches[0].plan) if launches[0] else '?'}]",
                  flush=True)
            for x in launches:
                if x:
                    x.close()


if __name__ == "__main__":
    main()
