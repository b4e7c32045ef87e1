"""fp8_loop.py - the fp8 GEMM's k loop timed apart from its epilogue, for
comparing two builds of libevt in alternating processes.

    EVT_LIBRARY=old/libevt.so TAG=old python3 bench/fp8_loop.py
    EVT_LIBRARY=build/libevt.so TAG=new python3 bench/fp8_loop.py    # and again, in turn

Per shape (FP8_SHAPES="MxNxK ...", default bench_fp8's four and one more),
on bench_fp8's operands (randn * 2 in e4m3: the GPU's clock at its power
limit depends on the data, docs/fp8.md): bench_fp8's kernel (row and column
scales, bias, GELU, e4m3 output, amax) with the cooperative tile forced,
in clusters forced, and the heuristic's pick; the same GEMM with D = acc
in bf16 (the k loop nearly alone), cooperative; and torch._scaled_mm with
row-wise scales.  Every result is checked against float64 first.  Times in
µs, each the median of its rounds; the rounds rotate through whole
rotations (bench.side_by_side), so no function keeps one place.  One line
a shape, prefixed by TAG.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evt  # noqa: E402
import bench_fp8  # noqa: E402
from bench import side_by_side  # noqa: E402

dev = torch.device("cuda")
PLAIN = """
epilogue p { out d : bf16[M, N] = acc }
kernel fp8_plain = gemm(a: e4m3 row, b: e4m3 col, acc: f32) with p
"""


def main():
    full = evt.compile(source=bench_fp8.EVT_SOURCE, name="fp8_loop.evt")
    plain = evt.compile(source=PLAIN, name="fp8_loop_plain.evt")
    tag = os.environ.get("TAG", "")
    shapes = os.environ.get("FP8_SHAPES", "8192x8192x8192 4096x4096x4096 16384x4096x1024 "
                                          "4096x14336x4096 3072x5120x4000").split()
    for s in shapes:
        M, N, K = (int(v) for v in s.split("x"))
        x, w, sa, sb, bias, d, amax = bench_fp8.inputs(M, N, K)
        db = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
        acc = x.double() @ w.double().t()
        ref = F.gelu(acc * sa[:, None] * sb[None, :] + bias.double())
        fns, names = [], []
        for cfg, name in (("sm90_coop2_128x128x128_s4_fp8", "coop"),
                          ("sm90_coop2_cl2_128x128x128_s4_fp8", "cl2"), (None, "pick")):
            launch = full.kernel("fp8_linear").bind(x, w.t(), sa=sa, sb=sb, bias=bias, d=d, amax=amax,
                                                    inv_scale=0.25)
            if cfg:
                launch.set_tuning(cfg)
            launch.run()
            torch.cuda.synchronize()
            for v in (evt.check(d, ref * 0.25), evt.check(amax, ref.abs().amax(), reduce="max")):
                if not v:
                    raise SystemExit(f"{name} {s}: {v}: not timing a wrong kernel")
            fns.append(launch.run)
            names.append(name)
        p = plain.kernel("fp8_plain").bind(x, w.t(), d=db).set_tuning("sm90_coop2_128x128x128_s4_fp8")
        p.run()
        torch.cuda.synchronize()
        v = evt.check(db, acc)
        if not v:
            raise SystemExit(f"plain {s}: {v}: not timing a wrong kernel")
        fns.append(p.run)
        names.append("plain")
        fns.append(lambda: bench_fp8.scaled_mm(x, w, sa, sb, bias))
        names.append("scaled_mm")
        ts = side_by_side(*fns, rounds=5, rotate=True)
        print(f"{tag} {s}: " + "  ".join(f"{n} {t * 1e6:.1f}" for n, t in zip(names, ts)), flush=True)
        del acc, ref


if __name__ == "__main__":
    main()
