"""The fused ResNet blocks of examples/resnet_block.evt on the six ResNet-50
layer shapes of ../shared/anchors/README.md (batch 128), against PyTorch's
F.conv2d in float64 on channels-last tensors.

    PYTHONPATH=bindings/python python3 tests/python/test_resnet_shapes.py

Exits 77 (skipped) without PyTorch or a GPU; prints 'N passed, N failed'.
Each f16 output is judged by libevt's verification policy (evt.check, the one
of `evtc run --check`; docs/runtime.md): within 2e-3 of the float64 result
rounded to f16, relative to max(|ref|, RMS(ref)), NaN and inf matched exactly.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
try:
    import evt
except ImportError:
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    import evt

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: no GPU")
    sys.exit(77)

SHAPES = [  # n, h, w, c, k, r, s, pad
    (128, 56, 56, 64, 256, 1, 1, 0),
    (128, 56, 56, 64, 64, 3, 3, 1),
    (128, 28, 28, 128, 512, 1, 1, 0),
    (128, 14, 14, 256, 1024, 1, 1, 0),
    (128, 14, 14, 256, 256, 3, 3, 1),
    (128, 7, 7, 512, 2048, 1, 1, 0),
]


def main():
    cl = torch.channels_last
    m = evt.compile(path=str(ROOT / "examples" / "resnet_block.evt"))
    gen = torch.Generator(device="cuda").manual_seed(7)
    passed = failed = 0
    for n, h, w_, c, k, r, s, pad in SHAPES:
        x = torch.randn(n, c, h, w_, device="cuda", generator=gen).half().to(memory_format=cl)
        w = (torch.randn(k, c, r, s, device="cuda", generator=gen) * (c * r * s) ** -0.5).half()
        w = w.to(memory_format=cl)
        bias = torch.randn(k, device="cuda", generator=gen).half()
        conv = F.conv2d(x.double(), w.double(), bias.double(), 1, pad)
        z = torch.randn(conv.shape, device="cuda", generator=gen).half().to(memory_format=cl)
        refs = {"resnet_relu_add": F.relu(conv) + z.double(),
                "resnet_add_relu": F.relu(conv + z.double())}
        for name, ref in refs.items():
            y = m.kernel(name)(x, w, bias=bias, residual=z, padding=pad)
            torch.cuda.synchronize()
            assert y.is_contiguous(memory_format=cl), "output is not channels-last"
            verdict = evt.check(y, ref)
            label = f"{name} {n}x{h}x{w_}x{c}->{k} {r}x{s} pad {pad}"
            print(f"{'ok  ' if verdict else 'FAIL'} {label}: {verdict}", flush=True)
            passed += bool(verdict)
            failed += not verdict
            del y
        del x, w, bias, conv, z, refs
        torch.cuda.empty_cache()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
