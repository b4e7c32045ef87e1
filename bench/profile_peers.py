"""profile_peers.py - one launch each of cuDNN's fused relu(conv + b + z), cuDNN's
plain conv and our fused kernel on ResNet-50 shapes, between
cudaProfilerStart/Stop, so that Nsight Compute shows what the peer runs (its
kernel names carry the tile shape) beside ours:

    ncu --profile-from-start off --section LaunchStats --section SpeedOfLight \
        python3 bench/profile_peers.py [SHAPE ...]

SHAPE is N,H,W,C,K,R,S,PAD (default: the 28x28 1x1, 14x14 3x3 and 56x56 3x3
layers of batch 128).  PEERS_CONFIG=NAME forces our tile configuration
(a name of evt.configs(), e.g. sm90_pp2_128x128x64_s4).
"""
import os
import sys

import torch
import torch.nn.functional as F

import evt

cl = torch.channels_last
torch.backends.cudnn.benchmark = True
SRC = """
epilogue add_relu { in bias : f16[N]  in z : f16[M, N]  out y : f16[M, N] = relu(acc + bias + z) }
kernel c_add_relu = conv2d_fprop(x: f16, w: f16, acc: f32) with add_relu
"""
m = evt.compile(source=SRC, name="profile_peers.evt")
shapes = [tuple(int(v) for v in a.split(",")) for a in sys.argv[1:]] or [
    (128, 28, 28, 128, 512, 1, 1, 0), (128, 14, 14, 256, 256, 3, 3, 1), (128, 56, 56, 64, 64, 3, 3, 1)]
for n, h, w_, c, k, r, s, pad in shapes:
    P, Q = h + 2 * pad - r + 1, w_ + 2 * pad - s + 1
    xx = torch.randn(n, c, h, w_, device="cuda", dtype=torch.float16).to(memory_format=cl)
    ww = (torch.randn(k, c, r, s, device="cuda", dtype=torch.float16) * (c * r * s) ** -0.5).to(memory_format=cl)
    bias = torch.randn(k, device="cuda", dtype=torch.float16)
    z = torch.randn(n, k, P, Q, device="cuda", dtype=torch.float16).to(memory_format=cl)
    y = torch.empty(n, k, P, Q, device="cuda", dtype=torch.float16).to(memory_format=cl)
    la = m.kernel("c_add_relu").bind(xx, ww, bias=bias, z=z, y=y, padding=pad)
    la.set_tuning(os.environ.get("PEERS_CONFIG"))
    fns = [lambda: torch.cudnn_convolution_add_relu(xx, ww, z, 1.0, bias, (1, 1), (pad, pad), (1, 1), 1),
           lambda: F.conv2d(xx, ww, None, 1, pad), la.run]
    for f in fns:
        for _ in range(5):
            f()
    torch.cuda.synchronize()
    print(f"shape {n}x{h}x{w_}x{c}->{k} {r}x{s}", flush=True)
    torch.cuda.profiler.start()
    for f in fns:
        f()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
