"""Tests of evt's PyTorch integration: kernels as torch.library custom ops
(Kernel.torch_op), torch.compile, CUDA graph capture, and the signature
cache of kernel(...) calls.

Run with pytest (`PYTHONPATH=bindings/python python -m pytest -q
tests/python/test_torch.py`) or as a script (`python3
tests/python/test_torch.py`, printing `N passed, N failed, N skipped`).
Without PyTorch every test skips.  Without a GPU these run: the ops'
schemas and registration, their fake implementation under FakeTensorMode
and on meta tensors, torch.compile(fullgraph=True) tracing on meta tensors
(backends eager and aot_eager, static and dynamic shapes),
torch.library.opcheck on meta tensors, and the signature cache with the
library's run stubbed out.  With a GPU: opcheck on CUDA tensors,
torch.compile with inductor (and CUDA graphs) against eager and a float64
reference, and CUDA graph capture and replay of calls, bound launches and
ops, with reduction and split-K workspaces.
"""

import contextlib
import ctypes
import itertools
import logging
import os
import sys
import tempfile
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_binding import (FakeTensor, check_close, environ, evt, examples, gelu64, need_gpu,  # noqa: E402
                          raises, run_tests, skip)

try:
    import torch
    import torch.nn.functional as F
    from torch._subclasses.fake_tensor import FakeTensorMode
except ImportError:
    torch = None


def need_torch():
    if torch is None:
        skip("PyTorch is not installed")


_names = itertools.count()


def op_of(kernel):
    """kernel as a custom op under a name no other test has taken (ops are
    registered for the process's life)."""
    return kernel.torch_op(f"evt_tests::{kernel.name}_{next(_names)}")


def schema(op):
    return op._opoverload._schema


def bf16(*shape, device="cuda"):
    return torch.randn(*shape, device=device, dtype=torch.bfloat16)


def f16(*shape, device="cuda"):
    return torch.randn(*shape, device=device, dtype=torch.float16)


# ---- without a GPU: schemas, registration ---------------------------------------------


def test_schemas_from_the_kernels():
    need_torch()
    m = examples()
    want = {
        "mlp_up": "(Tensor a, Tensor b_operand, Tensor b) -> Tensor",
        "train_fwd": "(Tensor a, Tensor b, Tensor bias, *, float scale=1.) "
                     "-> (Tensor, Tensor, Tensor)",
        "dequant": "(Tensor a, Tensor b, Tensor sa, Tensor sb) -> (Tensor, Tensor)",
        "resnet_block": "(Tensor x, Tensor w, Tensor bias, Tensor residual, *, "
                        "float alpha=1., int[2] padding=0, int[2] stride=1, "
                        "int[2] dilation=1) -> Tensor",
    }
    for name, text in want.items():
        s = schema(op_of(m.kernel(name)))
        assert str(s).endswith(text), (name, str(s))
        # Outputs are allocated by the op: no argument is written or aliased.
        assert not any(a.alias_info for a in s.arguments), str(s)
        assert not any(r.alias_info for r in s.returns), str(s)
    src = ("epilogue e { param beta : f32  in s : f32  out y : f32[M, N] = acc * beta + s }\n"
           "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n")
    s = schema(op_of(evt.compile(source=src).kernel("k")))
    assert str(s).endswith("(Tensor a, Tensor b, Tensor s, *, float beta) -> Tensor"), str(s)


def test_registration_once_per_name():
    need_torch()
    m = examples()
    name = f"evt_tests::mlp_up_{next(_names)}"
    op = m.kernel("mlp_up").torch_op(name)
    assert m.kernel("mlp_up").torch_op(name) is op
    assert torch.ops.evt_tests.__getattr__(name.split("::")[1]).default.name() == name
    with raises(ValueError, name, "mlp_up"):
        m.kernel("dequant").torch_op(name)
    with raises(ValueError, name):
        examples().kernel("mlp_up").torch_op(name)  # another module's


# ---- without a GPU: the fake implementation ----------------------------------------------


def test_fake_outputs_follow_the_operands():
    need_torch()
    m = examples()
    mlp_up, train_fwd = op_of(m.kernel("mlp_up")), op_of(m.kernel("train_fwd"))
    dequant, resnet = op_of(m.kernel("dequant")), op_of(m.kernel("resnet_block"))
    with FakeTensorMode():
        x, w, b = bf16(100, 64), bf16(48, 64), bf16(48)
        y = mlp_up(x, w.t(), b)
        assert (y.shape, y.stride(), y.dtype, str(y.device)) == \
            ((100, 48), (48, 1), torch.bfloat16, "cuda:0")
        xh, wh, bh = f16(100, 64), f16(48, 64), f16(48)
        pre, yq, amax = train_fwd(xh, wh.t(), bh, scale=0.5)
        assert (pre.shape, pre.dtype, yq.dtype) == ((100, 48), torch.float16,
                                                    torch.float8_e4m3fn)
        assert (amax.shape, amax.dtype) == ((), torch.float32)  # a scalar reduction
        d, rowsum = dequant(xh, wh.t(), torch.empty(100, device="cuda"),
                            torch.empty(48, device="cuda"))
        assert (d.shape, d.dtype, rowsum.shape, rowsum.dtype) == \
            ((100, 48), torch.bfloat16, (100,), torch.float32)  # an [M] reduction

        cl = torch.channels_last
        xc = f16(2, 64, 14, 14).to(memory_format=cl)
        wc = f16(32, 64, 3, 3).to(memory_format=cl)
        out = resnet(xc, wc, f16(32), f16(2, 32, 7, 7).to(memory_format=cl), padding=1,
                     stride=2, alpha=0.5)
        assert out.shape == (2, 32, 7, 7) and out.is_contiguous(memory_format=cl)
        out = resnet(f16(2, 14, 14, 64), f16(32, 3, 3, 64), f16(32), f16(2, 12, 12, 32))
        assert out.shape == (2, 12, 12, 32) and out.is_contiguous()  # NHWC in, NHWC out

        # The call's checks run while tracing, with their messages.
        with raises(evt.ArgumentError, "operand 'b'", "W.t()"):
            mlp_up(x, w, b)
        fake_log = logging.getLogger("torch._subclasses.fake_tensor")
        level = fake_log.level
        fake_log.setLevel(logging.CRITICAL)  # it logs every TypeError raised in it
        try:
            with raises(evt.ArgumentTypeError, "input 'b'", "torch.bfloat16"):
                mlp_up(x, w.t(), f16(48))
        finally:
            fake_log.setLevel(level)
        with raises(evt.ArgumentError, "residual"):
            resnet(xc, wc, f16(32), f16(2, 32, 9, 9).to(memory_format=cl), padding=1, stride=2)


def test_meta_tensors_and_opcheck():
    need_torch()
    m = examples()
    mlp_up, train_fwd = op_of(m.kernel("mlp_up")), op_of(m.kernel("train_fwd"))
    dequant, resnet = op_of(m.kernel("dequant")), op_of(m.kernel("resnet_block"))
    meta = dict(device="meta")
    y = mlp_up(bf16(30, 64, **meta), bf16(48, 64, **meta).t(), bf16(48, **meta))
    assert y.device.type == "meta" and y.shape == (30, 48)
    cl = torch.channels_last
    cases = [
        (mlp_up, (bf16(30, 64, **meta), bf16(48, 64, **meta).t(), bf16(48, **meta)), {}),
        (train_fwd, (f16(30, 64, **meta), f16(48, 64, **meta).t(), f16(48, **meta)),
         {"scale": 0.5}),
        (dequant, (f16(30, 64, **meta), f16(48, 64, **meta).t(),
                   torch.empty(30, **meta), torch.empty(48, **meta)), {}),
        (resnet, (f16(2, 16, 9, 9, **meta).to(memory_format=cl),
                  f16(8, 16, 3, 3, **meta).to(memory_format=cl), f16(8, **meta),
                  f16(2, 8, 9, 9, **meta).to(memory_format=cl)), {"padding": 1}),
    ]
    for op, args, kw in cases:
        # The fake implementation against itself (meta tensors run it), under
        # the schema, autograd-registration, fake-tensor and dynamic-shape tests.
        result = torch.library.opcheck(op, args, kw)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)


# ---- without a GPU: torch.compile traces on meta tensors ------------------------------


class Mlp(torch.nn.Module if torch is not None else object):
    """Linear + GELU by an evt op, then plain PyTorch around it."""

    def __init__(self, op, k, n, device):
        super().__init__()
        self.op = op
        self.lin = torch.nn.Linear(k, n, device=device, dtype=torch.bfloat16)

    def forward(self, x):
        return self.op(x, self.lin.weight.t(), self.lin.bias) * 2 + 1


def test_compile_fullgraph_traces_the_op():
    need_torch()
    m = examples()
    op = op_of(m.kernel("mlp_up"))
    model = Mlp(op, 64, 48, "meta").requires_grad_(False)  # no autograd: inference
    for backend in ("eager", "aot_eager"):
        for dynamic in (False, True):
            graphs = []

            def record(gm, inputs):
                graphs.append(gm)
                return gm.forward

            torch._dynamo.reset()
            traced = torch.compile(model, fullgraph=True, backend=record, dynamic=dynamic)
            for rows in (100, 37):
                y = traced(bf16(rows, 64, device="meta"))
                assert (y.shape, y.dtype, y.device.type) == ((rows, 48), torch.bfloat16, "meta")
            assert graphs, (backend, dynamic)
            assert any(n.target is op._opoverload for n in graphs[0].graph.nodes), \
                graphs[0].graph
            torch._dynamo.reset()
            y = torch.compile(model, fullgraph=True, backend=backend, dynamic=dynamic)(
                bf16(50, 64, device="meta"))
            assert y.shape == (50, 48)
    # A conv op under dynamic shapes: the output size stays an expression.
    resnet = op_of(m.kernel("resnet_block"))
    cl = torch.channels_last

    def block(x, w, b, r):
        return resnet(x, w, b, r, padding=1, stride=2)

    torch._dynamo.reset()
    traced = torch.compile(block, fullgraph=True, backend="aot_eager", dynamic=True)
    for hw in (14, 10):
        out = traced(f16(2, 16, hw, hw, device="meta").to(memory_format=cl),
                     f16(8, 16, 3, 3, device="meta").to(memory_format=cl),
                     f16(8, device="meta"),
                     f16(2, 8, hw // 2, hw // 2, device="meta").to(memory_format=cl))
        assert out.shape == (2, 8, hw // 2, hw // 2)
    torch._dynamo.reset()


# ---- without a GPU: the signature cache, the library's run stubbed -----------------------


@contextlib.contextmanager
def stubbed_gpu(runs):
    """CPU tensors pass for CUDA ones, PyTorch's CUDA calls are stood in for,
    and the library's run only counts itself in `runs`: enough of a GPU for
    kernel(...)'s Python path, signature cache included."""
    from evt import _module, _tensor
    lib = evt._lib.lib
    saved = (_tensor.device_of, _module._CUDA_TORCH, _module._PLAIN_TENSORS,
             _module._current_stream, _module._device_guard, lib.evt_launch_run_with_workspace)
    proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_size_t)
    _tensor.device_of = lambda obj: ("cuda", 0)
    _module._CUDA_TORCH = torch
    _module._PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)
    _module._current_stream = lambda index: 0
    _module._device_guard = lambda index: contextlib.nullcontext()
    lib.evt_launch_run_with_workspace = proto(lambda h, s, ws, n: runs.append(h) or 0)
    try:
        yield
    finally:
        (_tensor.device_of, _module._CUDA_TORCH, _module._PLAIN_TENSORS,
         _module._current_stream, _module._device_guard,
         lib.evt_launch_run_with_workspace) = saved


def test_signature_cache():
    need_torch()
    if torch.cuda.is_available():
        skip("a GPU is present: the GPU tests cover the cache on real launches")
    runs = []
    m = examples()
    k = m.kernel("mlp_up")
    M, N, K = 80, 24, 32
    a, w, bias = bf16(M, K, device="cpu"), bf16(N, K, device="cpu"), bf16(N, device="cpu")
    with stubbed_gpu(runs):
        y1 = k(a, w.t(), b=bias)
        native = k._natives[None]
        # the problem: (m, n, k, a, lda, a bytes, b, ldb, b bytes)
        assert native.bound[None] == (M, N, K, a.data_ptr(), K, M * K * 2, w.data_ptr(), K,
                                      N * K * 2)
        assert native.bound[b"y"][1] == y1.data_ptr() and native.bound[b"b"][1] == \
            bias.data_ptr()
        assert len(k._calls) == 1 and len(runs) == 1

        # The same signature: a hit that rebinds every pointer and allocates anew.
        a2 = a.clone()
        y2 = k(a2, w.t(), b=bias)
        assert len(k._calls) == 1 and len(runs) == 2
        assert y2 is not y1 and (y2.shape, y2.dtype) == ((M, N), torch.bfloat16)
        assert native.bound[None][3] == a2.data_ptr()
        assert native.bound[b"y"][1] == y2.data_ptr()
        given = torch.empty(M, N, dtype=torch.bfloat16)
        assert k(a, w.t(), b=bias, y=given) is given  # an output given: its own signature
        assert native.bound[b"y"][1] == given.data_ptr() and len(k._calls) == 2

        # Strides, shape or dtype changed: checked again, a new signature or an error.
        padded = bf16(M, K + 8, device="cpu")[:, :K]
        k(padded, w.t(), b=bias)
        assert native.bound[None][4] == K + 8 and len(k._calls) == 3
        y = k(a[:7], w.t(), b=bias)
        assert y.shape == (7, N) and native.bound[None][0] == 7 and len(k._calls) == 4
        with raises(evt.ArgumentTypeError, "operand 'a'"):
            k(a.half(), w.t(), b=bias)
        with raises(evt.ArgumentError, "operand 'b'"):
            k(a, w, b=bias)  # [N, K] where [K, N] is due: the strides differ
        assert len(k._calls) == 4 and len(runs) == 5

        # Params: each call's value, the declared default where not given.
        t = m.kernel("train_fwd")
        ah, wh, bh = (x.half() for x in (a, w, bias))
        t(ah, wh.t(), bias=bh, scale=0.5)
        native = t._natives[None]
        assert native.bound[b"scale"] == (b"scale", 0.5)
        t(ah, wh.t(), bias=bh)
        assert native.bound[b"scale"] == (b"scale", 1.0)
        t(ah, wh.t(), bias=bh, scale=0.25)
        assert native.bound[b"scale"] == (b"scale", 0.25) and len(t._calls) == 2

        # Tensor-likes that are not torch tensors are checked on every call.
        k(FakeTensor((M, K), "bfloat16"), w.t(), b=bias, y=given)
        assert len(k._calls) == 4

        # Only the latest signatures are kept.
        for rows in range(1, evt._module._CALLS_KEPT + 8):
            k(a[:rows], w.t(), b=bias)
        assert len(k._calls) == evt._module._CALLS_KEPT


# ---- with a GPU ---------------------------------------------------------------------------


def mlp_ref(x, w, b):
    return gelu64(F.linear(x.double(), w.double(), b.double()))


def test_gpu_op_runs_the_kernel():
    need_gpu()
    m = examples()
    k = m.kernel("mlp_up")
    op = op_of(k)
    torch.manual_seed(0)
    x, w, b = bf16(300, 200), bf16(260, 200), bf16(260)
    y = op(x, w.t(), b)
    assert torch.equal(y, k(x, w.t(), b=b))
    check_close(y, mlp_ref(x, w, b), "mlp_up as an op")
    assert torch.equal(torch.ops.evt_tests.__getattr__(op._name)(x, w.t(), b), y)

    xh, wh, bh = f16(200, 64), f16(96, 64), f16(96)
    pre, yq, amax = op_of(m.kernel("train_fwd"))(xh, wh.t(), bh, scale=0.5)
    z = xh.double() @ wh.double().t() + bh.double()
    check_close(pre, z, "train_fwd pre")
    check_close(amax, torch.relu(z).abs().max(), "train_fwd amax", reduce="max")


def test_gpu_opcheck():
    need_gpu()
    m = examples()
    cl = torch.channels_last
    torch.manual_seed(1)
    cases = [
        ("mlp_up", (bf16(100, 64), bf16(48, 64).t(), bf16(48)), {}),
        ("train_fwd", (f16(100, 64), f16(48, 64).t(), f16(48)), {"scale": 0.5}),
        ("dequant", (f16(100, 64), f16(48, 64).t(), torch.rand(100, device="cuda"),
                     torch.rand(48, device="cuda")), {}),
        ("resnet_block", (f16(2, 16, 9, 9).to(memory_format=cl),
                          (f16(8, 16, 3, 3) / 8).to(memory_format=cl), f16(8),
                          f16(2, 8, 9, 9).to(memory_format=cl)), {"padding": 1}),
    ]
    for name, args, kw in cases:
        result = torch.library.opcheck(op_of(m.kernel(name)), args, kw)
        assert all(v == "SUCCESS" for v in result.values()), (name, result)


def test_gpu_compile_matches_eager():
    need_gpu()
    op = op_of(examples().kernel("mlp_up"))
    torch.manual_seed(2)
    model = Mlp(op, 256, 192, "cuda").requires_grad_(False)
    xs = [bf16(rows, 256) for rows in (128, 77, 128)]
    eager = [model(x) for x in xs]
    for options in (dict(), dict(dynamic=True), dict(mode="reduce-overhead")):
        torch._dynamo.reset()
        compiled = torch.compile(model, fullgraph=True, **options)
        for _ in range(3):  # reduce-overhead: warm-up, record, replay
            for x, want in zip(xs, eager):
                got = compiled(x)
                # the op is the same kernel; around it, inductor may fuse differently
                torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
                ref = mlp_ref(x, model.lin.weight, model.lin.bias) * 2 + 1
                check_close(got, ref, f"compiled {options}")
    torch._dynamo.reset()


def capture(fn):
    """fn() warmed up on a side stream, then captured: (graph, its outputs)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    return g, out


def replays_match(g, static_inputs, out, eager, reference, what, exact=True, reduce=None):
    """Copies new inputs into the captured ones, replays, and compares the
    captured outputs with eager calls on the same inputs and the reference."""
    outs = out if isinstance(out, tuple) else (out,)
    for i in range(3):
        torch.manual_seed(100 + i)
        for t in static_inputs:
            t.copy_(torch.randn(t.shape, device="cuda").to(t.dtype))
        g.replay()
        want = eager()
        wants = want if isinstance(want, tuple) else (want,)
        for j, (got, w) in enumerate(zip(outs, wants)):
            if exact:
                assert torch.equal(got, w), f"{what}: replay {i}, output {j} differs from eager"
            else:
                torch.testing.assert_close(got.float(), w.float(), rtol=1e-3, atol=1e-3)
        for j, (got, ref) in enumerate(zip(outs, reference())):
            check_close(got, ref, f"{what}: replay {i}, output {j}",
                        reduce=reduce if j == len(outs) - 1 else None)


def test_gpu_graph_capture():
    need_gpu()
    m = examples()
    k, t, d = m.kernel("mlp_up"), m.kernel("train_fwd"), m.kernel("dequant")
    torch.manual_seed(3)
    x, w, b = bf16(128, 96), bf16(80, 96), bf16(80)

    # An unbound call, its op, and a bound launch, each captured and replayed.
    g, y = capture(lambda: k(x, w.t(), b=b))
    replays_match(g, [x], y, lambda: k(x, w.t(), b=b), lambda: [mlp_ref(x, w, b)], "call")
    op = op_of(k)
    g, y = capture(lambda: op(x, w.t(), b))
    replays_match(g, [x, b], y, lambda: k(x, w.t(), b=b), lambda: [mlp_ref(x, w, b)], "op")
    launch = k.bind(x, w.t(), b=b)
    g, y = capture(launch.run)
    replays_match(g, [x], y, lambda: k(x, w.t(), b=b), lambda: [mlp_ref(x, w, b)], "launch")

    # Reductions meet in a workspace, from the graph's memory pool.
    xh, wh, bh = f16(200, 64), f16(96, 64), f16(96)

    def train_ref():
        z = xh.double() @ wh.double().t() + bh.double()
        return [z, torch.relu(z) * 0.5, torch.relu(z).abs().max()]

    g, outs = capture(lambda: t(xh, wh.t(), bias=bh, scale=0.5))
    replays_match(g, [xh, bh], tuple(outs), lambda: tuple(t(xh, wh.t(), bias=bh, scale=0.5)),
                  train_ref, "train_fwd", reduce="max")
    sa, sb = torch.rand(200, device="cuda") + 0.5, torch.rand(96, device="cuda") + 0.5

    def dequant_ref():
        yd = (xh.double() @ wh.double().t()) * sa.double()[:, None] * sb.double()[None, :]
        return [yd, yd.sum(1)]

    g, outs = capture(lambda: d(xh, wh.t(), sa=sa, sb=sb))
    # float atomics order the row sums' adds differently from run to run
    replays_match(g, [xh, sa], tuple(outs), lambda: tuple(d(xh, wh.t(), sa=sa, sb=sb)),
                  dequant_ref, "dequant", exact=False, reduce="sum")

    # Split-K's partial tiles too (an sm80 configuration: the sm90 ones never split).
    target = evt.device_target()[0]
    m.set_tuning(config=next(c for c in k.configs(target) if c.startswith("sm80_")), split_k=2)
    g, y = capture(lambda: k(x, w.t(), b=b))
    replays_match(g, [x], y, lambda: k(x, w.t(), b=b), lambda: [mlp_ref(x, w, b)],
                  "split-K call")
    with k.bind(x, w.t(), b=b) as launch:
        launch.run()
        assert "splits 2" in launch.plan, launch.plan
    m.set_tuning()


def test_gpu_capture_without_warm_up():
    need_gpu()
    # A module never run: its first call compiles (or reads the disk cache)
    # and loads its kernel inside the capture.
    k = examples().kernel("train_fwd")
    xh, wh, bh = f16(64, 32), f16(48, 32), f16(48)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        pre, y, amax = k(xh, wh.t(), bias=bh)
    g.replay()
    torch.cuda.synchronize()
    z = xh.double() @ wh.double().t() + bh.double()
    check_close(pre, z, "pre, captured cold")
    check_close(amax, torch.relu(z).abs().max(), "amax, captured cold", reduce="max")


def test_gpu_signature_cache_rebinds():
    need_gpu()
    k = examples().kernel("mlp_up")
    torch.manual_seed(4)
    w, b = bf16(72, 56), bf16(72)
    for i in range(4):  # one signature: new tensors each time
        x = bf16(100, 56)
        check_close(k(x, w.t(), b=b), mlp_ref(x, w, b), f"call {i}")
    assert len(k._calls) == 1
    big = bf16(100, 64)
    x = big[:, 3:59]  # padded rows, a misaligned start: a new signature, the guarded path
    check_close(k(x, w.t(), b=b), mlp_ref(x, w, b), "padded view")
    y = torch.full((100, 72), 7.0, device="cuda", dtype=torch.bfloat16)
    assert k(x, w.t(), b=b, y=y) is y
    check_close(y, mlp_ref(x, w, b), "given output")
    assert len(k._calls) == 3


def test_gpu_tune_records_and_launches_take_it():
    need_gpu()
    # A fresh database: the record below must come from this tuning.
    with environ(EVT_CACHE_DIR=tempfile.mkdtemp(prefix="evt-tune-py-")):
        tune_and_take_the_record()


def tune_and_take_the_record():
    m = examples()
    k = m.kernel("mlp_up")
    torch.manual_seed(5)
    x, w, b = bf16(333, 136), bf16(200, 136), bf16(200)
    with k.bind(x, w.t(), b=b) as launch:
        launch.run()
        assert not launch.plan.endswith(" tuned"), launch.plan
        r = launch.tune(max_seconds=30)
        assert isinstance(r, evt.TuneResult) and r.recorded, r
        assert r.candidates >= 2 and 1 <= r.timed <= r.candidates == len(r.plans), r
        assert r.plans[0] == r.heuristic and r.best.ms <= r.heuristic.ms, r
        assert all(p.ms is None or p.ms >= r.best.ms for p in r.plans), r
        y = launch.run()
        assert launch.plan.endswith(" tuned") and r.best.config in launch.plan, (launch.plan, r)
        check_close(y, mlp_ref(x, w, b), "the tuned plan")
        launch.set_tuning(ignore_records=True)
        launch.run()
        assert not launch.plan.endswith(" tuned") and r.heuristic.config in launch.plan
    # A plain call of another module (another context) reads the record.
    k2 = examples().kernel("mlp_up")
    y2 = k2(x, w.t(), b=b)
    check_close(y2, mlp_ref(x, w, b), "the record in a new context")
    with k2.bind(x, w.t(), b=b) as launch2:
        launch2.run()
        assert launch2.plan.endswith(" tuned"), launch2.plan


def test_gpu_tune_says_when_its_file_cannot_be_written():
    need_gpu()
    # A folder in the database file's place: no process can write it, root included.
    cache = tempfile.mkdtemp(prefix="evt-tune-py-")
    os.mkdir(os.path.join(cache, "tuning.tsv"))
    with environ(EVT_CACHE_DIR=cache):
        k = examples().kernel("mlp_up")
        torch.manual_seed(6)
        x, w, b = bf16(129, 136), bf16(72, 136), bf16(72)
        with k.bind(x, w.t(), b=b) as launch, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = launch.tune(max_seconds=30)
            assert r.recorded, r  # in this process's memory
            assert any(issubclass(c.category, evt.EvtWarning) and "could not be written" in str(c.message)
                       for c in caught), [str(c.message) for c in caught]
            y = launch.run()
            assert launch.plan.endswith(" tuned"), launch.plan
            check_close(y, mlp_ref(x, w, b), "the plan recorded in memory")


# ---- as a script ------------------------------------------------------------------------------


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
