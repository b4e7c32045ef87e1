"""Reading duck-typed tensors: device, element type, sizes, strides, extent.

A tensor here is anything with data_ptr(), shape, stride(), dtype and device,
as torch.Tensor has; nothing in this file imports torch.  Every check raises
ArgumentError (or ArgumentTypeError) naming the argument, before any launch.
"""

from .errors import ArgumentError, ArgumentTypeError
from . import _lib

# evt element type -> the torch dtype's name (str(torch.float16) == "torch.float16").
TORCH_DTYPE_NAMES = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "i8": "int8",
    "i32": "int32",
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
}


def is_tensor(obj):
    return all(hasattr(obj, a) for a in ("data_ptr", "shape", "stride", "dtype", "device"))


# Launches read the same few dtype and device objects over and over: their
# readings are cached by the (hashable) object itself.
_DTYPE_NAMES = {}
_DEVICES = {}


def dtype_name(dtype):
    """'float16' for torch.float16 or the string 'torch.float16'."""
    try:
        return _DTYPE_NAMES[dtype]
    except (KeyError, TypeError):
        pass
    s = str(dtype)
    name = s[len("torch."):] if s.startswith("torch.") else s
    try:
        _DTYPE_NAMES[dtype] = name
    except TypeError:  # unhashable
        pass
    return name


def device_of(obj):
    """(type, index) of obj.device: ("cuda", 0), ("cpu", None); index None if unspecified."""
    dev = obj.device
    try:
        return _DEVICES[dev]
    except (KeyError, TypeError):
        pass
    kind = getattr(dev, "type", None)
    if kind is not None:
        out = kind, getattr(dev, "index", None)
    else:
        kind, _, idx = str(dev).partition(":")
        out = kind, int(idx) if idx.isdigit() else None
    try:
        _DEVICES[dev] = out
    except TypeError:
        pass
    return out


def device_str(dev):
    return dev[0] if dev[1] is None else f"{dev[0]}:{dev[1]}"


class View:
    """One tensor argument as the checks see it.

    With `meta`, the tensor only describes one (a fake tensor while
    torch.compile traces, or a meta tensor): its sizes may be symbolic
    (SymInt), so they are kept as they are, and a meta device passes."""

    def __init__(self, label, obj, elem, meta=False):
        self.label = label  # "input 'bias'", "operand 'a'", ...
        self.obj = obj
        self.elem = elem
        if not is_tensor(obj):
            raise ArgumentTypeError(
                f"{label} must be a tensor (an object with data_ptr(), shape, stride(), dtype "
                f"and device, such as a torch.Tensor), not {type(obj).__name__}", label)
        if meta:
            self.shape = tuple(obj.shape)
            self.strides = tuple(obj.stride())
        else:
            self.shape = tuple(int(d) for d in obj.shape)
            self.strides = tuple(int(s) for s in obj.stride())
        if len(self.strides) != len(self.shape):
            raise ArgumentError(f"{label}: stride() has {len(self.strides)} entries for "
                                f"{len(self.shape)} dimensions", label)
        self.device = device_of(obj)
        if self.device[0] != "cuda" and not (meta and self.device[0] == "meta"):
            raise ArgumentError(f"{label} is on {device_str(self.device)}; evt kernels take "
                                f"CUDA tensors", label)
        want = TORCH_DTYPE_NAMES[elem]
        got = dtype_name(obj.dtype)
        if got != want:
            raise ArgumentTypeError(f"{label} must be torch.{want} (declared {elem}), "
                                    f"not {obj.dtype}", label)
        if any(s < 0 for s in self.strides):
            raise ArgumentError(f"{label} has a negative stride {self.strides}", label)

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def nbytes(self):
        """Bytes from data_ptr() to one past the last element the view covers,
        clipped to what is left of its storage where the tensor tells (torch
        does): the size the library checks its touched extent against."""
        esize = _lib.ELEM_SIZES[self.elem]
        if self.numel == 0:
            return 0
        extent = 1 + sum((d - 1) * s for d, s in zip(self.shape, self.strides))
        nbytes = extent * esize
        storage = getattr(self.obj, "untyped_storage", None)
        offset = getattr(self.obj, "storage_offset", None)
        if callable(storage) and callable(offset):
            try:
                left = storage().nbytes() - int(offset()) * esize
            except Exception:  # a tensor subclass without real storage
                left = None
            if left is not None and 0 <= left < nbytes:
                nbytes = left
        return nbytes

    def fail(self, what, cls=ArgumentError):
        raise cls(f"{self.label} {what}", self.label)

    def describe(self):
        return f"shape {self.shape}, stride {self.strides}"


def dense(sizes, strides):
    """Whether sizes/strides describe a dense row-major block (size-1 dims ignored)."""
    expect = 1
    for d, s in zip(reversed(sizes), reversed(strides)):
        if d != 1 and s != expect:
            return False
        expect *= d
    return True


def rows_ld(sizes, strides, cols):
    """The leading dimension of rows spread over dims `sizes` (outer to inner)
    with `strides`, each row `cols` long: the rows must be evenly `ld` apart,
    so each dim's stride is ld times the rows inside it.  None if they are not."""
    ld = None
    inner = 1  # rows inside the current dim; 1 until the first dim of size > 1
    for d, s in zip(reversed(sizes), reversed(strides)):
        if d != 1:
            if ld is None:
                ld = s
            if s != ld * inner:
                return None
        inner *= d
    return cols if ld is None else ld
