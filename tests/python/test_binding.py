"""Tests of the Python binding (bindings/python/evt).

Run with pytest (`PYTHONPATH=bindings/python python -m pytest -q tests/python`)
or as a script (`python3 tests/python/test_binding.py`).  Without a GPU or
without PyTorch the launch checks run on fake tensor-like objects and the GPU
tests are skipped; with both, the GPU tests compare launches with PyTorch in
float64.
"""

import contextlib
import ctypes
import os
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
try:
    import evt
except ImportError:
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    import evt

try:
    import pytest
except ImportError:
    pytest = None

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None

EXAMPLES = ROOT / "examples" / "examples.evt"


class Skipped(Exception):
    pass


AS_SCRIPT = False  # run_tests() sets it: skips are then reported by main, not pytest


def skip(reason):
    if pytest is not None and not AS_SCRIPT:
        pytest.skip(reason)
    raise Skipped(reason)


@contextlib.contextmanager
def raises(cls, *fragments):
    """Expects `cls` with every fragment in its message; yields a holder of it."""
    box = {}
    try:
        yield box
    except cls as e:
        box["error"] = e
        for f in fragments:
            assert f in str(e), f"{f!r} not in {str(e)!r}"
    else:
        raise AssertionError(f"{cls.__name__} not raised")


@contextlib.contextmanager
def environ(**values):
    """The process's environment with `values` set (None: unset), as it was after."""
    saved = {n: os.environ.get(n) for n in values}

    def put(pairs):
        for n, v in pairs.items():
            if v is None:
                os.environ.pop(n, None)
            else:
                os.environ[n] = v
    put(values)
    try:
        yield
    finally:
        put(saved)


# ---- fake tensors: enough of torch.Tensor for the checks ----------------------


class FakeStorage:
    def __init__(self, nbytes):
        self._nbytes = nbytes

    def nbytes(self):
        return self._nbytes


class FakeTensor:
    """shape, dtype ('float16' ...), strides (row-major by default), device, pointer
    (by default a fresh one: the library refuses outputs that share memory)."""

    _next_ptr = 1 << 32  # fake buffers 1 GiB apart, larger than any used here

    def __init__(self, shape, dtype, stride=None, device="cuda:0", ptr=None,
                 storage_bytes=None):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        self.device = device
        if ptr is None:
            ptr = FakeTensor._next_ptr
            FakeTensor._next_ptr += 1 << 30
        self._ptr = ptr
        if stride is None:
            stride, e = [], 1
            for d in reversed(self.shape):
                stride.append(e)
                e *= d
            stride = tuple(reversed(stride))
        self._stride = tuple(stride)
        self._storage = storage_bytes

    def data_ptr(self):
        return self._ptr

    def stride(self, dim=None):
        return self._stride if dim is None else self._stride[dim]

    def untyped_storage(self):
        if self._storage is None:
            raise RuntimeError("no storage")
        return FakeStorage(self._storage)

    def storage_offset(self):
        return 0


def channels_last(shape, dtype, **kw):
    n, c, h, w = shape
    return FakeTensor(shape, dtype, stride=(h * w * c, 1, w * c, c), **kw)


def no_cuda_driver():
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return True
    return False


def examples():
    return evt.compile(path=EXAMPLES)


# ---- without a GPU: loading, compiling, metadata -----------------------------------


def test_import():
    assert os.path.exists(evt.library_path)
    major, minor, patch = (int(p) for p in evt.library_version.split("."))
    assert major == 0
    assert issubclass(evt.SourceError, evt.EvtError)
    assert issubclass(evt.SourceError, ValueError)
    assert issubclass(evt.NotFoundError, LookupError)
    assert issubclass(evt.ArgumentError, evt.LaunchError)
    assert issubclass(evt.UnsupportedError, NotImplementedError)


def test_source_tree_prefers_release_builds():
    # The fake library files are never loaded: only the order is looked at.
    with tempfile.TemporaryDirectory() as tmp:
        for folder, cache in (("build", "CMAKE_BUILD_TYPE:STRING=Debug"),
                              ("build-a", ""),
                              ("build-release", "CMAKE_BUILD_TYPE:STRING=Release"),
                              ("build-rwdi", "CMAKE_BUILD_TYPE:STRING=RelWithDebInfo"),
                              ("build-asan", "CMAKE_BUILD_TYPE:STRING=Release\n"
                                             "EVT_SANITIZE:BOOL=ON"),
                              ("build-tsan", "CMAKE_BUILD_TYPE:STRING=Release\n"
                                             "EVT_TSAN:BOOL=ON"),
                              ("build-empty", "CMAKE_BUILD_TYPE:STRING=Release")):
            (Path(tmp) / folder).mkdir()
            (Path(tmp) / folder / "CMakeCache.txt").write_text(cache + "\n")
            if folder != "build-empty":
                (Path(tmp) / folder / "libevt.so").write_bytes(b"")
        found = evt._lib.source_tree_libraries(tmp)
        assert [(Path(p).parent.name, t) for p, t in found] == [
            ("build-release", "Release"), ("build-rwdi", "RelWithDebInfo"),
            ("build-a", "build type unknown"), ("build", "Debug")]


def test_nvrtc_search():
    find = evt._lib.nvrtc_library
    with tempfile.TemporaryDirectory() as tmp:
        site, toolkit = Path(tmp, "site"), Path(tmp, "cuda")
        wheel = site / evt._lib.NVRTC_WHEEL_PATH
        assert find({}, [str(site)]) is None  # the library's own search
        assert find({"CUDA_HOME": str(toolkit)}, [str(site)]) is None
        (toolkit / "lib64").mkdir(parents=True)
        (toolkit / "lib64" / "libnvrtc.so.13").write_bytes(b"")
        assert find({"CUDA_PATH": str(toolkit)}, [str(site)]) == \
            str(toolkit / "lib64" / "libnvrtc.so.13")
        wheel.parent.mkdir(parents=True)
        wheel.write_bytes(b"")
        assert find({"CUDA_HOME": str(toolkit)}, ["", str(site)]) == str(wheel)
        assert find({"EVT_NVRTC_LIBRARY": "/x/libnvrtc.so", "CUDA_HOME": str(toolkit)},
                    [str(site)]) == "/x/libnvrtc.so"


def test_compile_examples():
    m = examples()
    assert m.kernels == ("resnet_block", "resnet_block_post", "mlp_up", "train_fwd", "dequant")
    assert "bias_gelu" in m.epilogues
    assert "mlp_up" in m
    assert "epilogue bias_gelu" in m.ir or "bias_gelu" in m.ir
    assert m.dot.count("digraph") == 1
    assert all(f'subgraph "cluster_{e}"' in m.dot for e in m.epilogues)
    assert m.diagnostics == "" and m.diags == []


def test_compile_source_str_and_bytes():
    src = ("epilogue e { in bias : f16[N]  out y : f16[M, N] = relu(acc + bias) }\n"
           "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n")
    for s in (src, src.encode()):
        m = evt.compile(source=s, name="inline.evt")
        assert m.kernels == ("k",)
        assert m.name == "inline.evt"
    for level in (0, 1, 2):
        assert evt.compile(source=src, opt_level=level).kernels == ("k",)
    with raises(evt.InvalidArgumentError):
        evt.compile(source=src, opt_level=7)
    # past a C int too (ctypes had wrapped 2**32 + 1 to level 1)
    for level in (2 ** 32 + 1, -2 ** 32, 2 ** 31):
        with raises(evt.InvalidArgumentError, f"opt_level {level} is not 0, 1 or 2") as box:
            evt.compile(source=src, opt_level=level)
        assert box["error"].status == 2  # EVT_ERR_INVALID_ARGUMENT, as the library's own refusal
    with raises(TypeError):
        evt.compile()
    with raises(TypeError):
        evt.compile(path=EXAMPLES, source=src)


def test_source_error_carries_diagnostics():
    src = ("epilogue e {\n  out y : f16[M, N] = frobnicate(acc)\n}\n"
           "kernel k = gemm(a: f16 row, b: f16 col) with missing\n")
    with raises(evt.SourceError, "bad.evt:2:23: error:", "frobnicate", "^") as box:
        evt.compile(source=src, name="bad.evt")
    e = box["error"]
    assert e.status == 1
    assert "2 errors" in e.message
    assert "bad.evt:2:23: error: unknown function 'frobnicate'" in e.diagnostics
    assert "bad.evt:4:" in e.diagnostics
    assert [d.severity for d in e.diags] == ["error", "error"]
    assert (e.diags[0].line, e.diags[0].column) == (2, 23)
    with raises(ValueError):  # SourceError is a ValueError too
        evt.compile(source="kernel", name="t.evt")


def test_warnings_go_through_the_warnings_module():
    src = ("epilogue e { in unused : f16[N]  out y : f16[M, N] = acc }\n"
           "kernel k = gemm(a: f16 row, b: f16 col) with e\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = evt.compile(source=src, name="w.evt")
    assert len(caught) == 1 and issubclass(caught[0].category, evt.EvtWarning)
    assert "w.evt:1:17: warning: input 'unused' is not used" in str(caught[0].message)
    assert m.diags[0].severity == "warning"


def test_missing_file():
    with raises(evt.EvtIOError, "/no/such/file.evt") as box:
        evt.compile(path="/no/such/file.evt")
    assert isinstance(box["error"], OSError)


def test_source_text_as_path():
    # evt.compile(text) takes the text for a file name: the error says so, not the text again
    src = "epilogue e { out y : f16[M, N] = acc }\nkernel k = gemm(a: f16 row, b: f16 col) with e\n"
    with raises(evt.EvtIOError, "names no file", "pass it as source=", "'epilogue e { out y") as box:
        evt.compile(src)
    assert "kernel k" not in str(box["error"]) and isinstance(box["error"], OSError)


def test_compile_argument_types():
    # each refused as a TypeError naming the argument, before the library sees it
    # (bytes(3) would have been three zero bytes of source)
    src = "epilogue e { out y : f16[M, N] = acc }\nkernel k = gemm(a: f16 row, b: f16 col) with e\n"
    for kwargs, fragment in (({"source": 3}, "source must be str or bytes, not int"),
                             ({"path": 3}, "path must be a str, bytes or os.PathLike, not int"),
                             ({"source": src, "name": b"x.evt"}, "name must be a str, not bytes"),
                             ({"source": src, "opt_level": "2"}, "opt_level must be 0, 1 or 2, not '2'"),
                             ({"source": src, "opt_level": True}, "opt_level must be 0, 1 or 2, not True")):
        with raises(TypeError, fragment):
            evt.compile(**kwargs)
    m = evt.compile(source=bytearray(src.encode()), opt_level=1)
    assert m.kernels == ("k",)
    assert evt.compile(path=ROOT / "examples" / "examples.evt").kernel("mlp_up").name == "mlp_up"
    for bad in (None, 3, b"k"):
        with raises(TypeError, "a kernel's name is a str"):
            m.kernel(bad)


def test_folder_as_path():
    here = os.path.dirname(os.path.abspath(__file__))
    with raises(evt.EvtIOError, "cannot read: Is a directory"):
        evt.compile(path=here)


def test_metadata():
    m = examples()
    k = m.kernel("mlp_up")
    assert (k.name, k.mainloop, k.epilogue) == ("mlp_up", "gemm", "bias_gelu")
    assert m.kernel("mlp_up") is k and m["mlp_up"] is k  # one per name: it keeps its calls
    assert k.operands == (evt.Operand("a", "bf16", "row"), evt.Operand("b", "bf16", "col"))
    assert k.acc.dtype == "f32"
    assert [(a.name, a.dtype, a.shape) for a in k.inputs] == [("b", "bf16", ("N",))]
    assert [(a.name, a.dtype, a.shape) for a in k.outputs] == [("y", "bf16", ("M", "N"))]
    assert k.params == ()

    t = m.kernel("train_fwd")
    assert [(a.name, a.dtype, a.shape, a.reduce) for a in t.outputs] == [
        ("pre", "f16", ("M", "N"), None), ("y", "e4m3", ("M", "N"), None),
        ("amax", "f32", (), "max")]
    assert t.params == (evt.Arg("scale", "f32", (), "param", None, 1.0),)

    d = m.kernel("dequant")
    assert [(a.name, a.shape) for a in d.inputs] == [("sa", ("M",)), ("sb", ("N",))]
    assert [(a.name, a.reduce, a.shape) for a in d.outputs] == [("d", None, ("M", "N")),
                                                                  ("sum", "sum", ("M",))]

    r = m.kernel("resnet_block")
    assert r.mainloop == "conv2d_fprop"
    assert [o.name for o in r.operands] == ["x", "w"]
    assert r.operands[0].layout is None
    assert [(a.name, a.shape) for a in r.inputs] == [("bias", ("N",)), ("residual", ("M", "N"))]
    assert r.params[0].default == 1.0
    assert "padding" in r.options and "stride" in r.options

    with raises(evt.NotFoundError, "no kernel 'nope'", "mlp_up"):
        m.kernel("nope")
    assert "mlp_up = gemm(a: bf16 row, b: bf16 col, acc: f32) with bias_gelu" in repr(k)


def test_generated_code():
    k = examples().kernel("mlp_up")
    src = k.cuda("sm_90a")
    assert "mlp_up" in src and "sm_90a" in src
    with raises(evt.InvalidArgumentError, "sm_99"):
        k.cuda("sm_99")


def bind_fake_mlp_up(m):
    """examples' mlp_up bound to small fake tensors (no GPU needed)."""
    M, N, K = 8, 16, 32
    return m.kernel("mlp_up").bind(FakeTensor((M, K), "bfloat16"),
                                   FakeTensor((K, N), "bfloat16", stride=(1, K)),
                                   b=FakeTensor((N,), "bfloat16"), y=FakeTensor((M, N), "bfloat16"))


def test_module_close():
    m = examples()
    launch = bind_fake_mlp_up(m)
    with m:
        pass
    assert m.closed
    with raises(evt.EvtError, "closed"):
        launch.run(stream=0)
    with raises(evt.EvtError, "closed"):
        m.kernels


def test_module_and_launch_collected_together():
    # The library's contract: a launch goes before its module.  Collected in
    # one cycle, their finalizers run in no set order; the module's destroys
    # every launch still alive first, and a launch's own does nothing after.
    import gc
    m = examples()
    launch = bind_fake_mlp_up(m)
    live = m._live
    assert len(live) == 1
    m._finalizer()  # the module's finalizer first, as the collector may order them
    assert not live
    launch._native.close()  # then the launch's: a no-op, not a second destroy
    del m, launch
    gc.collect()


# ---- without a GPU: argument checks raise before anything is launched --------------

M, N, K = 64, 128, 32


def gemm_args(**over):
    """Valid fake arguments of examples' mlp_up, with some replaced."""
    args = dict(a=FakeTensor((M, K), "bfloat16"),
                b=FakeTensor((K, N), "bfloat16", stride=(1, K)),  # nn.Linear weight [N, K], .t()
                bias=FakeTensor((N,), "bfloat16"),
                y=FakeTensor((M, N), "bfloat16"))
    args.update(over)
    return args


def bind_mlp(**over):
    args = gemm_args(**over)
    k = examples().kernel("mlp_up")
    extra = {n: args.pop(n) for n in ("foo", "stream") if n in args}
    return k.bind(args["a"], args["b"], b=args["bias"], y=args["y"], **extra)


def test_valid_fake_arguments_bind():
    launch = bind_mlp()
    assert launch.sizes == {"M": M, "N": N, "K": K}
    assert set(launch.outputs) == {"y"}
    launch.close()


def test_dtype_mismatch():
    with raises(evt.ArgumentTypeError, "input 'b'", "torch.bfloat16", "torch.float16") as box:
        bind_mlp(bias=FakeTensor((N,), "float16"))
    assert box["error"].argument == "input 'b'"
    assert isinstance(box["error"], TypeError)
    with raises(evt.ArgumentTypeError, "operand 'a'", "bf16"):
        bind_mlp(a=FakeTensor((M, K), "float32"))
    with raises(evt.ArgumentTypeError, "output 'y'"):
        bind_mlp(y=FakeTensor((M, N), "float8_e4m3fn"))


FP8_SOURCE = """
epilogue scaled {
    in    sa        : f32[M]
    in    sb        : f32[N]
    in    bias      : f16[N]
    param inv_scale : f32 = 1.0
    let   y         = gelu(acc * sa * sb + bias)
    out   d         : e4m3[M, N] = y * inv_scale
    out   amax      : f32 = reduce_max(abs(y))
}
kernel e4m3_e4m3 = gemm(a: e4m3 row, b: e4m3 col, acc: f32) with scaled
kernel e4m3_e5m2 = gemm(a: e4m3 row, b: e5m2 col, acc: f32) with scaled
kernel e5m2_e4m3 = gemm(a: e5m2 row, b: e4m3 col, acc: f32) with scaled
kernel e5m2_e5m2 = gemm(a: e5m2 row, b: e5m2 col, acc: f32) with scaled
"""
FP8_DTYPES = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}


def test_fp8_operands_bind():
    # torch.float8_e4m3fn and float8_e5m2 are the e4m3 and e5m2 operands:
    # 1 byte an element; b an nn.Linear-style [N, K] weight, transposed.
    m = evt.compile(source=FP8_SOURCE)
    for name in ("e4m3_e4m3", "e4m3_e5m2", "e5m2_e4m3", "e5m2_e5m2"):
        ta, tb = name.split("_")
        k = m.kernel(name)
        assert [o.dtype for o in k.operands] == [ta, tb]
        a = FakeTensor((M, K), FP8_DTYPES[ta])
        b = FakeTensor((K, N), FP8_DTYPES[tb], stride=(1, K))
        launch = k.bind(a, b, sa=FakeTensor((M,), "float32"), sb=FakeTensor((N,), "float32"),
                        bias=FakeTensor((N,), "float16"), d=FakeTensor((M, N), "float8_e4m3fn"),
                        amax=FakeTensor((), "float32"))
        assert launch.sizes == {"M": M, "N": N, "K": K}
        launch.close()
        with raises(evt.ArgumentTypeError, "operand 'a'", ta):
            k.bind(FakeTensor((M, K), "float16"), b, sa=FakeTensor((M,), "float32"),
                   sb=FakeTensor((N,), "float32"), bias=FakeTensor((N,), "float16"))
        other = "e5m2" if tb == "e4m3" else "e4m3"
        with raises(evt.ArgumentTypeError, "operand 'b'", tb):
            k.bind(a, FakeTensor((K, N), FP8_DTYPES[other], stride=(1, K)),
                   sa=FakeTensor((M,), "float32"), sb=FakeTensor((N,), "float32"),
                   bias=FakeTensor((N,), "float16"))
    m.close()


def test_device_checks():
    with raises(evt.ArgumentError, "input 'b' is on cpu"):
        bind_mlp(bias=FakeTensor((N,), "bfloat16", device="cpu"))
    with raises(evt.ArgumentError, "output 'y' is on cuda:1", "operand 'a' is on cuda:0"):
        bind_mlp(y=FakeTensor((M, N), "bfloat16", device="cuda:1"))


def test_not_a_tensor():
    with raises(evt.ArgumentTypeError, "input 'b' must be a tensor", "float"):
        bind_mlp(bias=1.5)


def test_shape_checks():
    with raises(evt.ArgumentError, "input 'b'", "[N] = [128]"):
        bind_mlp(bias=FakeTensor((N + 1,), "bfloat16"))
    with raises(evt.ArgumentError, "output 'y'", "[M, N] = [64, 128]"):
        bind_mlp(y=FakeTensor((M, N + 1), "bfloat16"))
    with raises(evt.ArgumentError, "operand 'b'", "[K, N] = [32, N]"):
        bind_mlp(b=FakeTensor((K + 1, N), "bfloat16", stride=(1, K + 1)))
    with raises(evt.ArgumentError, "operand 'a'", "2-D", "3-D [L, M, K]"):  # 3-D is a batch
        bind_mlp(a=FakeTensor((2, 2, M, K), "bfloat16"))
    # An nn.Linear weight passed as is, not transposed: the message says W.t().
    with raises(evt.ArgumentError, "operand 'b'", "W.t()"):
        bind_mlp(b=FakeTensor((N, K), "bfloat16"))


def test_layout_checks():
    # b is declared col: a row-major [K, N] (square, so the shape passes) is refused.
    with raises(evt.ArgumentError, "operand 'b'", "column-major", "W.t()"):
        bind_mlp(b=FakeTensor((K, K), "bfloat16"), bias=FakeTensor((K,), "bfloat16"),
                 y=FakeTensor((M, K), "bfloat16"))
    with raises(evt.ArgumentError, "operand 'a'", "row-major"):
        bind_mlp(a=FakeTensor((M, K), "bfloat16", stride=(1, M)))
    with raises(evt.ArgumentError, "output 'y'", "last dimension must have stride 1"):
        bind_mlp(y=FakeTensor((M, N), "bfloat16", stride=(1, M)))
    with raises(evt.ArgumentError, "output 'y'", "overlap"):
        bind_mlp(y=FakeTensor((M, N), "bfloat16", stride=(0, 1)))
    with raises(evt.ArgumentError, "input 'b'", "contiguous"):
        bind_mlp(bias=FakeTensor((N,), "bfloat16", stride=(2,)))
    # A padded leading dimension is fine, and reaches the library as ld.
    bind_mlp(a=FakeTensor((M, K), "bfloat16", stride=(K + 8, 1)),
             y=FakeTensor((M, N), "bfloat16", stride=(N + 3, 1))).close()


def test_names_and_params():
    with raises(evt.ArgumentTypeError, "no argument 'foo'", "operands a, b", "inputs b"):
        bind_mlp(foo=1)
    k = examples().kernel("mlp_up")
    args = gemm_args()
    # mlp_up's epilogue input is called b, like the operand: b= is the input.
    with raises(evt.UnboundError, "operand 'b' is required", "positionally"):
        k.bind(a=args["a"], b=args["bias"], y=args["y"])
    with raises(evt.ArgumentTypeError, "at most 2 positional"):
        k.bind(args["a"], args["b"], args["bias"])
    with raises(evt.UnboundError, "input 'b'", "required"):
        k.bind(args["a"], args["b"], y=args["y"])

    src = ("epilogue e { param alpha : f32  param beta : f32 = 0.5  in c : f32[M, N]\n"
           "  out d : f32[M, N] = alpha * acc + beta * c }\n"
           "kernel k = gemm(a: f16 row, b: f16 row) with e\n")
    g = evt.compile(source=src).kernel("k")
    ops = dict(a=FakeTensor((M, K), "float16"), b=FakeTensor((K, N), "float16"),
               c=FakeTensor((M, N), "float32"), d=FakeTensor((M, N), "float32"))
    with raises(evt.UnboundError, "param 'alpha' has no default"):
        g.bind(**ops)
    with raises(evt.ArgumentTypeError, "param 'alpha' must be a number"):
        g.bind(alpha="x", **ops)
    with raises(evt.ArgumentTypeError, "param 'alpha' is passed by value"):
        g.bind(alpha=FakeTensor((), "float32"), **ops)
    g.bind(alpha=2, beta=1.0, **ops).close()
    # A number f32 cannot hold, as the language takes one: too large refused, too small warned
    with raises(evt.ArgumentError, "param 'alpha' = 1e+39 is too large for f32"):
        g.bind(alpha=1e39, **ops)
    with raises(ValueError, "param 'beta' = -1e+39 is too large for f32"):
        g.bind(alpha=1, beta=-1e39, **ops)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g.bind(alpha=1e-50, beta=float("inf"), **ops).close()  # inf is f32's own
    assert [str(w.message) for w in caught] == ["param 'alpha' = 1e-50 is too small for f32 and becomes 0"]
    assert issubclass(caught[0].category, evt.EvtWarning) and caught[0].filename == __file__
    # Operands by name work when the epilogue does not shadow them.
    with raises(evt.ArgumentTypeError, "operand 'a' given twice"):
        g.bind(ops["a"], alpha=1, **ops)


def test_scalar_and_vector_shapes():
    m = examples()
    d = m.kernel("dequant")
    a, b = FakeTensor((M, K), "float16"), FakeTensor((K, N), "float16", stride=(1, K))
    good = dict(sa=FakeTensor((M,), "float32"), sb=FakeTensor((N,), "float32"),
                d=FakeTensor((M, N), "bfloat16"), sum=FakeTensor((M,), "float32"))
    d.bind(a, b, **good).close()
    with raises(evt.ArgumentError, "output 'sum'", "[M] = [64]"):
        d.bind(a, b, **dict(good, sum=FakeTensor((N,), "float32")))
    t = m.kernel("train_fwd")
    outs = dict(pre=FakeTensor((M, N), "float16"), y=FakeTensor((M, N), "float8_e4m3fn"))
    with raises(evt.ArgumentError, "output 'amax' is a scalar"):
        t.bind(a, b, bias=FakeTensor((N,), "float16"), amax=FakeTensor((2,), "float32"), **outs)
    launch = t.bind(a, b, bias=FakeTensor((N,), "float16"), amax=FakeTensor((), "float32"),
                    **outs)
    res = launch.result()
    assert isinstance(res, evt.Outputs) and len(res) == 3
    pre, y, amax = res
    assert res.amax is amax and res["pre"] is pre and res[1] is y
    assert list(res.keys()) == ["pre", "y", "amax"]
    launch.close()


def conv_bind(kernel, *args, **kw):
    """kernel.bind(), or None where the library cannot launch conv kernels yet:
    the binding's checks, which run first, have then passed."""
    try:
        return kernel.bind(*args, **kw)
    except evt.UnsupportedError as e:
        assert "conv2d_fprop" in str(e)
        return None


def test_conv_checks():
    r = examples().kernel("resnet_block")
    n, c, h, w, k = 2, 16, 10, 12, 32
    x = channels_last((n, c, h, w), "float16")
    wt = channels_last((k, c, 3, 3), "float16")
    bias = FakeTensor((k,), "float16")
    res = channels_last((n, k, h, w), "float16")  # padding 1 keeps 10 x 12
    out = channels_last((n, k, h, w), "float16")
    launch = conv_bind(r, x, wt, bias=bias, residual=res, D=out, padding=1)
    if launch is not None:
        assert launch.sizes["p"] == h and launch.sizes["q"] == w
        assert launch.sizes["M"] == n * h * w
        launch.close()
    # NHWC-shaped contiguous tensors are accepted too, residual as [M, N] as well.
    conv_bind(r, FakeTensor((n, h, w, c), "float16"), FakeTensor((k, 3, 3, c), "float16"),
              bias=bias, residual=FakeTensor((n * h * w, k), "float16"),
              D=FakeTensor((n, h, w, k), "float16"), padding=(1, 1))
    # A channel slice of a wider channels-last output: ld = 48.
    wide = channels_last((n, 48, h, w), "float16")
    sliced = FakeTensor((n, k, h, w), "float16", stride=wide._stride)
    conv_bind(r, x, wt, bias=bias, residual=res, D=sliced, padding=1)
    # Stride 2, dilation 2: P = (10 + 2 - 2*2 - 1) // 2 + 1 = 4, Q = 5.
    out2 = channels_last((n, k, 4, 5), "float16")
    conv_bind(r, x, wt, bias=bias, residual=out2, D=out2, padding=1, stride=2, dilation=2)
    with raises(evt.ArgumentError, "[N, K, P, Q] = [2, 32, 4, 5]"):
        r.bind(x, wt, bias=bias, residual=out2, D=out, padding=1, stride=2, dilation=2)
    # past a C int: refused by name (wrapped, stride 2**32 + 1 had been 1 to the library)
    for opt, value in (("stride", 2 ** 32 + 1), ("padding", (1, 2 ** 32)), ("dilation", 2 ** 31)):
        with raises(evt.ArgumentError, f"{opt} must be integers from ", "to 2**31 - 1") as box:
            r.bind(x, wt, bias=bias, residual=res, D=out, **{opt: value})
        assert box["error"].argument == opt

    # An ordinary contiguous NCHW x is not channels-last.
    with raises(evt.ArgumentError, "operand 'x' reads as a contiguous [N, H, W, C]",
                "channels_last") as box:
        r.bind(FakeTensor((n, c, h, w), "float16"), wt, bias=bias, residual=res, D=out,
               padding=1)
    assert box["error"].argument == "operand 'x'"
    with raises(evt.ArgumentError, "operand 'w' as a contiguous [K, R, S, C]"):
        r.bind(x, FakeTensor((k, c, 3, 3), "float16"), bias=bias, residual=res, D=out,
               padding=1)
    with raises(evt.ArgumentError, "operand 'x'", "channels-last"):
        r.bind(FakeTensor((n, c, h, w), "float16", stride=(c * h * w, 1, 1, h)), wt, bias=bias,
               residual=res, D=out, padding=1)
    with raises(evt.ArgumentError, "operand 'w' has 8 input channels"):
        r.bind(x, channels_last((k, 8, 3, 3), "float16"), bias=bias, residual=res, D=out,
               padding=1)
    with raises(evt.ArgumentError, "output 'D'", "[N, K, P, Q] = [2, 32, 8, 10]"):
        r.bind(x, wt, bias=bias, residual=channels_last((n, k, 8, 10), "float16"), D=out)
    with raises(evt.ArgumentError, "input 'residual'", "channels-last"):
        r.bind(x, wt, bias=bias, residual=FakeTensor((n, k, h, w), "float16"), D=out, padding=1)
    with raises(evt.ArgumentError, "empty output"):
        r.bind(x, channels_last((k, c, 13, 3), "float16"), bias=bias, residual=res, D=out)
    with raises(evt.ArgumentTypeError, "padding must be an int or a pair"):
        r.bind(x, wt, bias=bias, residual=res, D=out, padding="same")
    with raises(evt.ArgumentError, "stride must be integers >= 1"):
        r.bind(x, wt, bias=bias, residual=res, D=out, stride=0)
    with raises(evt.ArgumentTypeError, "no argument 'groups'", "options"):
        r.bind(x, wt, bias=bias, residual=res, D=out, groups=2)


def test_library_checks_buffers():
    # The byte size passed is the tensor's extent, clipped to its storage, so
    # the library's bound check sees a view larger than its storage.
    launch = bind_mlp(bias=FakeTensor((N,), "bfloat16", storage_bytes=2 * (N - 1)))
    with raises(evt.BadBufferError, "input 'b' is too small"):
        launch.run(stream=0)
    launch = bind_mlp(bias=FakeTensor((N,), "bfloat16", ptr=(1 << 20) + 1))
    with raises(evt.BadBufferError, "input 'b' is not aligned"):
        launch.run(stream=0)


def test_library_checks_aliasing():
    # An output sharing memory with an operand is refused by the run, before
    # the driver is loaded, naming both.
    y = FakeTensor((M, N), "bfloat16")
    a = FakeTensor((M, K), "bfloat16", ptr=y.data_ptr() + 2 * N)  # from y's second row on
    with raises(evt.InvalidArgumentError, "output 'y' overlaps operand 'a'"):
        bind_mlp(a=a, y=y).run(stream=0)
    # An [M, N] output given the [M, N] input it replaces is written in place.
    r = examples().kernel("resnet_block")
    n, c, h, w, k = 2, 16, 10, 12, 32
    x = channels_last((n, c, h, w), "float16")
    wt = channels_last((k, c, 3, 3), "float16")
    bias = FakeTensor((k,), "float16")
    res = channels_last((n, k, h, w), "float16")
    launch = conv_bind(r, x, wt, bias=bias, residual=res, D=res, padding=1)
    if launch is None:
        return
    if no_cuda_driver():  # fake pointers must not reach a GPU
        with raises(evt.NoGpuError):
            launch.run(stream=0)
    # Half a pixel further on, it is refused.
    half = FakeTensor((n, h, w, k), "float16", ptr=res.data_ptr() + k)
    with raises(evt.InvalidArgumentError, "output 'D' overlaps input 'residual'",
                "same pointer, element type and leading dimension"):
        r.bind(x, wt, bias=bias, residual=res, D=half, padding=1).run(stream=0)


def test_no_gpu_raises_no_gpu_error():
    if not no_cuda_driver():
        skip("a CUDA driver is present (fake pointers must not reach a GPU)")
    with raises(evt.NoGpuError, "no CUDA driver"):
        bind_mlp().run(stream=0)
    # kernel(...) keeps one library launch per stream, closed with the module.
    m = examples()
    k = m.kernel("mlp_up")
    args = gemm_args()
    for _ in range(2):
        with raises(evt.NoGpuError):
            k(args["a"], args["b"], b=args["bias"], y=args["y"], stream=0)
    assert len(k._natives) == 1
    m.close()
    assert all(h.closed for h in k._natives.values())


def test_threads_with_their_own_modules():
    import threading
    errors = []

    def work():
        try:
            for _ in range(20):
                launch = bind_mlp()
                assert launch.sizes["K"] == K
                launch.close()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_check_policy():
    # libevt's verdicts (evt_check_values), the same as evtc run --check's
    nan, inf = float("nan"), float("inf")
    v = evt.check([1.0, -2.5, 0.0], [1.0, -2.5, 0.0], "f16")
    assert v and v.passed and v.checked == 3 and v.first_bad is None and v.max_err == 0
    assert evt.check([1 + 2 * 2 ** -10], [1.0], "f16")
    v = evt.check([1.0, 1 + 3 * 2 ** -10], [1.0, 1.0], "f16")
    assert not v and v.bad == 1 and v.first_bad == 1 and v.max_ulp == 3
    assert "FAIL" in str(v) and "first at flat index 1" in str(v)
    assert evt.check([nan, inf, -inf], [nan, inf, -inf], "f32")
    v = evt.check([nan, 1.0], [1.0, 1.0], "bf16")
    assert not v and v.special_bad == 1 and v.first_bad == 0
    assert not evt.check([1.0], [nan], "f32")
    assert evt.check(bytes([5]), [6.0], "i8") and not evt.check(bytes([4]), [6.0], "i8")
    assert evt.check([448.0], [1e6], "e4m3")  # the reference saturates too
    assert not evt.check([1.0005], [1.0], "f32") and evt.check([1.0005], [1.0], "f32", "sum")
    # a sum whose terms cancel, judged against their magnitude (evt_check_sums)
    assert not evt.check([1e-3], [1e-6], "f32", "sum")
    assert evt.check([1e-3], [1e-6], "f32", "sum", magnitude=[1e5])
    assert not evt.check([1.0], [1e-6], "f32", "sum", magnitude=[1e5])  # 1 of 1e5: a term off
    assert evt.tolerance("f32") == 1e-4 and evt.tolerance("f32", "sum") == 1e-3
    assert evt.tolerance("i32") == 0
    assert evt.check([2.0], 2.0, "f32") and not evt.check([], [], "f32").first_bad
    for bad in (lambda: evt.check([1.0], [1.0, 2.0], "f32"),
                lambda: evt.check([1.0], [1.0], "f64"),
                lambda: evt.check([1.0], [1.0], "f32", reduce="mean"),
                lambda: evt.check([1.0], [1.0], "f32", reduce="max", magnitude=[1.0]),
                lambda: evt.check([1.0], [1.0], "f32", reduce="sum", magnitude=[1.0, 2.0]),
                lambda: evt.check(b"\0\0\0", [1.0], "f16")):
        try:
            bad()
        except ValueError:
            pass
        else:
            raise AssertionError("no ValueError")


# ---- without a GPU: tuning -----------------------------------------------------------

PP2 = "sm90_pp2_128x128x64_s4"
W8 = "sm80_128x256x64_w8_s3"


def entry_points(src):
    """The tile configurations whose entry points `src` holds."""
    return {c for c in evt.configs() if f"_{c}_" in src}


def test_configs_are_named():
    names = evt.configs()
    assert PP2 in names and W8 in names and len(set(names)) == len(names)
    k = examples().kernel("mlp_up")
    assert PP2 in k.configs("sm_90a") and PP2 not in k.configs("sm_80")
    assert W8 in k.configs("sm_80")
    k.check_config(PP2, "sm_90a")
    with raises(evt.UnsupportedError, PP2, "sm_80"):
        k.check_config(PP2, "sm_80")
    with raises(evt.NotFoundError, "sm90_nope"):
        k.check_config("sm90_nope", "sm_90a")


def test_tuning_refuses_bad_values():
    m = examples()
    with raises(evt.NotFoundError, "sm90_nope") as box:
        m.set_tuning(config="sm90_nope")
    assert box["error"].status == 3  # EVT_ERR_NOT_FOUND, the library's message
    with raises(evt.InvalidArgumentError, "row_group 3"):
        m.set_tuning(row_group=3)
    with raises(evt.InvalidArgumentError, "split_k -1"):
        m.set_tuning(split_k=-1)
    with raises(evt.InvalidArgumentError, "stream_k 3"):
        m.set_tuning(stream_k=3)
    with raises(TypeError):
        m.set_tuning(config=7)  # configurations have names, not ids
    assert m.tuning == evt.Tuning(None, 0, 0)  # a refused tuning changes nothing
    launch = bind_fake_mlp_up(m)
    with raises(evt.NotFoundError, "sm90_nope"):
        launch.set_tuning(config="sm90_nope")
    with raises(evt.InvalidArgumentError, "row_group 5"):
        launch.set_tuning(row_group=5)
    assert launch.set_tuning(PP2, split_k=1, row_group=4) is launch
    assert launch.tuning == evt.Tuning(PP2, 1, 4)
    assert launch.set_tuning("sm90_coop2_128x256x64_s3", stream_k=2).tuning.stream_k == 2
    # a count past a C int is refused by name, not wrapped (2**32 + 2 was split_k 2)
    for call, name in ((lambda: m.set_tuning(split_k=2 ** 32 + 2), "split_k"),
                       (lambda: launch.set_tuning(row_group=-2 ** 31 - 4), "row_group"),
                       (lambda: m.set_tuning(stream_k=2 ** 31), "stream_k"),
                       (lambda: launch.tune(threads=2 ** 32), "threads"),
                       (lambda: launch.tune(reps=2 ** 32 + 1), "reps"),
                       (lambda: launch.benchmark(warmup=2 ** 32), "warmup"),
                       (lambda: launch.benchmark(reps=2 ** 40 + 3), "reps")):
        with raises(evt.ArgumentError, f"{name} is ", "out of the range of a C int") as box:
            call()
        assert box["error"].argument == name
    assert m.tuning == evt.Tuning(None, 0, 0)
    assert launch.tuning.stream_k == 2


def test_forced_config_in_generated_code():
    m = examples()
    k = m.kernel("mlp_up")
    assert len(entry_points(k.cuda("sm_90a"))) > 1  # the planner's candidates
    m.set_tuning(config=PP2)
    assert m.tuning.config == PP2
    src = k.cuda("sm_90a")
    assert f"_{PP2}_" in src and f"_{W8}_" not in src, "forced config"
    assert entry_points(src) == {PP2}
    with raises(evt.UnsupportedError, PP2, "sm_80"):
        k.cuda("sm_80")
    m.set_tuning(config=W8, row_group=8)
    assert entry_points(k.cuda("sm_90a")) == {W8}
    # mlp_up's exact GELU keeps the shared tile (the looped direct form lost
    # to it); a light per-element epilogue runs on the consumers' registers
    # unless the tuning keeps the shared tile
    m.set_tuning(config=PP2)
    assert "enum { kDirect = 1," not in k.cuda("sm_90a")
    light = evt.compile(source="epilogue e { in bias : bf16[N]\n out y : bf16[M, N] = relu(acc + bias) }\n"
                               "kernel t = gemm(a: bf16 row, b: bf16 col, acc: f32) with e")
    light.set_tuning(config=PP2)
    assert "enum { kDirect = 1," in light.kernel("t").cuda("sm_90a")
    light.set_tuning(config=PP2, shared_epilogue=True)
    assert light.tuning.shared_epilogue and "enum { kDirect = 1," not in light.kernel("t").cuda("sm_90a")
    # -1: the registers wherever the epilogue is per-element, the GELU's looped form too
    m.set_tuning(config=PP2, shared_epilogue=-1)
    assert m.tuning.shared_epilogue == -1 and "enum { kDirect = 1," in k.cuda("sm_90a")
    m.set_tuning(config=PP2, shared_epilogue=-3)  # any negative, as evt_tuning takes it
    assert m.tuning.shared_epilogue == -1 and "enum { kDirect = 1," in k.cuda("sm_90a")
    m.set_tuning()
    assert len(entry_points(k.cuda("sm_90a"))) > 1


def test_forced_wgmma_config_on_col_major_a():
    m = evt.compile(source="epilogue e { out y : f16[M, N] = acc }\n"
                           "kernel t = gemm(a: f16 col, b: f16 col, acc: f32) with e")
    k = m.kernel("t")
    k.cuda("sm_90a")  # the planner picks a configuration that can
    # 16-bit operands in any layout take the transposed wgmma
    m.set_tuning(config="sm90_wg2_128x256x64_s4")
    assert "_sm90_wg2_128x256x64_s4_sm90a(" in k.cuda("sm_90a")
    assert "sm90_pp2_128x128x64_s4" in k.configs("sm_90a")
    # a conv's configuration is refused with the reason
    m.set_tuning(config="sm90_wg2_128x128x32_s6")
    with raises(evt.UnsupportedError, "sm90_wg2_128x128x32_s6", "conv"):
        k.cuda("sm_90a")


def test_every_config_check_agrees_with_cuda():
    # Kernel.configs (evt_kernel_config_check) is what a sweep over configurations
    # relies on: it must say exactly which forced configurations generate code.
    m = examples()
    for name in ("mlp_up", "resnet_block"):
        k = m.kernel(name)
        for target in ("sm_80", "sm_90a"):
            can = set(k.configs(target))
            for config in evt.configs():
                m.set_tuning(config=config)
                try:
                    k.cuda(target)
                except evt.UnsupportedError:
                    assert config not in can, (name, target, config)
                else:
                    assert config in can, (name, target, config)


def test_tune_says_when_its_file_cannot_be_written():
    """On the stand-in driver and NVRTC of tests/fakecuda (EVT_FAKECUDA, set by
    ctest): a tuning whose database file cannot be written (a folder in its
    place, which stops root too) warns, rather than pass for saved."""
    fake = os.environ.get("EVT_FAKECUDA")
    if not fake:
        raise Skipped("EVT_FAKECUDA is not set (ctest sets it)")
    with tempfile.TemporaryDirectory(prefix="evt-tune-fake-") as cache, \
            environ(EVT_CUDA_DRIVER=fake, EVT_NVRTC_LIBRARY=fake, EVT_CACHE_DIR=cache, EVT_DISABLE_CACHE=None):
        os.mkdir(os.path.join(cache, "tuning.tsv"))
        with bind_fake_mlp_up(examples()) as launch, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = launch.tune(max_seconds=10, threads=1)
        assert r.recorded, r  # in this process's memory
        said = [str(c.message) for c in caught if issubclass(c.category, evt.EvtWarning)]
        assert any("tuning.tsv could not be written" in w for w in said), said
        assert caught[0].filename == __file__, caught[0].filename  # the user's line


def test_set_tuning_drops_the_call_launches():
    m = examples()
    k = m.kernel("mlp_up")
    launch = bind_fake_mlp_up(m)
    shared = evt._module._Handle(k, shared=True)
    k._natives[0] = shared
    m.set_tuning(config=PP2)
    assert shared.closed and not launch._native.closed
    assert launch.tuning == evt.Tuning(None, 0, 0)
    assert bind_fake_mlp_up(m).tuning == evt.Tuning(PP2, 0, 0)


# ---- with a GPU: launches against PyTorch in float64 --------------------------------


def need_gpu():
    if torch is None:
        skip("PyTorch is not installed")
    if not torch.cuda.is_available():
        skip("no GPU")
    try:
        evt.device_target()
    except (evt.NoGpuError, evt.UnsupportedError) as e:
        skip(str(e))


def check_close(got, want64, what, reduce=None):
    """Judges a GPU result against a float64 reference by libevt's policy (evt.check)."""
    v = evt.check(got, want64, reduce=reduce)
    assert v, f"{what}: {v}"
    return v.max_err


def gelu64(x):
    return 0.5 * x * (1 + torch.erf(x / 2 ** 0.5))


def test_gpu_gemm_bias_gelu():
    need_gpu()
    k = examples().kernel("mlp_up")
    torch.manual_seed(0)
    for (m, n, kk) in [(256, 512, 128), (1, 7, 13), (127, 1000, 24), (1000, 129, 40)]:
        lin = torch.nn.Linear(kk, n, device="cuda", dtype=torch.bfloat16)
        x = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
        y = k(x, lin.weight.t(), b=lin.bias)
        assert y.shape == (m, n) and y.dtype == torch.bfloat16 and y.is_contiguous()
        ref = gelu64(F.linear(x.double(), lin.weight.double(), lin.bias.double()))
        check_close(y, ref, f"mlp_up {m}x{n}x{kk}")


FAST_SOURCE = """
epilogue act {
    in  b : bf16[N]
    out y : bf16[M, N] = gelu_tanh(acc + b)
    out s : f32[M, N] = silu(acc) + sigmoid(acc) + exp(acc * 0.125)
    out g : bf16[M, N] = gelu(acc + b)
}
kernel mlp_fast = gemm(a: bf16 row, b: bf16 col, acc: f32) with act
"""


def test_fast_math_listing():
    m = evt.compile(source=FAST_SOURCE, fast_math=True)
    assert m.fast_math
    src = m.kernel("mlp_fast").cuda("sm_90a")
    assert "common/fast_math.h" in src
    for f in ("evt_fast_gelu_tanh(", "evt_fast_silu(", "evt_fast_sigmoid(", "evt_fast_exp(", "evt_fast_gelu("):
        assert f in src, f
    m.set_fast_math(False)
    assert not m.fast_math
    exact = m.kernel("mlp_fast").cuda("sm_90a")
    assert "evt_fast_" not in exact and "evt_gelu_tanh(" in exact and "evt_gelu16(" in exact  # g is bf16
    assert not evt.compile(source=FAST_SOURCE).fast_math
    with raises(TypeError):
        m.set_fast_math(1)
    with raises(TypeError):
        evt.compile(source=FAST_SOURCE, fast_math="yes")


def test_gpu_fast_math():
    # the tanh GELU as cuBLASLt computes it, and the others, against float64
    need_gpu()
    m = evt.compile(source=FAST_SOURCE, fast_math=True)
    k = m.kernel("mlp_fast")
    torch.manual_seed(5)
    for (rows, n, kk) in [(1000, 520, 264), (7, 129, 13), (2048, 1024, 4096)]:
        x = torch.randn(rows, kk, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, kk, device="cuda", dtype=torch.bfloat16) / kk ** 0.5 * 4
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        y, s, g = k(x, w.t(), b=b)
        acc = x.double() @ w.double().t()
        check_close(y, F.gelu(acc + b.double(), approximate="tanh"), f"fast gelu_tanh {rows}x{n}x{kk}")
        want = F.silu(acc) + torch.sigmoid(acc) + torch.exp(acc * 0.125)
        check_close(s, want, f"fast silu + sigmoid + exp {rows}x{n}x{kk}")
        check_close(g, gelu64(acc + b.double()), f"fast gelu {rows}x{n}x{kk}")


def test_gpu_fp8_scaled_gemm():
    # fp8 operands of multiples of 1/4 in [-2, 2], which e4m3 and e5m2 hold
    # exactly: the f32 accumulator is exact, so the f64 reference decides.
    need_gpu()
    target = evt.device_target()[0]
    m = evt.compile(source=FP8_SOURCE)
    if target not in ("sm_89", "sm_90a"):
        with raises(evt.EvtError, "fp8"):
            a = torch.zeros(16, 16, device="cuda").to(torch.float8_e4m3fn)
            m.kernel("e4m3_e4m3")(a, a.t(), sa=torch.ones(16, device="cuda"),
                                  sb=torch.ones(16, device="cuda"),
                                  bias=torch.zeros(16, device="cuda", dtype=torch.float16))
        return
    torch.manual_seed(3)
    dt = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
    for name in ("e4m3_e4m3", "e4m3_e5m2", "e5m2_e4m3", "e5m2_e5m2"):
        ta, tb = name.split("_")
        for (mm, n, kk) in [(256, 512, 256), (129, 200, 48), (1000, 96, 1024), (3, 17, 5)]:
            x = (torch.randint(-8, 9, (mm, kk), device="cuda") / 4).to(dt[ta])
            w = (torch.randint(-8, 9, (n, kk), device="cuda") / 4).to(dt[tb])
            sa = torch.rand(mm, device="cuda") + 0.5
            sb = torch.rand(n, device="cuda") + 0.5
            bias = torch.randn(n, device="cuda").half()
            d, amax = m.kernel(name)(x, w.t(), sa=sa, sb=sb, bias=bias, inv_scale=0.25)
            assert d.dtype == torch.float8_e4m3fn and d.shape == (mm, n)
            acc = x.double() @ w.double().t()
            y = gelu64(acc * sa.double()[:, None] * sb.double()[None, :] + bias.double())
            check_close(d, y * 0.25, f"{name} d {mm}x{n}x{kk}")
            check_close(amax, y.abs().max(), f"{name} amax {mm}x{n}x{kk}", reduce="max")


def test_gpu_launch_plan():
    need_gpu()
    k = examples().kernel("mlp_up")
    target = evt.device_target()[0]
    torch.manual_seed(2)
    for (m, n, kk, path) in [(512, 1024, 256, "fast"), (100, 70, 13, "guarded")]:
        x = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, kk, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        with k.bind(x, w.t(), b=b) as launch:
            assert launch.plan is None
            launch.run()
            plan = launch.plan
            assert plan.startswith(f"{target} ") and f" {path} " in plan, plan
            assert plan.split()[1] in evt.configs(), plan


def test_gpu_forced_configs():
    need_gpu()
    target = evt.device_target()[0]
    m = examples()
    k = m.kernel("mlp_up")
    torch.manual_seed(3)
    x = torch.randn(300, 200, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(260, 200, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(260, device="cuda", dtype=torch.bfloat16)
    ref = gelu64(F.linear(x.double(), w.double(), b.double()))
    configs = k.configs(target)
    assert configs
    for config in configs:
        with k.bind(x, w.t(), b=b).set_tuning(config) as launch:
            launch.run()
            assert launch.plan.split()[1] == config, launch.plan
            check_close(launch.result(), ref, f"mlp_up under {config}")
    with k.bind(x, w.t(), b=b).set_tuning(configs[0], split_k=2, row_group=2) as launch:
        launch.run()
        assert launch.plan.split()[1] == configs[0], launch.plan
        check_close(launch.result(), ref, f"mlp_up under {configs[0]}, split_k 2, row_group 2")
    for config in [c for c in configs if c.startswith("sm90_coop2_") and "_cl2_" not in c]:
        with k.bind(x, w.t(), b=b).set_tuning(config, stream_k=2) as launch:
            launch.run()
            assert "stream-K" in launch.plan, launch.plan
            check_close(launch.result(), ref, f"mlp_up under {config} with stream-K")
    # The module's tuning reaches plain calls, and launches bound afterwards.
    m.set_tuning(config=configs[-1])
    check_close(k(x, w.t(), b=b), ref, f"mlp_up called under {configs[-1]}")
    with k.bind(x, w.t(), b=b) as launch:
        launch.run()
        assert launch.plan.split()[1] == configs[-1], launch.plan
    unsupported = [c for c in evt.configs() if c not in configs]
    # refused where it is known: at set_tuning for another mainloop's
    # configuration, at run for one the GPU's target cannot run
    for name in unsupported:
        with raises(evt.UnsupportedError, name):
            with k.bind(x, w.t(), b=b).set_tuning(name) as launch:
                launch.run()


def test_gpu_padded_views_and_given_outputs():
    need_gpu()
    k = examples().kernel("mlp_up")
    m, n, kk = 100, 72, 56
    big_a = torch.randn(m, kk + 8, device="cuda", dtype=torch.bfloat16)
    a = big_a[:, 3:3 + kk]  # ld = kk + 8, misaligned start: the guarded mainloop
    w = torch.randn(n, kk, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    canvas = torch.full((m, n + 16), 7.0, device="cuda", dtype=torch.bfloat16)
    y = canvas[:, 8:8 + n]
    out = k(a, w.t(), b=bias, y=y)
    assert out is y
    check_close(y, gelu64(a.double() @ w.double().t() + bias.double()), "mlp_up into a view")
    assert (canvas[:, :8] == 7).all() and (canvas[:, 8 + n:] == 7).all()


def test_gpu_side_stream_and_rebinding():
    need_gpu()
    k = examples().kernel("mlp_up")
    a = torch.randn(64, 32, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(48, 32, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(48, device="cuda", dtype=torch.bfloat16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = k(a, w.t(), b=bias)
    s.synchronize()
    check_close(y, gelu64(a.double() @ w.double().t() + bias.double()), "on a side stream")
    launch = k.bind(a, w.t(), b=bias)
    for _ in range(3):
        y2 = launch.run()
    assert torch.equal(y2, y)
    assert launch.benchmark(warmup=1, reps=3) > 0
    launch.close()


def test_gpu_several_outputs_and_params():
    need_gpu()
    m = examples()
    a = torch.randn(200, 64, device="cuda", dtype=torch.float16)
    w = torch.randn(96, 64, device="cuda", dtype=torch.float16)
    bias = torch.randn(96, device="cuda", dtype=torch.float16)
    pre, y, amax = m.kernel("train_fwd")(a, w.t(), bias=bias, scale=0.5)
    z = a.double() @ w.double().t() + bias.double()
    check_close(pre, z, "train_fwd pre")
    check_close(y, torch.relu(z) * 0.5, "train_fwd y (e4m3)")
    assert amax.shape == () and amax.dtype == torch.float32
    check_close(amax, torch.relu(z).abs().max(), "train_fwd amax", reduce="max")

    sa = torch.rand(200, device="cuda") + 0.5
    sb = torch.rand(96, device="cuda") + 0.5
    outs = m.kernel("dequant")(a, w.t(), sa=sa, sb=sb)
    yd = (a.double() @ w.double().t()) * sa.double()[:, None] * sb.double()[None, :]
    check_close(outs.d, yd, "dequant d")
    assert outs.sum.shape == (200,)
    check_close(outs.sum, yd.sum(1), "dequant sum", reduce="sum")


def conv_case(kernel, x, w, bias, residual, padding, stride=1, dilation=1, **kw):
    try:
        return kernel(x, w, bias=bias, residual=residual, padding=padding, stride=stride,
                      dilation=dilation, **kw)
    except evt.UnsupportedError as e:
        skip(f"conv launching is not in libevt yet: {e}")


def test_gpu_conv_resnet_block():
    need_gpu()
    r = examples().kernel("resnet_block")
    torch.manual_seed(1)
    cl = torch.channels_last
    for (n, c, h, wd, k, pad, stride, dil) in [(2, 64, 14, 14, 64, 1, 1, 1),
                                               (3, 24, 9, 11, 40, 1, 2, 1),
                                               (1, 8, 7, 5, 16, 2, 1, 2)]:
        x = torch.randn(n, c, h, wd, device="cuda", dtype=torch.float16).to(memory_format=cl)
        w = (torch.randn(k, c, 3, 3, device="cuda", dtype=torch.float16) / 8).to(memory_format=cl)
        bias = torch.randn(k, device="cuda", dtype=torch.float16)
        acc64 = F.conv2d(x.double(), w.double(), padding=pad, stride=stride, dilation=dil)
        res = torch.randn(acc64.shape, device="cuda", dtype=torch.float16).to(memory_format=cl)
        d = conv_case(r, x, w, bias, res, pad, stride, dil, alpha=0.75)
        assert d.shape == acc64.shape and d.dtype == torch.float16
        assert d.is_contiguous(memory_format=cl)
        nb, kk, p, q = d.shape
        assert d.stride() == (p * q * kk, 1, q * kk, kk)
        want = torch.relu(0.75 * acc64 + bias.double()[None, :, None, None]) + res.double()
        check_close(d, want, f"resnet_block {n}x{c}x{h}x{wd} -> {k}")


def test_gpu_in_place_residual():
    # D written over the residual it adds gives the bits it gives into a tensor
    # of its own, under every configuration the GPU runs (a 1x1 conv with c = 64:
    # on sm_90a the staged ones copy the residual by TMA first) and split in K.
    need_gpu()
    target = evt.device_target()[0]
    r = examples().kernel("resnet_block")
    torch.manual_seed(4)
    cl = torch.channels_last
    n, c, h, wd, k = 2, 64, 14, 14, 128
    x = torch.randn(n, c, h, wd, device="cuda", dtype=torch.float16).to(memory_format=cl)
    w = (torch.randn(k, c, 1, 1, device="cuda", dtype=torch.float16) / 8).to(memory_format=cl)
    bias = torch.randn(k, device="cuda", dtype=torch.float16)
    res = torch.randn(n, k, h, wd, device="cuda", dtype=torch.float16).to(memory_format=cl)
    configs = r.configs(target)
    assert configs
    for config, split_k in [(name, 0) for name in configs] + [(configs[0], 2)]:
        out = torch.empty_like(res)
        with r.bind(x, w, bias=bias, residual=res, D=out).set_tuning(config, split_k) as launch:
            launch.run()
        in_place = res.clone()
        with r.bind(x, w, bias=bias, residual=in_place, D=in_place).set_tuning(config, split_k) \
                as launch:
            launch.run()
        torch.cuda.synchronize()
        assert torch.equal(in_place, out), f"in place under {config}, split_k {split_k}"


def test_gpu_conv_nhwc_tensors():
    need_gpu()
    r = examples().kernel("resnet_block")
    n, c, h, wd, k = 2, 32, 8, 8, 16
    x = torch.randn(n, h, wd, c, device="cuda", dtype=torch.float16)
    w = torch.randn(k, 3, 3, c, device="cuda", dtype=torch.float16) / 8
    bias = torch.randn(k, device="cuda", dtype=torch.float16)
    res = torch.randn(n, h, wd, k, device="cuda", dtype=torch.float16)
    d = conv_case(r, x, w, bias, res, 1)
    assert d.shape == (n, h, wd, k) and d.is_contiguous()
    acc64 = F.conv2d(x.permute(0, 3, 1, 2).double(), w.permute(0, 3, 1, 2).double(), padding=1)
    want = torch.relu(acc64 + bias.double()[None, :, None, None]).permute(0, 2, 3, 1) \
        + res.double()
    check_close(d, want, "resnet_block NHWC")


# ---- as a script -----------------------------------------------------------------------



# ---- batched GEMMs: a leading batch dimension ---------------------------------------

BATCH = 3


def mlp():
    return examples().kernel("mlp_up")


def expect_no_gpu(launch):
    """A launch the library validated whole: on a machine without a driver,
    the run ends in NoGpuError (fake pointers must not reach a GPU)."""
    if no_cuda_driver():
        with raises(evt.NoGpuError):
            launch.run(stream=0)
    launch.close()


def test_batched_shapes():
    L = BATCH
    a = FakeTensor((L, M, K), "bfloat16")
    w = FakeTensor((K, N), "bfloat16", stride=(1, K))  # one weight for the batch
    bias = FakeTensor((N,), "bfloat16")
    y = FakeTensor((L, M, N), "bfloat16")
    launch = mlp().bind(a, w, b=bias, y=y)
    assert launch.sizes == {"M": M, "N": N, "K": K, "L": L}
    expect_no_gpu(launch)
    # per-problem weights [L, K, N] (each an nn.Linear weight's .t()) and biases [L, N]
    wb = FakeTensor((L, K, N), "bfloat16", stride=(N * K, 1, K))
    expect_no_gpu(mlp().bind(a, wb, b=FakeTensor((L, N), "bfloat16"), y=FakeTensor((L, M, N), "bfloat16")))
    # a 2-D a with a batched b: A shared
    expect_no_gpu(mlp().bind(FakeTensor((M, K), "bfloat16"), wb, b=bias, y=FakeTensor((L, M, N), "bfloat16")))
    # an expanded operand (batch stride 0) and a leading 1 are shared as well
    expect_no_gpu(mlp().bind(FakeTensor((L, M, K), "bfloat16", stride=(0, K, 1)), wb, b=bias,
                             y=FakeTensor((L, M, N), "bfloat16")))
    expect_no_gpu(mlp().bind(a, wb, b=FakeTensor((1, N), "bfloat16"), y=FakeTensor((L, M, N), "bfloat16")))
    # problems apart by more than their extent: a padded batch
    expect_no_gpu(mlp().bind(FakeTensor((L, M, K), "bfloat16", stride=(M * K + 8, K, 1)), w, b=bias,
                             y=FakeTensor((L, M, N), "bfloat16", stride=(M * N + 16, N, 1))))
    # a 2-D call is the plain launch, as before
    launch = mlp().bind(FakeTensor((M, K), "bfloat16"), w, b=bias, y=FakeTensor((M, N), "bfloat16"))
    assert launch.sizes == {"M": M, "N": N, "K": K}
    expect_no_gpu(launch)


def test_batched_refusals():
    L = BATCH
    a = FakeTensor((L, M, K), "bfloat16")
    w = FakeTensor((K, N), "bfloat16", stride=(1, K))
    bias = FakeTensor((N,), "bfloat16")
    with raises(evt.ArgumentError, "output 'y'", "leading batch dimension", f"[{L}, {M}, {N}]"):
        mlp().bind(a, w, b=bias, y=FakeTensor((M, N), "bfloat16"))
    with raises(evt.ArgumentError, "output 'y'", "batch stride 0"):
        mlp().bind(a, w, b=bias, y=FakeTensor((L, M, N), "bfloat16", stride=(0, N, 1)))
    with raises(evt.ArgumentError, "operand 'b'", "must agree"):
        mlp().bind(a, FakeTensor((2, K, N), "bfloat16", stride=(N * K, 1, K)), b=bias,
                   y=FakeTensor((L, M, N), "bfloat16"))
    with raises(evt.ArgumentError, "input 'b'", "leading dimension of 2"):
        mlp().bind(a, w, b=FakeTensor((2, N), "bfloat16"), y=FakeTensor((L, M, N), "bfloat16"))
    with raises(evt.ArgumentError, "operand 'a'", "[L, M, K]"):
        mlp().bind(FakeTensor((L, 2, M, K), "bfloat16"), w, b=bias, y=FakeTensor((L, M, N), "bfloat16"))
    # the library's own checks over the batch, at the run
    overlapping = FakeTensor((L, M, N), "bfloat16", stride=(N, N, 1))  # problem l + 1 a row below l
    with raises(evt.InvalidArgumentError, "output 'y'", f"batch stride of {N}", "overlap"):
        mlp().bind(a, w, b=bias, y=overlapping).run(stream=0)
    short = FakeTensor((L, M, K), "bfloat16", storage_bytes=2 * (2 * M * K))  # two problems' worth
    with raises(evt.BadBufferError, "operand 'a' is too small", "3 problems"):
        mlp().bind(short, w, b=bias, y=FakeTensor((L, M, N), "bfloat16")).run(stream=0)
    # the third problem's output on a: refused over the batch's footprints
    y = FakeTensor((L, M, N), "bfloat16")
    a_over = FakeTensor((L, M, K), "bfloat16", ptr=y.data_ptr() + 2 * (2 * M * N))
    with raises(evt.InvalidArgumentError, "output 'y' overlaps operand 'a'", "batch"):
        mlp().bind(a_over, w, b=bias, y=y).run(stream=0)



def test_gpu_batched_gemm():
    """A leading batch dimension: per-problem activations, a weight and a
    bias shared (2-D, or 3-D expanded), or per-problem ones; outputs and
    reductions come back with a leading L.  Every problem against float64."""
    need_gpu()
    m = examples()
    k = m.kernel("mlp_up")
    torch.manual_seed(0)
    for L, mm, n, kk in [(1, 33, 70, 40), (7, 97, 130, 72), (64, 17, 29, 24), (512, 9, 11, 16)]:
        x = torch.randn(L, mm, kk, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, kk, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        y = k(x, w.t(), b=b)  # one weight and bias for the batch
        assert y.shape == (L, mm, n)
        want = gelu64(x.double() @ w.double().t() + b.double())
        check_close(y, want, f"batched mlp_up L={L}, shared weight")
        # the weight expanded over the batch (stride 0) is the same launch
        assert torch.equal(k(x, w.t().unsqueeze(0).expand(L, kk, n), b=b), y)
        ws = torch.randn(L, n, kk, device="cuda", dtype=torch.bfloat16)
        bs = torch.randn(L, n, device="cuda", dtype=torch.bfloat16)
        y = k(x, ws.transpose(1, 2), b=bs)
        want = gelu64(torch.bmm(x.double(), ws.double().transpose(1, 2)) + bs.double()[:, None, :])
        check_close(y, want, f"batched mlp_up L={L}, per-problem weights")
    # reductions: one per problem
    xh, wh, bh = f16s(5, 40, 64), f16s(96, 64), f16s(96)
    pre, yq, amax = m.kernel("train_fwd")(xh, wh.t(), bias=bh, scale=0.5)
    assert pre.shape == (5, 40, 96) and amax.shape == (5,)
    z = xh.double() @ wh.double().t() + bh.double()
    check_close(pre, z, "batched train_fwd pre")
    check_close(amax, torch.relu(z).abs().amax(dim=(1, 2)), "batched train_fwd amax", reduce="max")


def f16s(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.float16)


def run_tests(namespace):
    """Runs every test_* function of `namespace` (a module's globals) in
    source order, reporting each and a summary line; 1 if any failed."""
    global AS_SCRIPT
    AS_SCRIPT = True
    tests = [(k, v) for k, v in sorted(namespace.items(), key=lambda kv: kv[1].__code__
                                       .co_firstlineno if callable(kv[1]) and
                                       hasattr(kv[1], "__code__") else 0)
             if k.startswith("test_") and callable(v)]
    passed = failed = skipped = 0
    for name, fn in tests:
        try:
            fn()
        except Skipped as e:
            skipped += 1
            print(f"SKIP {name}: {e}")
        except Exception as e:  # report every failure, then the summary
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
