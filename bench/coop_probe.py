"""coop_probe.py - the heuristic's pick, the 128x256 cooperative tile and the ping-pong
tile on GEMM + bias + GELU with an aux output (bf16) and D = acc (f16), event-timed
(bench.side_by_side, three alternating rounds), every result checked first: the
tables of docs/sm90.md's "The 128x256 cooperative tile".

    SHAPES="4096x4096x1024 ..." PYTHONPATH=bindings/python python3 bench/coop_probe.py
"""
import os
import sys
import time

import torch

import evt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import side_by_side  # noqa: E402
from plans import problem  # noqa: E402

CO, PP = "sm90_coop2_128x256x64_s3", "sm90_pp2_128x128x64_s4"
shapes = os.environ.get("SHAPES", "4096x4096x512 4096x4096x1024 1536x4096x4096").split()
t0 = time.time()
for kernel in ["k_gelu_aux", "k_plain"]:
    for s in shapes:
        M, N, K = (int(v) for v in s.split("x"))
        bind, ref, name, peer = problem(kernel, M, N, K)
        ls = [bind(), bind().set_tuning(CO), bind().set_tuning(PP)]
        for l in ls:
            l.run()
            torch.cuda.synchronize()
            r = l.result()
            v = evt.check(r[name] if isinstance(r, tuple) else r, ref)
            assert v, f"{kernel} {s}: {v}"
        ts = side_by_side(peer, *(l.run for l in ls), rounds=3)
        pick = ls[0].plan.split()[1]
        print(f"{kernel:10s} {s:16s} peer {ts[0]*1e6:7.1f} pick {ts[1]*1e6:7.1f} coop {ts[2]*1e6:7.1f} "
              f"pp {ts[3]*1e6:7.1f} [{pick}] coop/pp {ts[3]/ts[2]:.3f}  ({time.time()-t0:.0f}s)", flush=True)
        for l in ls:
            l.close()
        del ref
        torch.cuda.empty_cache()
