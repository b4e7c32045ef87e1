"""Modules, kernels and launches: the Python face of evt.h.

evt.compile() parses and optimizes `.evt` source into a Module; a Module
hands out Kernels; a Kernel checks its arguments (tensors, params, conv
geometry), allocates the outputs not given, and launches on PyTorch's
current stream.  Each Module owns its own evt_ctx, so modules may be used
from different threads; a lock serialises the calls on one module.
"""

import ctypes
import operator
import os
import sys
import threading
import warnings
import weakref
from collections import OrderedDict, namedtuple
from contextlib import nullcontext

from . import _lib
from ._lib import lib
from ._tensor import TORCH_DTYPE_NAMES, View, dense, device_str, rows_ld
from .errors import (ArgumentError, ArgumentTypeError, EvtError, EvtWarning, NoMemoryError,
                     SourceError, UnboundError, UnsupportedError, error_for)

Diag = namedtuple("Diag", "severity file line column message")
Diag.__doc__ = "One diagnostic: severity ('error', 'warning', 'note'), location, message."

Operand = namedtuple("Operand", "name dtype layout")
Operand.__doc__ = ("A mainloop operand: name ('a', 'b' / 'x', 'w' / 'acc'), dtype ('f16', ...), "
                   "layout ('row', 'col', or None where the mainloop fixes it).")

Arg = namedtuple("Arg", "name dtype shape kind reduce default")
Arg.__doc__ = ("An epilogue argument: name, dtype ('f16', ...), shape ((), ('M',), ('N',) or "
               "('M', 'N')), kind ('in', 'param', 'out'), reduce (None, 'sum', 'max', 'min'; "
               "outputs only), default (params only: the declared default or None).")

Tuning = namedtuple("Tuning", "config split_k row_group ignore_records stream_k shared_epilogue",
                    defaults=(False, 0, False))
Tuning.__doc__ = ("What a module or launch forces on the planner and the code generator: "
                  "config (a tile configuration's name, None for the planner's pick), "
                  "split_k (0 the planner's, 1 never, n >= 2 n ways), row_group (rows per "
                  "epilogue row group: 0 the code generator's, or 1, 2, 4, 8, 16), "
                  "ignore_records (run the heuristic's plan where Launch.tune recorded one), "
                  "stream_k (0 the planner's, 1 never, 2 where the configuration has it), "
                  "shared_epilogue (True: the sm_90a producer/consumer configurations run the epilogue "
                  "through shared memory even where they could in registers; -1: in registers wherever "
                  "the epilogue is per-element, looped builtins and edge tiles included; False: the "
                  "library's choice).")
_NO_TUNING = Tuning(None, 0, 0)

TunePlan = namedtuple("TunePlan", "config split_k ms stream_k", defaults=(False,))
TunePlan.__doc__ = ("One plan Launch.tune timed: its tile configuration, split-K factor "
                    "(1: none), median milliseconds (None: not timed, the time ran out) "
                    "and whether it runs stream-K.")
TuneResult = namedtuple("TuneResult", "best heuristic plans candidates timed compiled seconds "
                                      "compile_seconds recorded")
TuneResult.__doc__ = ("What Launch.tune measured: best and heuristic (TunePlan), every plan "
                      "in the order timed (plans), how many the planner admits (candidates) and "
                      "were timed, the kernels NVRTC compiled, the seconds the call and its "
                      "compiles took, and whether the best went into the tuning database.")

# Whether the library takes a run's workspace from the caller (PyTorch's).
_HAS_WORKSPACE = _lib.has("evt_launch_run_with_workspace")
_KIND_NAMES = {_lib.ARG_INPUT: "in", _lib.ARG_PARAM: "param", _lib.ARG_OUTPUT: "out"}
_OPTIONS = {"gemm": ("stream",), "conv2d_fprop": ("stream", "padding", "stride", "dilation")}

# What a call's keyword names (Kernel._roles): an operand by its index, then
# the kinds after it; tensors are the roles up to _TENSOR.
_OPERAND_A, _OPERAND_B, _TENSOR, _PARAM, _OPTION, _STREAM = range(6)
# The call signatures a Kernel keeps checked (_Call), the least recently used dropped.
_CALLS_KEPT = 32


class _Uncached(Exception):
    """A call the signature cache does not take: it goes the checked way."""


def _torch(required_for=None):
    """The torch module: the one already imported, else imported now when
    `required_for` says what needs it (None: only if already imported)."""
    torch = sys.modules.get("torch")
    if torch is not None or required_for is None:
        return torch
    try:
        import torch
    except ImportError:
        raise ArgumentError(f"{required_for} needs PyTorch, which cannot be imported") from None
    return torch


# torch once it has seen a GPU, which it then always does: asked once, not
# on every launch.  Calls through the signature cache need it (Kernel.__call__).
_CUDA_TORCH = None
# Tensor types whose shape, strides, dtype and device are all a call's checks
# read (subclasses may override data_ptr or have no storage), and PyTorch's
# current CUstream of a device as an int (inductor's own way: no Stream
# object is made), both set with _CUDA_TORCH.
_PLAIN_TENSORS = ()
_current_stream = None
_current_device = None


def _cuda_torch():
    """torch, if it is imported and sees a GPU (else None)."""
    global _CUDA_TORCH, _PLAIN_TENSORS, _current_stream, _current_device
    if _CUDA_TORCH is None:
        torch = _torch()
        if torch is None or not torch.cuda.is_available():
            return None
        torch.cuda.init()
        _PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)
        _current_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
        # initialized above: the lazy-init check of torch.cuda.current_device is not needed
        _current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
        _CUDA_TORCH = torch
    return _CUDA_TORCH


_NO_GUARD = nullcontext()


def _device_guard(index):
    """Makes device `index` (and so its primary context, PyTorch's) current."""
    torch = _cuda_torch()
    if torch is None or _current_device() == index:
        return _NO_GUARD
    return torch.cuda.device(index)


def _stream_handle(stream, index):
    """A CUstream as an int: PyTorch's current stream on `index` for None."""
    if stream is None:
        return _current_stream(index) if _cuda_torch() is not None else 0
    for attr in ("cuda_stream", "ptr", "handle"):  # torch.cuda.Stream, CuPy, cuda-python
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    if isinstance(stream, ctypes.c_void_p):
        return stream.value or 0
    return int(stream)


def _destroy(ctx, mod, live=()):
    # Launches borrow the module: any still alive go first.  A module and its
    # launches collected together run their finalizers in no set order, so
    # both kinds go through `live`, the module's set of native launch handles.
    for h in list(live):
        _destroy_launch(h, live)
    lib.evt_module_destroy(mod)
    lib.evt_ctx_destroy(ctx)


def _destroy_launch(h, live):
    if h in live:
        live.discard(h)
        lib.evt_launch_destroy(h)


def configs():
    """Every tile configuration's name, e.g. 'sm90_pp2_128x128x64_s4' (docs/codegen.md
    says what a name says); Kernel.configs(target) keeps those that can run a kernel."""
    _lib.need("evt_config_count", "evt.configs()")
    return tuple(_lib.text(lib.evt_config_name(i)) for i in range(lib.evt_config_count()))


# The library's C int arguments and fields: ctypes wraps a larger Python int silently.
_C_INT_MIN, _C_INT_MAX = -2 ** 31, 2 ** 31 - 1


def _c_int(name, value, convert=operator.index):
    """value as an int the library's C int takes: ctypes would wrap a larger
    one silently (2**32 + 2 becoming 2), so it is refused here; the library
    checks the value's own range."""
    v = convert(value)
    if not _C_INT_MIN <= v <= _C_INT_MAX:
        raise ArgumentError(f"{name} is {v}: out of the range of a C int (-2**31 to 2**31 - 1)", name)
    return v


def _tuning(config, split_k, row_group, ignore_records=False, stream_k=0, shared_epilogue=False):
    """(Tuning, its evt_tuning struct) from set_tuning's arguments.  The
    library checks the values; only the types, and that the counts fit a C
    int, are checked here."""
    _lib.need("evt_ctx_set_tuning", "tuning")
    if config is not None and not isinstance(config, str):
        raise TypeError(f"config must be a configuration's name (str) or None, not {config!r}")
    t = Tuning(config or None, _c_int("split_k", split_k), _c_int("row_group", row_group),
               bool(ignore_records), _c_int("stream_k", stream_k),
               # any negative int is the library's "registers", as in evt_tuning
               -1 if isinstance(shared_epilogue, int) and shared_epilogue < 0 else bool(shared_epilogue))
    return t, _lib.Tuning(t.config.encode() if t.config else None, t.split_k, t.row_group,
                          int(t.ignore_records), t.stream_k, int(t.shared_epilogue))


def _tune_plan(e):
    return TunePlan(_lib.text(e.config), e.split_k, e.ms if e.ms >= 0 else None, bool(e.stream_k))


def _diags(mod):
    out = []
    for i in range(lib.evt_module_diag_count(mod)):
        d = lib.evt_module_diag(mod, i).contents
        out.append(Diag(_lib.SEVERITY_NAMES[d.severity], _lib.text(d.loc.file), d.loc.line,
                        d.loc.column, _lib.text(d.message)))
    return out


def _new_ctx():
    """A new evt_ctx, loading NVRTC from where _lib.nvrtc_library() finds it
    and the CUDA driver from where EVT_CUDA_DRIVER says (the library reads
    no environment variable; the binding maps them)."""
    ctx = lib.evt_ctx_create()
    if not ctx:
        raise NoMemoryError("evt_ctx_create: out of memory")
    if _lib.has("evt_ctx_set_library_path"):
        for which, what, path in ((0, "NVRTC", _lib.nvrtc_library()),
                                  (1, "EVT_CUDA_DRIVER", os.environ.get("EVT_CUDA_DRIVER"))):
            if path and lib.evt_ctx_set_library_path(ctx, which, os.fsencode(path)) != 0:
                msg = _lib.text(lib.evt_ctx_last_error(ctx))
                lib.evt_ctx_destroy(ctx)
                raise ArgumentError(f"{what} ({path}): {msg}")
    return ctx


def compile(path=None, source=None, opt_level=2, name=None, fast_math=False):
    """Parses and optimizes `.evt` source into a Module.

    Give exactly one of `path` (a file) or `source` (str or bytes; `name` is
    the file name its diagnostics show, "<string>" by default).  Invalid
    source raises SourceError with every diagnostic; warnings of valid source
    are issued as EvtWarning through the warnings module.  `opt_level` is the
    optimizer level, 0 to 2 (evtc's -O0..-O2).  `fast_math`: see
    Module.set_fast_math."""
    if (path is None) == (source is None):
        raise TypeError("evt.compile: give exactly one of path= or source=")
    if not isinstance(fast_math, bool):
        raise TypeError(f"fast_math must be True or False, not {fast_math!r}")
    # (bytes(n) of an int would be n zero bytes, parsed as source)
    if source is not None and not isinstance(source, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"evt.compile: source must be str or bytes, not {type(source).__name__}")
    if path is not None and not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"evt.compile: path must be a str, bytes or os.PathLike, not {type(path).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"evt.compile: name must be a str, not {type(name).__name__}")
    if isinstance(opt_level, bool) or not hasattr(type(opt_level), "__index__"):
        raise TypeError(f"evt.compile: opt_level must be 0, 1 or 2, not {opt_level!r}")
    level = opt_level.__index__()
    if level not in (0, 1, 2):  # (here, not only in the library: ctypes would wrap 2**32 + 1 to 1)
        raise error_for(_lib.ERR_INVALID_ARGUMENT, f"evt.compile: opt_level {level} is not 0, 1 or 2")
    ctx = _new_ctx()
    mod = ctypes.c_void_p()
    if path is not None:
        st = lib.evt_module_parse_file(ctx, os.fsencode(path), ctypes.byref(mod))
    else:
        data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
        label = (name or "<string>").encode("utf-8")
        st = lib.evt_module_parse_buffer(ctx, label, data, len(data), ctypes.byref(mod))
    if st != _lib.OK:
        message = _lib.text(lib.evt_ctx_last_error(ctx))
        if mod.value:
            text = _lib.text(lib.evt_module_diag_text(mod, _lib.DIAG_TEXT))
            diags = _diags(mod)
        else:
            text, diags = "", []
        _destroy(ctx, mod.value)
        if st == _lib.ERR_SOURCE:
            raise SourceError(message, text, diags)
        if st == _lib.ERR_IO and "\n" in os.fsdecode(path):
            # evt.compile(text), the text taken for a file name: say so rather than echo the text
            first = os.fsdecode(path).lstrip().split("\n", 1)[0][:40]
            message = (f"evt.compile: path={first!r}... names no file (it has line breaks, like .evt "
                       "source text); to compile source text, pass it as source=")
        raise error_for(st, message, text)
    module = Module(ctx, mod.value, os.fsdecode(path) if path is not None else name or "<string>")
    if module.diags:
        warnings.warn(EvtWarning(module.diagnostics.rstrip()), stacklevel=2)
    with module._lock:
        module._check(lib.evt_module_optimize(module._handle(), level))
    if fast_math:
        module.set_fast_math(True)
    return module


class Module:
    """A parsed, optimized `.evt` file: its kernels, epilogues, IR and diagnostics.

    Owns a library context and module, released by close() (or when the
    object is collected); a with-statement closes it on exit."""

    def __init__(self, ctx, mod, name):
        self.name = name
        self._ctx = ctx
        self._mod = mod
        self._lock = threading.RLock()
        self._launches = weakref.WeakSet()
        self._live = set()  # native handles of the launches not yet destroyed
        self._kernels = {}  # name -> Kernel, made on first ask
        self.tuning = _NO_TUNING
        self._finalizer = weakref.finalize(self, _destroy, ctx, mod, self._live)

    # -- lifetime
    def close(self):
        """Releases the module, and first every launch made from it."""
        with self._lock:
            for launch in list(self._launches):
                launch.close()
            self._finalizer()

    @property
    def closed(self):
        return not self._finalizer.alive

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._finalizer.alive:
            raise EvtError(f"module '{self.name}' is closed")
        return self._mod

    def _check(self, status):
        if status != _lib.OK:
            raise self._error(status)

    def _error(self, status):
        """The exception of a failed call's `status`, with the library's message."""
        message = _lib.text(lib.evt_ctx_last_error(self._ctx))
        diagnostics = ""
        if status == _lib.ERR_COMPILE:  # NVRTC's log went to the diagnostics
            diagnostics = _lib.text(lib.evt_module_diag_text(self._mod, _lib.DIAG_TEXT))
        return error_for(status, message, diagnostics)

    # -- tuning
    def set_tuning(self, config=None, split_k=0, row_group=0, ignore_records=False, stream_k=0,
                   shared_epilogue=False):
        """Forces the tile configuration (a name from evt.configs(); None: the
        planner's pick), split-K and the epilogue's row group (see Tuning) for
        every compile (Kernel.cuda, Kernel.compile) and launch of this module
        from now on; set_tuning() returns to the planner's choices.  Launches
        already bound keep theirs (Launch.set_tuning changes them).
        ignore_records: launches run the heuristic's plan even where
        Launch.tune recorded a measured one.

        NotFoundError for an unknown name, InvalidArgumentError for a split_k
        below 0 or a row group not listed; a configuration that cannot run a
        kernel makes compiling or launching it raise UnsupportedError."""
        t, native = _tuning(config, split_k, row_group, ignore_records, stream_k, shared_epilogue)
        with self._lock:
            self._handle()  # raises if closed
            self._check(lib.evt_ctx_set_tuning(self._ctx, ctypes.byref(native)))
            self.tuning = t
            self._drop_shared_launches()

    def _drop_shared_launches(self):
        """Kernel calls reuse one launch per stream, made under the settings
        before a change (set_tuning, set_fast_math): dropped, so that the
        plain call path checks nothing.  Called with the lock held."""
        for h in list(self._launches):
            if h.shared:
                h.close()

    def set_fast_math(self, on=True):
        """Fast math for every compile and launch of this module from now on
        (set_fast_math(False) turns it off): exp, sigmoid, silu, gelu and gelu_tanh
        computed on the GPU's approximate ex2 and rcp, as nvcc's
        --use_fast_math and cuBLASLt's GELU epilogue do.  Several times fewer
        instructions; results within a few f32 ulp of the exact value (those
        below 2^-119 may be 0), no longer bit for bit what the CPU
        interpreter computes.  tanh and the other builtins stay
        exact.  Launches already bound keep what they were made with."""
        if not isinstance(on, bool):
            raise TypeError(f"set_fast_math takes True or False, not {on!r}")
        _lib.need("evt_ctx_set_fast_math", "fast math")
        with self._lock:
            self._handle()  # raises if closed
            self._check(lib.evt_ctx_set_fast_math(self._ctx, int(on)))
            self._drop_shared_launches()

    @property
    def fast_math(self):
        """Whether compiles and launches made now use fast math (set_fast_math)."""
        return _lib.has("evt_ctx_fast_math") and bool(lib.evt_ctx_fast_math(self._ctx))

    # -- contents
    @property
    def kernels(self):
        """The kernels' names, in source order."""
        m = self._handle()
        return tuple(_lib.text(lib.evt_kernel_name(lib.evt_module_kernel(m, i)))
                     for i in range(lib.evt_module_kernel_count(m)))

    @property
    def epilogues(self):
        """The epilogues' names, in source order."""
        m = self._handle()
        return tuple(_lib.text(lib.evt_epilogue_name(lib.evt_module_epilogue(m, i)))
                     for i in range(lib.evt_module_epilogue_count(m)))

    def kernel(self, name):
        """The Kernel named `name`, the same object each time (it keeps its
        calls' checked signatures); NotFoundError (a LookupError) if none."""
        if not isinstance(name, str):
            raise TypeError(f"a kernel's name is a str, not {type(name).__name__}")
        with self._lock:
            handle = self._handle()
            kernel = self._kernels.get(name)
            if kernel is None:
                k = lib.evt_module_find_kernel(handle, name.encode("utf-8"))
                if not k:
                    raise error_for(_lib.ERR_NOT_FOUND,
                                    f"module '{self.name}' has no kernel '{name}'; its "
                                    f"kernels: " + (", ".join(self.kernels) or "none"))
                kernel = self._kernels[name] = Kernel(self, k)
            return kernel

    def __getitem__(self, name):
        return self.kernel(name)

    def __contains__(self, name):
        return name in self.kernels

    @property
    def diags(self):
        """Every diagnostic (warnings of a valid module) as Diag tuples."""
        with self._lock:
            return _diags(self._handle())

    @property
    def diagnostics(self):
        """Every diagnostic as text ("" if none)."""
        with self._lock:
            return _lib.text(lib.evt_module_diag_text(self._handle(), _lib.DIAG_TEXT))

    @property
    def ir(self):
        """The optimized IR as `evtc --emit=ir` prints it."""
        with self._lock:
            return _lib.text(lib.evt_module_ir_text(self._handle()))

    @property
    def dot(self):
        """The module as one Graphviz digraph, each epilogue a cluster (`evtc --emit=dot`)."""
        with self._lock:
            return _lib.text(lib.evt_module_dot_text(self._handle()))

    def __repr__(self):
        state = "closed" if self.closed else f"kernels {list(self.kernels)}"
        return f"<evt.Module '{self.name}' {state}>"


def _target(name):
    t = ctypes.c_int()
    if lib.evt_target_parse(str(name).encode(), ctypes.byref(t)) != _lib.OK:
        raise error_for(_lib.ERR_INVALID_ARGUMENT,
                        f"unknown target '{name}': sm_80, sm_86, sm_89 or sm_90a")
    return t.value


def device_target():
    """(target, device name) of the current GPU, e.g. ('sm_90a', 'NVIDIA H200');
    NoGpuError without one, UnsupportedError for a GPU evt does not target."""
    ctx = _new_ctx()
    try:
        torch = _cuda_torch()
        with _device_guard(torch.cuda.current_device()) if torch else nullcontext():
            t = ctypes.c_int()
            buf = ctypes.create_string_buffer(256)
            st = lib.evt_device_target(ctx, ctypes.byref(t), buf, len(buf))
        if st != _lib.OK:
            raise error_for(st, _lib.text(lib.evt_ctx_last_error(ctx)))
        return _lib.text(lib.evt_target_name(t.value)), buf.value.decode(errors="replace")
    finally:
        lib.evt_ctx_destroy(ctx)


class Kernel:
    """One kernel of a Module: its metadata, its code, and launching it.

    Call it with tensors and params by name, e.g.
    ``y = mlp_up(a=x, b=linear.weight.t(), b_bias=bias)``; see docs/python.md."""

    def __init__(self, module, handle):
        self.module = module
        self._k = handle
        self._natives = {}  # CUstream (None: any) -> _Handle, for __call__ (_native)
        self._calls = OrderedDict()  # call signature -> _Call, the latest used last
        self.name = _lib.text(lib.evt_kernel_name(handle))
        ml = lib.evt_kernel_mainloop(handle)
        self.mainloop = "gemm" if ml == _lib.MAINLOOP_GEMM else "conv2d_fprop"
        ops = []
        for i in range(3):
            o = lib.evt_kernel_operand(handle, i).contents
            ops.append(Operand(_lib.text(o.name), _lib.ELEM_NAMES[o.elem],
                               _lib.LAYOUT_NAMES[o.layout]))
        self.operands = tuple(ops[:2])
        self.acc = ops[2]
        ep = lib.evt_kernel_epilogue(handle)
        self.epilogue = _lib.text(lib.evt_epilogue_name(ep))
        args = {}
        for kind in (_lib.ARG_INPUT, _lib.ARG_PARAM, _lib.ARG_OUTPUT):
            lst = []
            for i in range(lib.evt_epilogue_arg_count(ep, kind)):
                a = lib.evt_epilogue_arg(ep, kind, i).contents
                default = float(a.default_value) if (kind == _lib.ARG_PARAM
                                                      and a.has_default) else None
                lst.append(Arg(_lib.text(a.name), _lib.ELEM_NAMES[a.elem], _lib.SHAPES[a.shape],
                               _KIND_NAMES[kind],
                               _lib.REDUCE_NAMES[a.reduce] if kind == _lib.ARG_OUTPUT else None,
                               default))
            args[kind] = tuple(lst)
        self.inputs = args[_lib.ARG_INPUT]
        self.params = args[_lib.ARG_PARAM]
        self.outputs = args[_lib.ARG_OUTPUT]
        # What each keyword of a call names, as _split reads it: an epilogue
        # argument first, then an operand, then an option.
        self._roles = {o: _STREAM if o == "stream" else _OPTION for o in self.options}
        self._roles.update((o.name, i) for i, o in enumerate(self.operands))
        self._roles.update((a.name, _TENSOR) for a in self.inputs + self.outputs)
        self._roles.update((a.name, _PARAM) for a in self.params)

    @property
    def argument_names(self):
        """Operands, inputs, outputs and params, in that order."""
        return tuple(a.name for a in self.operands + self.inputs + self.outputs + self.params)

    def signature(self, options=None):
        """What a call takes, as text: operands, inputs, outputs, params, options."""
        parts = [f"operands {', '.join(o.name for o in self.operands)}"]
        for what, args in (("inputs", self.inputs), ("outputs (optional)", self.outputs)):
            if args:
                parts.append(f"{what} {', '.join(a.name for a in args)}")
        if self.params:
            parts.append("params " + ", ".join(
                a.name + ("" if a.default is None else f"={a.default:g}") for a in self.params))
        options = self.options if options is None else options
        if options:
            parts.append(f"options {', '.join(options)}")
        return "; ".join(parts)

    @property
    def options(self):
        """Keywords other than arguments: conv geometry, and stream for calls."""
        return _OPTIONS[self.mainloop]

    def __repr__(self):
        ops = ", ".join(f"{o.name}: {o.dtype}" + (f" {o.layout}" if o.layout else "")
                        for o in self.operands + (self.acc,))
        return f"<evt.Kernel {self.name} = {self.mainloop}({ops}) with {self.epilogue}>"

    # -- code
    def cuda(self, target):
        """The generated CUDA C++ for `target` ('sm_80', ..., 'sm_90a')."""
        with self.module._lock:
            out = ctypes.c_char_p()
            self.module._check(lib.evt_kernel_cuda(self.module._handle(), self._k,
                                                   _target(target), ctypes.byref(out)))
            return _lib.text(out.value)

    def compile(self, target, format="ptx"):
        """The kernel compiled by NVRTC for `target`: PTX (str) or a cubin (bytes)."""
        fmt = {"ptx": _lib.BINARY_PTX, "cubin": _lib.BINARY_CUBIN}.get(format)
        if fmt is None:
            raise ValueError("format must be 'ptx' or 'cubin'")
        with self.module._lock:
            data, size = ctypes.c_void_p(), ctypes.c_size_t()
            self.module._check(lib.evt_kernel_compile(self.module._handle(), self._k,
                                                      _target(target), fmt, ctypes.byref(data),
                                                      ctypes.byref(size), None))
            try:
                raw = ctypes.string_at(data.value, size.value)
            finally:
                lib.evt_free(data.value)
        return raw.rstrip(b"\0").decode() if fmt == _lib.BINARY_PTX else raw

    def check_config(self, config, target):
        """Raises UnsupportedError, with the reason, when tile configuration
        `config` cannot run this kernel on `target` (NotFoundError for an
        unknown name); returns None when it can."""
        _lib.need("evt_kernel_config_check", "Kernel.check_config")
        with self.module._lock:
            self.module._check(lib.evt_kernel_config_check(self.module._handle(), self._k,
                                                           _target(target),
                                                           str(config).encode()))

    def configs(self, target):
        """The names of the tile configurations that can run this kernel on
        `target`, in evt.configs() order."""
        names = []
        for name in configs():
            try:
                self.check_config(name, target)
            except UnsupportedError:
                continue
            names.append(name)
        return tuple(names)

    def torch_op(self, name):
        """Registers the kernel as the PyTorch operator `name` ("namespace::op",
        through torch.library.custom_op) and returns it; torch.ops.namespace.op
        is the same operator.  Asking again for the same kernel returns it.

        It takes the operands and the epilogue's inputs as tensors, its params
        (and a conv's padding, stride, dilation) as keyword-only numbers, and
        returns its outputs, allocated anew, as a tensor or a tuple, e.g.
        ``mlp_up(Tensor a, Tensor b_operand, Tensor b) -> Tensor``.  It
        mutates nothing, has a fake (meta) implementation (the call's own
        checks and output shapes), so that torch.compile(fullgraph=True)
        traces through it, and no autograd (docs/python.md)."""
        from ._torch import torch_op
        return torch_op(self, name)

    # -- launching
    def _split(self, operands, kw, options):
        """(operands, epilogue arguments, options) from a call's arguments.

        Operands come positionally or by name; a keyword names an epilogue
        argument first, then an operand, then an option, so an epilogue input
        called `b` (as in examples.evt) leaves the GEMM operand b positional."""
        if len(operands) > 2:
            raise ArgumentTypeError(f"kernel '{self.name}' takes at most 2 positional arguments "
                                    f"(its operands {self.operands[0].name}, "
                                    f"{self.operands[1].name}), not {len(operands)}", None)
        epilogue = {a.name for a in self.inputs + self.outputs + self.params}
        for a in epilogue & set(options):
            raise UnsupportedError(f"kernel '{self.name}': epilogue '{self.epilogue}' has an "
                                   f"argument named '{a}', like the option; rename it to launch "
                                   f"the kernel from Python")
        ops = list(operands) + [None] * (2 - len(operands))
        args, opts = {}, {}
        for k, v in kw.items():
            if k in epilogue:
                args[k] = v
            elif k in (self.operands[0].name, self.operands[1].name):
                i = 0 if k == self.operands[0].name else 1
                if ops[i] is not None:
                    raise ArgumentTypeError(f"kernel '{self.name}': operand '{k}' given twice",
                                            k)
                ops[i] = v
            elif k in options:
                opts[k] = v
            else:
                raise ArgumentTypeError(f"kernel '{self.name}' has no argument '{k}'; it takes "
                                        f"{self.signature(options)}", k)
        for i, op in enumerate(self.operands):
            if ops[i] is None:
                shadow = (f" (the keyword {op.name}= names the epilogue's own '{op.name}': "
                          f"pass the operands positionally, kernel(a, b, ...))"
                          if op.name in epilogue else "")
                raise UnboundError(f"kernel '{self.name}': operand '{op.name}' is required"
                                   f"{shadow}")
        return ops, args, opts

    def _tensors(self, operands, kw):
        """A call's tensors in slot order (_Call): the operands, then the
        keyword tensors as given; and the slots of the two operands and of
        each epilogue tensor, by name."""
        tensors = list(operands)
        op_slots = list(range(len(operands))) + [None] * (2 - len(operands))
        slots = {}
        for name, v in kw.items():
            role = self._roles.get(name)
            if role == _TENSOR:
                slots[name] = len(tensors)
            elif role == _OPERAND_A or role == _OPERAND_B:
                op_slots[role] = len(tensors)
            else:
                continue
            tensors.append(v)
        return tensors, op_slots, slots

    def _signature(self, operands, kw):
        """(signature, tensors in slot order, stream) of a call whose
        arguments the signature cache can take (torch tensors and numbers);
        _Uncached otherwise, and for anything _split would refuse."""
        # One flat tuple (the fastest to build and compare): each keyword's
        # role says how many entries follow its name.  get_device() is the
        # CUDA index (-1 off CUDA, which no kept signature has).
        plain = _PLAIN_TENSORS
        key = (len(operands),)
        tensors = []
        for t in operands:
            if type(t) not in plain:
                raise _Uncached
            key += (t.shape, t.stride(), t.dtype, t.get_device())
            tensors.append(t)
        stream = None
        roles = self._roles
        for name, v in kw.items():
            role = roles.get(name)
            if role is None:
                raise _Uncached
            if role <= _TENSOR:
                if type(v) not in plain:
                    raise _Uncached
                key += (name, v.shape, v.stride(), v.dtype, v.get_device())
                tensors.append(v)
            elif role == _PARAM:
                if type(v) is not float and type(v) is not int:
                    raise _Uncached
                key += (name,)
            elif role == _OPTION:
                key += (name, v)
            else:
                stream = v
        return key, tensors, stream

    def _native(self, s):
        """The library launch calls run on CUstream `s`: one for every stream
        where PyTorch gives each run its workspace, else one per stream (a
        launch's own workspace must not be shared by two streams)."""
        slot = None if _HAS_WORKSPACE and _cuda_torch() is not None else s
        native = self._natives.get(slot)
        if native is None or native.closed:
            native = self._natives[slot] = _Handle(self, shared=True)
        return native

    def _launch(self, call, tensors, kw, stream):
        with _device_guard(call.device):
            s = _stream_handle(stream, call.device)
            native = self._native(s)
            call.bind(native, tensors, kw)
            native.run(s, call.device, call)

    def bind(self, *operands, **kw):
        """Checks the arguments and binds them to a new Launch (run it with
        .run(), time it with .benchmark()).  The two operands go positionally
        or by name, epilogue inputs, outputs and params by name, conv geometry
        as padding=, stride=, dilation=; outputs not given are allocated."""
        return Launch(self, operands, kw)

    def __call__(self, *operands, **kw):
        """Launches the kernel on PyTorch's current stream (or `stream=`), as
        bind() takes its arguments; returns the output, or an Outputs tuple
        when the kernel has several.

        Every call is checked once per signature: the checks read only each
        tensor's shape, strides, dtype and device, so a call of torch tensors
        whose signature passed before (the last _CALLS_KEPT kept) reads their
        data pointers and params, allocates its outputs and launches."""
        key = None
        if _CUDA_TORCH is not None:
            try:
                key, tensors, stream = self._signature(operands, kw)
            except _Uncached:
                key = None
        with self.module._lock:
            if key is not None:
                try:
                    call = self._calls.get(key)
                except TypeError:  # an option's value is not hashable
                    call = key = None
                if call is not None:
                    self._calls.move_to_end(key)
                    tensors += call.allocate(_CUDA_TORCH)
                    self._launch(call, tensors, kw, stream)
                    return call.result(tensors)
            ops, args, opts = self._split(operands, kw, self.options)
            stream = opts.pop("stream", None)
            plan = _Plan(self, ops, args, opts)
            tensors, op_slots, slots = self._tensors(operands, kw)
            call = _Call(self, plan, op_slots, slots, len(tensors))
            tensors += [t for _, t in plan.allocated]
            self._launch(call, tensors, kw, stream)
            if key is not None:
                self._calls[key] = call
                if len(self._calls) > _CALLS_KEPT:
                    self._calls.popitem(last=False)
            return call.result(tensors)


class Outputs(tuple):
    """Several outputs, in declaration order: unpack it, index it, or read
    one by name (``outs.amax`` or ``outs['amax']``)."""

    def __new__(cls, names, values):
        self = super().__new__(cls, values)
        self._names = tuple(names)
        return self

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return tuple.__getitem__(self, self._names.index(key))
            except ValueError:
                raise KeyError(key) from None
        return tuple.__getitem__(self, key)

    def __getattr__(self, name):
        names = self.__dict__.get("_names", ())
        if name in names:
            return tuple.__getitem__(self, names.index(name))
        raise AttributeError(name)

    def keys(self):
        return self._names

    def asdict(self):
        return dict(zip(self._names, self))

    def __repr__(self):
        return "Outputs(" + ", ".join(f"{n}=<{_short(v)}>" for n, v in zip(self._names, self)) + ")"


def _short(t):
    shape = tuple(getattr(t, "shape", ()))
    return f"{getattr(t, 'dtype', '?')} {list(shape)}"


def _pair(opt, value, minimum):
    """(h, w) from an int or a pair of ints, each from minimum to a C int's
    largest (a larger one, which ctypes would wrap, is refused)."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        pair = value
    elif isinstance(value, int) and not isinstance(value, bool):
        pair = (value, value)
    else:
        raise ArgumentTypeError(f"{opt} must be an int or a pair (h, w) of ints, not {value!r}",
                                opt)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in pair):
        raise ArgumentError(f"{opt} must be integers >= {minimum}, not {value!r}", opt)
    if not all(v <= _C_INT_MAX for v in pair):
        raise ArgumentError(f"{opt} must be integers from {minimum} to 2**31 - 1, not {value!r}", opt)
    return int(pair[0]), int(pair[1])


def _conv_output_size(prob):
    """(p, q) of conv problem `prob` (evt_conv_problem's fields in order), by
    the library's evt_conv_output_size; by F.conv2d's formula, the helper's
    own, where the library lacks it or a size is symbolic (a SymInt, while
    torch.compile traces dynamic shapes: p and q stay expressions of it)."""
    n, h, w, c, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w = prob
    if _lib.has("evt_conv_output_size") and all(type(v) is int for v in prob):
        p, q = ctypes.c_longlong(), ctypes.c_longlong()
        if lib.evt_conv_output_size(ctypes.byref(_lib.ConvProblem(*prob)), ctypes.byref(p),
                                    ctypes.byref(q)) == _lib.OK:
            return p.value, q.value
    else:
        p = (h + 2 * pad_h - dil_h * (r - 1) - 1) // stride_h + 1
        q = (w + 2 * pad_w - dil_w * (s - 1) - 1) // stride_w + 1
        if p > 0 and q > 0:
            return p, q
    raise ArgumentError(
        f"the convolution has an empty output: input {h}x{w}, filter {r}x{s}, padding "
        f"({pad_h}, {pad_w}), stride ({stride_h}, {stride_w}), dilation ({dil_h}, {dil_w})",
        "padding")


def _matrix_ld(v, rows, cols, row_stride, col_stride, contiguity):
    """ld of a matrix stored as `rows` rows of `cols` elements each 1 apart;
    `contiguity` says which dimension must have stride 1, for the message."""
    if cols > 1 and col_stride != 1:
        v.fail(contiguity)
    ld = rows_ld((rows,), (row_stride,), cols)
    if ld < cols:
        v.fail(f"has {v.describe()}: its rows overlap (leading dimension {ld} < {cols}; an "
               f"expanded or broadcast tensor?); call .contiguous()")
    return ld


def _gemm_operand(v, name, dtype, layout):
    """ld of 2-D GEMM operand `v`, stored as `layout` ('row' or 'col') says."""
    if len(v.shape) != 2:
        v.fail(f"must be a 2-D matrix, not {v.describe()}")
    r, c = v.shape
    if layout == "row":
        return _matrix_ld(v, r, c, v.strides[0], v.strides[1],
                          f"is declared row-major ({name}: {dtype} row), so its last dimension "
                          f"must have stride 1; got {v.describe()}: call .contiguous()")
    hint = ("for an nn.Linear weight W of shape [N, K] pass W.t()" if name == "b"
            else "for a contiguous [K, M] tensor T pass T.t()")
    return _matrix_ld(v, c, r, v.strides[1], v.strides[0],
                      f"is declared column-major ({name}: {dtype} col), so its first dimension "
                      f"must have stride 1; got {v.describe()}: {hint}")


# How a conv operand was read, for messages: _CONV_FORMS[operand][format].
_CONV_FORMS = {
    "x": {"nchw": "a channels-last [N, C, H, W] tensor", "nhwc": "a contiguous [N, H, W, C] one"},
    "w": {"nchw": "a channels-last [K, C, R, S] tensor", "nhwc": "a contiguous [K, R, S, C] one"},
}


def _conv4(v, letters, prefer="nchw"):
    """NHWC-order sizes of a conv operand given as a channels-last NCHW-shaped
    tensor ("nchw") or a contiguous NHWC-shaped one ("nhwc"), and which; when
    both read right (sizes of 1), the `prefer`red one."""
    if len(v.shape) != 4:
        v.fail(f"must be a 4-D tensor [{letters}], not {v.describe()}")
    (d0, d1, d2, d3), (s0, s1, s2, s3) = v.shape, v.strides
    fits = {"nchw": dense((d0, d2, d3, d1), (s0, s2, s3, s1)), "nhwc": dense(v.shape, v.strides)}
    for fmt in (prefer, "nhwc" if prefer == "nchw" else "nchw"):
        if fits[fmt]:
            return ((d0, d2, d3, d1) if fmt == "nchw" else v.shape), fmt
    n, c, h, w = letters.split(", ")
    v.fail(f"must be channels-last: an [{letters}] tensor in torch.channels_last memory "
           f"format (t.to(memory_format=torch.channels_last)) or a contiguous "
           f"[{n}, {h}, {w}, {c}] one; got {v.describe()}")


# The least magnitude f32 rounds to infinity (FLT_MAX and half its ulp), and
# the greatest nonzero one it rounds to 0 (half the least subnormal, a tie to 0)
_F32_INF_FROM = 2.0 ** 128 - 2.0 ** 103
_F32_ZERO_TO = 2.0 ** -150


def _param_f32(name, value):
    """value as the f32 param `name` takes it, as the language takes a
    number (language.md): too large for f32 is an error, a nonzero one too
    small a warning that it becomes 0.  Comparisons only: every call of a
    kernel passes its params through here (_Call.bind), bound or cached."""
    x = float(value)
    if _F32_INF_FROM <= abs(x) < float("inf"):
        raise ArgumentError(f"param '{name}' = {value!r} is too large for f32", name)
    if 0 < abs(x) <= _F32_ZERO_TO:
        warnings.warn(EvtWarning(f"param '{name}' = {value!r} is too small for f32 and becomes 0"),
                      stacklevel=_outside_stacklevel())
    return x


def _outside_stacklevel():
    """warnings.warn's stacklevel, for its caller, of the first frame
    outside this package: the user's call, whichever entry point it took."""
    here, level = os.path.dirname(os.path.abspath(__file__)), 2  # 2: the warner's caller
    f = sys._getframe(2)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == here:
        f, level = f.f_back, level + 1
    return level


class _Plan:
    """The checked arguments of one launch: sizes, buffers (bytes, ld),
    outputs (allocated where not given), the device; params are checked to
    be numbers (and to fit f32 in _Call.bind, which every call runs before
    any setter).  Every other check runs here, before the library sees anything.

    With `meta` (a custom op's fake implementation, torch.compile tracing)
    the tensors only describe tensors: the same checks run and the outputs
    are allocated, which under a FakeTensorMode makes them fake, and no
    buffer is read."""

    def __init__(self, kernel, operands, args, opts, meta=False):
        self.kernel = kernel
        self.meta = meta
        self.views = []      # every tensor, for the device check
        self.buffers = {}    # name -> (bytes, ld)
        self.outputs = []    # (name, tensor), declaration order
        self.allocated = []  # the outputs allocated here, likewise
        self.batch = None    # a batched GEMM's problem count (_gemm), None for a plain launch
        if kernel.mainloop == "gemm":
            m, n = self._gemm(kernel, operands)
        else:
            m, n = self._conv(kernel, operands, opts)

        for a in kernel.inputs:
            if a.name not in args:
                raise UnboundError(f"kernel '{kernel.name}': input '{a.name}' "
                                   f"({a.dtype}{_shape_text(a.shape)}) is required")
            self._epilogue_tensor(f"input '{a.name}'", a, args[a.name], m, n)
        # Outputs are allocated on the operands' device, checked first.
        for a in kernel.outputs:
            t = args.get(a.name)
            if t is None:
                t = self._allocate(a, m, n)
                self.allocated.append((a.name, t))
            self._epilogue_tensor(f"output '{a.name}'", a, t, m, n)
            self.outputs.append((a.name, t))
        for a in kernel.params:
            value = args.get(a.name)
            if value is None:
                if a.default is None:
                    raise UnboundError(f"kernel '{kernel.name}': param '{a.name}' has no "
                                       f"default and was not given")
                value = a.default
            elif hasattr(value, "data_ptr"):
                raise ArgumentTypeError(f"param '{a.name}' is passed by value: give a Python "
                                        f"number, not a tensor (declare it `in {a.name} : "
                                        f"{a.dtype}` to read it from device memory)", a.name)
            try:
                float(value)
            except (TypeError, ValueError):
                raise ArgumentTypeError(f"param '{a.name}' must be a number, not "
                                        f"{value!r}", a.name) from None

        first = self.views[0]
        index = self._resolve(first.device)
        for v in self.views[1:]:
            if self._resolve(v.device) != index:
                raise ArgumentError(f"{v.label} is on {device_str(v.device)} but "
                                    f"{first.label} is on {device_str(first.device)}", v.label)
        self.device = index

    def _resolve(self, dev):
        """The CUDA device index of `dev`; with `meta`, `dev` itself (only
        compared: nothing is launched)."""
        if self.meta:
            return dev
        if dev[1] is not None:
            return dev[1]
        torch = _cuda_torch()
        return torch.cuda.current_device() if torch is not None else 0

    def _view(self, label, obj, dtype):
        v = View(label, obj, dtype, self.meta)
        self.views.append(v)
        return v

    def _gemm(self, kernel, operands):
        oa, ob = kernel.operands
        a = self._view("operand 'a'", operands[0], oa.dtype)
        b = self._view("operand 'b'", operands[1], ob.dtype)
        # A batched GEMM: a 3-D operand's leading dimension is the batch, its
        # stride the batch stride; a 2-D operand (or a leading dimension of 1,
        # or of stride 0: an expanded tensor) is one matrix the batch shares.
        batched = [v for v in (a, b) if len(v.shape) == 3]
        if batched:
            self.batch = max(v.shape[0] for v in batched)
            for v in batched:
                if v.shape[0] not in (1, self.batch):
                    v.fail(f"has a batch of {v.shape[0]}, the other operand {self.batch}: "
                           f"[L, ...] operands must agree (or be 2-D, shared by the batch)")
        whole_a, whole_b = a, b  # the byte sizes are the whole batch's
        sa, a = _batch_of(a, self.batch, 2)
        sb, b = _batch_of(b, self.batch, 2)
        if len(a.shape) != 2:
            a.fail(f"must be a 2-D [M, K] matrix or a 3-D [L, M, K] batch, not {a.describe()}")
        m, k = a.shape
        if len(b.shape) != 2 or b.shape[0] != k:
            hint = ""
            if ob.layout == "col" and len(b.shape) == 2 and b.shape[1] == k:
                hint = " (an nn.Linear weight W of shape [N, K] is passed as W.t())"
            b.fail(f"must be a [K, N] = [{k}, N] matrix (or an [L, K, N] batch) to multiply "
                   f"operand 'a' [{m}, {k}]{hint}; got {b.describe()}")
        n = b.shape[1]
        lda = _gemm_operand(a, "a", oa.dtype, oa.layout)
        ldb = _gemm_operand(b, "b", ob.dtype, ob.layout)
        if not self.meta:
            self.gemm = (m, n, k, lda, whole_a.nbytes(), ldb, whole_b.nbytes())
            self.batch_strides = (sa, sb)
        self.sizes = {"M": m, "N": n, "K": k}
        if self.batch is not None:
            self.sizes["L"] = self.batch
        self.conv_nchw = False
        return m, n

    def _conv(self, kernel, operands, opts):
        ox, ow = kernel.operands
        x = self._view("operand 'x'", operands[0], ox.dtype)
        w = self._view("operand 'w'", operands[1], ow.dtype)
        (n, h, wd, c), fmt = _conv4(x, "N, C, H, W")
        (k, r, s, c2), wfmt = _conv4(w, "K, C, R, S", fmt)
        if wfmt != fmt:
            # Both in one convention; the usual slip is a plain (contiguous) NCHW x.
            bad = x if fmt == "nhwc" else w
            raise ArgumentError(
                f"operand 'x' reads as {_CONV_FORMS['x'][fmt]} but operand 'w' as "
                f"{_CONV_FORMS['w'][wfmt]}: give both as channels-last NCHW/KCRS-shaped "
                f"tensors (t.to(memory_format=torch.channels_last)) or both as contiguous "
                f"NHWC/KRSC-shaped ones (x: {x.describe()}; w: {w.describe()})", bad.label)
        if c2 != c:
            hint = (" (contiguous NCHW tensors read as NHWC: convert x and w with "
                    ".to(memory_format=torch.channels_last))" if fmt == "nhwc" else "")
            w.fail(f"has {c2} input channels but operand 'x' has {c} (x: {x.describe()}; "
                   f"w: {w.describe()}){hint}")
        pad = _pair("padding", opts.get("padding", 0), 0)
        stride = _pair("stride", opts.get("stride", 1), 1)
        dil = _pair("dilation", opts.get("dilation", 1), 1)
        prob = (n, h, wd, c, k, r, s, pad[0], pad[1], stride[0], stride[1], dil[0], dil[1])
        p, q = _conv_output_size(prob)
        if not self.meta:
            self.conv = (prob, x.nbytes(), w.nbytes())
        self.conv_nchw = fmt == "nchw"
        self.conv_npq = (n, p, q)
        self.sizes = {"n": n, "h": h, "w": wd, "c": c, "k": k, "r": r, "s": s, "p": p, "q": q,
                      "M": n * p * q, "N": k}
        return n * p * q, k

    def _allocate(self, a, m, n):
        torch = _torch(f"allocating output '{a.name}' (it was not given)")
        dtype = getattr(torch, TORCH_DTYPE_NAMES[a.dtype])
        device = self.views[0].obj.device
        if a.shape == ("M", "N") and self.kernel.mainloop == "conv2d_fprop":
            nb, p, q = self.conv_npq
            if self.conv_nchw:
                return torch.empty((nb, n, p, q), dtype=dtype, device=device,
                                   memory_format=torch.channels_last)
            return torch.empty((nb, p, q, n), dtype=dtype, device=device)
        size = {("M", "N"): (m, n), ("M",): (m,), ("N",): (n,), (): ()}[a.shape]
        if self.batch is not None:  # one result per problem: a leading L
            size = (self.batch,) + size
        return torch.empty(size, dtype=dtype, device=device)

    def _epilogue_tensor(self, label, a, obj, m, n):
        v = self._view(label, obj, a.dtype)
        ld = 0
        # In a batch, a leading L dimension: each problem's own part, its
        # stride the batch stride; an input without it (or with a leading 1,
        # or stride 0) is shared by the batch; an output needs its own part.
        stride, whole = 0, v
        if self.batch is not None:
            if label.startswith("output") and len(v.shape) != len(a.shape) + 1:
                v.fail(f"is an output of a batch of {self.batch}: it needs a leading batch "
                       f"dimension, [{', '.join(('L',) + a.shape)}] = "
                       f"{[self.batch] + [{'M': m, 'N': n}[d] for d in a.shape]}; got "
                       f"{v.describe()}")
            stride, v = _batch_of(v, self.batch, len(a.shape))
            if label.startswith("output") and stride == 0 and self.batch > 1:
                v.fail(f"has batch stride 0: the {self.batch} problems' results would land on "
                       f"one another; got {whole.describe()}")
        if a.shape == ("M", "N"):
            ld = self._mn_ld(v, m, n)
        elif a.shape == ():
            if v.numel != 1:
                v.fail(f"is a scalar: it must hold one element, not {v.describe()}")
        else:
            want = m if a.shape == ("M",) else n
            dim = a.shape[0]
            if len(v.shape) != 1 or v.shape[0] != want:
                v.fail(f"must be a 1-D [{dim}] = [{want}] vector, not {v.describe()}")
            if want > 1 and v.strides[0] != 1:
                v.fail(f"must be contiguous (stride 1), not {v.describe()}")
        if not self.meta:
            self.buffers[a.name] = (whole.nbytes(), ld, stride)

    def _mn_ld(self, v, m, n):
        if len(v.shape) == 2:
            if v.shape != (m, n):
                v.fail(f"must be an [M, N] = [{m}, {n}] matrix, not {v.describe()}")
            return _matrix_ld(v, m, n, v.strides[0], v.strides[1],
                              f"is an [M, N] matrix, row-major: its last dimension must have "
                              f"stride 1; got {v.describe()}")
        if self.kernel.mainloop == "conv2d_fprop" and len(v.shape) == 4:
            nb, p, q = self.conv_npq
            sz, st = v.shape, v.strides
            candidates = []
            if sz == (nb, n, p, q):  # NCHW-shaped, channels-last
                candidates.append(((st[0], st[2], st[3]), st[1]))
            if sz == (nb, p, q, n):  # NHWC-shaped
                candidates.insert(len(candidates) if self.conv_nchw else 0,
                                  ((st[0], st[1], st[2]), st[3]))
            for rows, col in candidates:
                ld = rows_ld((nb, p, q), rows, n)
                if (n <= 1 or col == 1) and ld is not None and ld >= n:
                    return ld
            if candidates:
                v.fail(f"must be channels-last (each pixel's {n} channels contiguous, pixels "
                       f"evenly apart): t.to(memory_format=torch.channels_last); got "
                       f"{v.describe()}")
            v.fail(f"must be an NPQK tensor: [N, K, P, Q] = [{nb}, {n}, {p}, {q}] channels-last "
                   f"or [N, P, Q, K] = [{nb}, {p}, {q}, {n}], or an [M, N] = [{m}, {n}] matrix; "
                   f"got {v.describe()}")
        if self.kernel.mainloop == "conv2d_fprop":
            nb, p, q = self.conv_npq
            v.fail(f"must be an NPQK tensor ([N, K, P, Q] = [{nb}, {n}, {p}, {q}] channels-last "
                   f"or [N, P, Q, K]) or an [M, N] = [{m}, {n}] matrix; got {v.describe()}")
        v.fail(f"must be an [M, N] = [{m}, {n}] matrix, not {v.describe()}")


def _batch_of(v, batch, dims):
    """(batch stride, the view of one problem) of tensor view `v` whose
    problem has `dims` dimensions: with one more, the leading one is the
    batch (of `batch` problems, or 1: shared), else v is shared (stride 0).
    For a plain launch (batch None) v as it is."""
    if batch is None or len(v.shape) != dims + 1:
        return 0, v
    if v.shape[0] not in (1, batch):
        v.fail(f"has a leading dimension of {v.shape[0]}, not the batch's {batch} (or 1: "
               f"shared by the batch); got {v.describe()}")
    stride = v.strides[0] if v.shape[0] > 1 else 0
    one = View.__new__(View)
    one.__dict__.update(v.__dict__)
    one.shape, one.strides = v.shape[1:], v.strides[1:]
    return stride, one


def _result(outputs):
    """One output's tensor, or an Outputs tuple of several."""
    if len(outputs) == 1:
        return next(iter(outputs.values()))
    return Outputs(outputs.keys(), outputs.values())


def _set_conv(h, prob, x, x_bytes, w, w_bytes):
    return lib.evt_launch_set_conv(h, ctypes.byref(_lib.ConvProblem(*prob)), x, x_bytes, w,
                                   w_bytes)


class _Call:
    """What the library is given for one checked call, ready to be given
    again: sizes, leading dimensions and byte counts, where each data pointer
    comes from, the outputs to allocate.  Kernel.__call__ keeps one per call
    signature (each tensor's shape, strides, dtype and device: all that its
    checks read), so a repeated call reads only data pointers and params;
    a Launch binds one once.

    A call's tensors are its operands, its keyword tensors in the order
    given, then the outputs allocated for it (Kernel._tensors): slots are
    indices into that list.  Byte counts stay right for other tensors of
    the same signature: a torch tensor's storage covers its view."""

    def __init__(self, kernel, plan, op_slots, slots, ntensors):
        self.allocs = []  # (size, stride, dtype, device) of each output allocated
        slots = dict(slots)
        for name, t in plan.allocated:
            slots[name] = ntensors + len(self.allocs)
            self.allocs.append((tuple(t.shape), t.stride(), t.dtype, t.device))
        self.a, self.b = op_slots
        self.conv = kernel.mainloop == "conv2d_fprop"
        if self.conv and not _lib.has("evt_launch_set_conv"):
            raise UnsupportedError(f"kernel '{kernel.name}': the libevt loaded "
                                   f"({_lib.path}) cannot launch conv2d_fprop kernels")
        self.problem = plan.conv if self.conv else plan.gemm
        self.batch = plan.batch
        if self.batch is not None:
            if not _lib.has("evt_launch_set_batch"):
                raise UnsupportedError(f"kernel '{kernel.name}': the libevt loaded ({_lib.path}) "
                                       f"cannot launch batched GEMMs (3-D operands)")
            self.batch_strides = plan.batch_strides
        self.binds = [(name.encode(), slots[name], nbytes, ld, stride)
                      for name, (nbytes, ld, stride) in plan.buffers.items()]
        self.params = [(a.name.encode(), a.name, a.default) for a in kernel.params]
        self.results = [slots[name] for name, _ in plan.outputs]
        self.names = tuple(name for name, _ in plan.outputs)
        self.device = plan.device
        self.ws_bytes = 0  # the workspace its last run took (_Handle.run)

    def allocate(self, torch):
        return [torch.empty_strided(size, stride, dtype=dtype, device=device)
                for size, stride, dtype, device in self.allocs]

    def bind(self, native, tensors, kw):
        """Gives launch `native` the call's arguments: `tensors` in slot
        order, params by name from `kw` (the declared default if absent)."""
        ptrs = [t.data_ptr() for t in tensors]
        params = [kw.get(key) for _, key, _ in self.params]
        if native.last is self and native.last_ptrs == ptrs and native.last_params == params:
            return  # the launch holds exactly these (a repeated call with the same tensors)
        # each param as f32 takes it, refused before the library sees any of the call
        values = [default if v is None else _param_f32(key, v) for (_, key, default), v in zip(self.params, params)]
        native.last = None  # until every setter below has succeeded
        if self.conv:
            prob, x_bytes, w_bytes = self.problem
            native.set(None, _set_conv, prob, ptrs[self.a], x_bytes, ptrs[self.b], w_bytes)
        else:
            m, n, k, lda, a_bytes, ldb, b_bytes = self.problem
            native.set(None, lib.evt_launch_set_gemm, m, n, k, ptrs[self.a], lda, a_bytes,
                       ptrs[self.b], ldb, b_bytes)
            # evt_launch_set_gemm resets the batch: set it whenever it may
            # have run, and back to one problem after a batched call
            if self.batch is not None or native.batched:
                sa, sb = self.batch_strides if self.batch is not None else (0, 0)
                native.module._check(lib.evt_launch_set_batch(
                    native.h, self.batch if self.batch is not None else 1, sa, sb))
                native.batched = self.batch is not None
        for name, slot, nbytes, ld, stride in self.binds:
            if stride:
                native.set(name, lib.evt_launch_bind_batched, name, ptrs[slot], nbytes, ld, stride)
            else:
                native.set(name, lib.evt_launch_bind, name, ptrs[slot], nbytes, ld)
        for (name, _, _), value in zip(self.params, values):
            native.set(name, lib.evt_launch_set_param, name, value)
        native.last, native.last_ptrs, native.last_params = self, ptrs, params

    def result(self, tensors):
        """The output tensor, or an Outputs tuple of several."""
        if len(self.results) == 1:
            return tensors[self.results[0]]
        return Outputs(self.names, [tensors[i] for i in self.results])


class _Handle:
    """One evt_launch of a kernel, destroyed by close(), when collected, or
    (first) when its module is closed.  `bound` mirrors what the library
    launch holds, by setter: a value it already has is not set again."""

    def __init__(self, kernel, shared=False):
        module = kernel.module
        self.module = module
        self.shared = shared  # a Kernel's launch for calls, not a Launch's
        self.bound = {}       # None (the problem) or an argument's name -> setter's arguments
        self.batched = False  # the library launch was last set to a batch (_Call.bind)
        # the _Call that bound everything last, with its data pointers and params (_Call.bind)
        self.last, self.last_ptrs, self.last_params = None, None, None
        self.ws_bytes = 0     # the workspace its last run took (run)
        h = ctypes.c_void_p()
        module._check(lib.evt_launch_create(module._handle(), kernel._k, ctypes.byref(h)))
        self.h = h.value
        module._live.add(self.h)
        self._finalizer = weakref.finalize(self, _destroy_launch, self.h, module._live)
        module._launches.add(self)

    @property
    def closed(self):
        return not self._finalizer.alive

    def close(self):
        self._finalizer()

    def set(self, key, setter, *args):
        """setter(launch, *args), unless the launch holds these already."""
        if self.bound.get(key) != args:
            self.bound.pop(key, None)
            self.module._check(setter(self.h, *args))
            self.bound[key] = args

    def run(self, s, index, hint):
        """Launches on CUstream `s`, the module's lock held and device `index`
        current.  With PyTorch driving the GPU, the run's workspace comes from
        its caching allocator: stream-ordered, so safe on any stream and
        under CUDA graph capture, where the library may not allocate its own.
        `hint.ws_bytes` is the size tried first (its last run's), and is left
        holding what this run took."""
        torch = _cuda_torch()
        if torch is None or not _HAS_WORKSPACE:
            self.module._check(lib.evt_launch_run(self.h, s))
            return
        st = self._run_in(torch, s, index, hint.ws_bytes)
        if st == _lib.ERR_BAD_BUFFER:
            # A first run, or one planned differently, may need more: ask, and run again.
            error = self.module._error(st)
            need = ctypes.c_size_t()
            if (lib.evt_launch_workspace_size(self.h, ctypes.byref(need)) != _lib.OK
                    or need.value <= hint.ws_bytes):
                raise error
            hint.ws_bytes = need.value
            st = self._run_in(torch, s, index, need.value)
        self.module._check(st)

    def _run_in(self, torch, s, index, nbytes):
        ws = None
        if nbytes:
            ws = torch.empty(nbytes, dtype=torch.uint8, device=index)
            if s != _current_stream(index):
                # freed on return: not to be handed out again before s is done with it
                ws.record_stream(torch.cuda.ExternalStream(s, device=index))
        return lib.evt_launch_run_with_workspace(self.h, s, ws.data_ptr() if nbytes else None,
                                                 nbytes)


class Launch:
    """A kernel with every argument checked and bound: run() launches it,
    benchmark() times it.  Holds its tensors until closed.  `outputs` maps
    each output's name to its tensor; `sizes` gives M, N, K (GEMM) or the
    conv problem's n, h, w, c, k, r, s, p, q, M, N."""

    def __init__(self, kernel, operands, kw):
        self.kernel = kernel
        self._native = None
        ops, args, opts = kernel._split(operands, kw, tuple(o for o in kernel.options
                                                            if o != "stream"))
        plan = _Plan(kernel, ops, args, opts)
        tensors, op_slots, slots = kernel._tensors(operands, kw)
        call = _Call(kernel, plan, op_slots, slots, len(tensors))
        self._device = plan.device
        self._keep = tensors + [t for _, t in plan.allocated]
        self.outputs = dict(plan.outputs)
        self.sizes = plan.sizes
        with kernel.module._lock:
            self.tuning = kernel.module.tuning
            self._native = _Handle(kernel)
            try:
                call.bind(self._native, self._keep, kw)
            except BaseException:
                self.close()
                raise

    def _live(self):
        if self._native is None or self._native.closed:
            raise EvtError(f"launch of kernel '{self.kernel.name}' is closed")
        return self._native

    def result(self):
        """The output tensor, or an Outputs tuple when the kernel has several."""
        return _result(self.outputs)

    def run(self, stream=None):
        """Launches on `stream` (PyTorch's current stream on the tensors' device
        by default; a torch.cuda.Stream or a CUstream handle otherwise).
        Asynchronous like any CUDA launch; returns result()."""
        module = self.kernel.module
        with module._lock, _device_guard(self._device):
            s = _stream_handle(stream, self._device)
            native = self._live()
            native.run(s, self._device, native)
        return self.result()

    def benchmark(self, warmup=5, reps=50, stream=None):
        """Median milliseconds of `reps` runs, each between CUDA events, after
        `warmup` untimed runs (evt_launch_benchmark); blocks."""
        module = self.kernel.module
        warmup, reps = _c_int("warmup", warmup, int), _c_int("reps", reps, int)
        ms = ctypes.c_double()
        with module._lock, _device_guard(self._device):
            s = _stream_handle(stream, self._device)
            module._check(lib.evt_launch_benchmark(self._live().h, s, warmup, reps, ctypes.byref(ms)))
        return ms.value

    def tune(self, max_seconds=10.0, threads=0, reps=0, dry_run=False, stream=None):
        """Times every plan the planner admits for this launch's problem on
        this GPU (evt_launch_tune: each tile configuration, split-K factors
        where the problem has few tiles; compiled on `threads` threads, 0 for
        every CPU), on its bound tensors, which it overwrites; records the
        fastest in the tuning database beside the kernel cache (not with
        dry_run), which every later launch of this kernel and problem on
        this GPU model then runs ("tuned" ends `plan`).  Bounded by
        max_seconds, compiles included.  Blocks; returns a TuneResult."""
        _lib.need("evt_launch_tune", "Launch.tune")
        module = self.kernel.module
        opts = _lib.TuneOptions(float(max_seconds), _c_int("threads", threads), 0,
                                _c_int("reps", reps), int(bool(dry_run)))
        res = _lib.TuneResult()
        with module._lock, _device_guard(self._device):
            s = _stream_handle(stream, self._device)
            module._check(lib.evt_launch_tune(self._live().h, s, ctypes.byref(opts),
                                              ctypes.byref(res)))
        if res.recorded == 2:
            path = ctypes.create_string_buffer(4096)
            lib.evt_tuning_db_path(path, len(path))
            warnings.warn(EvtWarning(f"the tuning database {_lib.text(path.value)} could not be written: "
                                     "the record lives in this process only"),
                          stacklevel=_outside_stacklevel())
        return TuneResult(_tune_plan(res.best), _tune_plan(res.heuristic),
                          tuple(_tune_plan(res.entries[i]) for i in range(res.nentries)),
                          res.candidates, res.timed, res.compiled, res.seconds,
                          res.compile_seconds, bool(res.recorded))

    def set_tuning(self, config=None, split_k=0, row_group=0, ignore_records=False, stream_k=0,
                   shared_epilogue=False):
        """Forces this launch's tile configuration, split-K and row group, as
        Module.set_tuning does the module's (a launch starts from its module's
        when bound); set_tuning() returns to the planner's choices (and to
        the tuning database's records unless ignore_records).  Returns the
        launch.  A configuration that cannot run the kernel on the GPU makes
        run() raise UnsupportedError."""
        t, native = _tuning(config, split_k, row_group, ignore_records, stream_k, shared_epilogue)
        module = self.kernel.module
        with module._lock:
            module._check(lib.evt_launch_set_tuning(self._live().h, ctypes.byref(native)))
            self.tuning = t
        return self

    @property
    def plan(self):
        """What the last run() enqueued, one line (evt_launch_plan): target,
        tile configuration, fast or guarded path, TMA, grid, split-K; None
        before the first run."""
        if not _lib.has("evt_launch_plan"):
            raise UnsupportedError(f"the libevt loaded ({_lib.path}) has no evt_launch_plan")
        with self.kernel.module._lock:
            return _lib.text(lib.evt_launch_plan(self._live().h))

    def close(self):
        """Releases the launch and its tensors (the outputs stay valid)."""
        if self._native is not None:
            self._native.close()
            self._native = None
        self._keep = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _shape_text(shape):
    return f"[{', '.join(shape)}]" if shape else ""
