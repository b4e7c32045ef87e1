"""profile_conv.py - one fused conv launch relu(conv + b + z) of a ResNet-50 shape, for ncu:
    ncu --kernel-name regex:evt_ --launch-skip 3 --launch-count 1 python3 bench/profile_conv.py [N H W C K R S PAD]
(default: 128 56 56 64 256 1 1 0, the first shape of bench/sweep.py).
"""
import sys

import torch
import evt

cl = torch.channels_last
SRC = """
epilogue add_relu { in bias : f16[N]  in z : f16[M, N]  out y : f16[M, N] = relu(acc + bias + z) }
epilogue plain { out y : f16[M, N] = acc }
kernel c_add_relu = conv2d_fprop(x: f16, w: f16, acc: f32) with add_relu
kernel c_plain = conv2d_fprop(x: f16, w: f16, acc: f32) with plain
"""
m = evt.compile(source=SRC, name="profile.evt")
n, h, w_, c, k, r, s, pad = [int(v) for v in sys.argv[1:9]] if len(sys.argv) > 8 else (128, 56, 56, 64, 256, 1, 1, 0)
P, Q = h + 2 * pad - r + 1, w_ + 2 * pad - s + 1
xx = torch.randn(n, c, h, w_, device="cuda", dtype=torch.float16).to(memory_format=cl)
ww = (torch.randn(k, c, r, s, device="cuda", dtype=torch.float16) * (c * r * s) ** -0.5).to(memory_format=cl)
bias = torch.randn(k, device="cuda", dtype=torch.float16)
z = torch.randn(n, k, P, Q, device="cuda", dtype=torch.float16).to(memory_format=cl)
y = torch.empty(n, k, P, Q, device="cuda", dtype=torch.float16).to(memory_format=cl)
lp = m.kernel("c_plain").bind(xx, ww, y=y, padding=pad)
la = m.kernel("c_add_relu").bind(xx, ww, bias=bias, z=z, y=y, padding=pad)
for _ in range(4):
    lp.run()
    la.run()
torch.cuda.synchronize()
print("plain ms", lp.benchmark(), "add_relu ms", la.benchmark())
