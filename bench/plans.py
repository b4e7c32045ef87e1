"""plans.py - the heuristic's plan against plans forced by configuration and split, on
GEMMs, graph-timed (bench.graph_side_by_side: GPU time, alternating rounds), every result
checked first.  The tables of docs/tuning.md and docs/sm90.md (session 12) come from it.

    PYTHONPATH=bindings/python python3 bench/plans.py [tail] [staged] [streams]

tail     D = acc (f16) against cuBLAS, and gelu with an aux output (bf16): the ping-pong
         and the 128x256 cooperative tiles with their last wave whole and split 2 and 4
         ways (a persistent plan's tail, docs/tuning.md; on sm_90a the tail's shares sum
         in their clusters where api/launch.c takes them)
staged   relu(acc + bias) + z (f16) at short K against eager PyTorch: the staged
         producer/consumer tile, the ping-pong and the 128x128 / 128x256 wgmma tiles
streams  relu(acc + bias) + z, and gelu with an aux output (bf16): the ping-pong
         tile against the 128x128 wgmma tile at K <= 1024 (the epilogue-aware
         rule tried and dropped, docs/tuning.md)
coop     D = acc, relu(acc + bias) + z and gelu with an aux output: the 128x256
         cooperative tile against the ping-pong and the 128x256 wgmma tiles, K from
         256 up (where the heuristic takes it, docs/sm90.md)
$SHAPES (MxNxK ...) replaces a mode's shapes.
"""
import os
import sys

import torch
import torch.nn.functional as F

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import graph_side_by_side  # noqa: E402

SRC = """
epilogue plain { out y : f16[M, N] = acc }
kernel k_plain = gemm(a: f16 row, b: f16 col, acc: f32) with plain
epilogue relu_add { in bias : f16[N]  in z : f16[M, N]  out y : f16[M, N] = relu(acc + bias) + z }
kernel k_relu_add = gemm(a: f16 row, b: f16 col, acc: f32) with relu_add
epilogue gelu_aux { in bias : bf16[N]  out aux : bf16[M, N] = acc + bias  out y : bf16[M, N] = gelu(aux) }
kernel k_gelu_aux = gemm(a: bf16 row, b: bf16 col, acc: f32) with gelu_aux
"""
PP = "sm90_pp2_128x128x64_s4"
COOP = "sm90_coop2_128x256x64_s3"
MODES = {
    "tail": ("1000x2560x2560 2048x2560x2560 2000x2300x4096 3000x5000x4000 8192x5120x1280 "
             "16384x3000x1000 4096x14336x4096 512x4096x11008 2048x11008x4096 333x14336x4096",
             [(None, 0), (PP, 1), (PP, 2), (PP, 4), (COOP, 1), (COOP, 2), (COOP, 4)]),
    "staged": ("100352x256x64 25088x512x128 40000x1024x128 16384x4096x128 8192x2048x64 "
               "50000x768x96 12544x2048x128 30000x640x128 16384x4096x256",
               [(None, 0), ("sm90_pp2_128x128x64_s2_staged", 0), (PP, 0), ("sm90_wg2_128x128x64_s3", 0),
                ("sm90_wg2_128x256x64_s4", 0)]),
    "streams": ("8192x1024x512 3000x5120x768 12288x1536x1024 6000x3000x640 2500x8192x1024 "
                "16384x2048x2048 4096x3072x896",
                [(None, 0), (PP, 0), ("sm90_wg2_128x128x64_s3", 0)]),
    "coop": ("4096x4096x256 4096x4096x512 4096x4096x1024 4096x4096x2048 8192x5120x512 8192x5120x1280 "
             "16384x3000x1000 3000x5000x768 2048x2048x2048 1536x4096x4096 6000x7000x512 12288x1536x1024 "
             "2500x8192x1024 4096x14336x256",
             [(None, 0), ("sm90_coop2_128x256x64_s3", 0), (PP, 0), ("sm90_wg2_128x256x64_s4", 0)]),
}
m = evt.compile(source=SRC, name="plans.evt")


def problem(kernel, M, N, K):
    """(bind, reference, output name, peer) of kernel on fresh random inputs."""
    torch.manual_seed(M + N + K)
    dt = torch.bfloat16 if kernel == "k_gelu_aux" else torch.float16
    a = torch.randn(M, K, device="cuda", dtype=dt)
    w = torch.randn(N, K, device="cuda", dtype=dt) * K ** -0.5
    bias = torch.randn(N, device="cuda", dtype=dt)
    acc = a.double() @ w.double().t()
    if kernel == "k_plain":
        return (lambda: m.kernel(kernel).bind(a, w.t())), acc, "y", (lambda: torch.mm(a, w.t()))
    if kernel == "k_gelu_aux":
        return ((lambda: m.kernel(kernel).bind(a, w.t(), bias=bias)), acc + bias.double(), "aux",
                (lambda: F.gelu(torch.addmm(bias, a, w.t()))))
    z = torch.randn(M, N, device="cuda", dtype=dt)
    return ((lambda: m.kernel(kernel).bind(a, w.t(), bias=bias, z=z)), F.relu(acc + bias.double()) + z.double(),
            "y", (lambda: torch.relu(torch.addmm(bias, a, w.t())) + z))


def run(mode, kernel):
    shapes, plans = MODES[mode]
    for s in os.environ.get("SHAPES", shapes).split():
        M, N, K = (int(v) for v in s.split("x"))
        bind, ref, name, peer = problem(kernel, M, N, K)
        launches = []
        for config, split in plans:
            launch = bind()
            if config:
                launch.set_tuning(config, split_k=split)
            launch.run()
            torch.cuda.synchronize()
            r = launch.result()
            verdict = evt.check(r[name] if isinstance(r, tuple) else r, ref)
            assert verdict, f"{kernel} {s} {config} /{split}: {verdict}"
            launches.append(launch)
        ts = graph_side_by_side(peer, *(launch.run for launch in launches))
        cells = "  ".join(f"{config or 'pick'}/{split}: {t * 1e6:.1f}" for (config, split), t in zip(plans, ts[1:]))
        print(f"{mode:7s} {kernel:11s} {s:17s} peer {ts[0] * 1e6:7.1f}  {cells}  [pick: {launches[0].plan}]",
              flush=True)
        for launch in launches:
            launch.close()


def main():
    modes = sys.argv[1:] or list(MODES)
    for mode in modes:
        if mode not in MODES:
            sys.exit(f"plans.py: unknown mode {mode} (tail, staged, streams, coop)")
        for kernel in {"tail": ["k_plain", "k_gelu_aux"], "staged": ["k_relu_add"],
                       "streams": ["k_relu_add", "k_gelu_aux"],
                       "coop": ["k_plain", "k_relu_add", "k_gelu_aux"]}[mode]:
            run(mode, kernel)


if __name__ == "__main__":
    main()
