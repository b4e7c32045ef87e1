"""evt.check: libevt's verification policy (evt_check_values) from Python.

The one policy of `evtc run --check`, the tests and the benchmarks: values
stored in an output's element type against the float64 reference rounded to
that type, within the type's tolerance relative to max(|want|, RMS of the
reference), NaN and inf matched exactly (docs/runtime.md).
"""

import array
import ctypes

from . import _lib
from ._tensor import TORCH_DTYPE_NAMES, dtype_name, is_tensor
from .errors import UnsupportedError, error_for

_ELEM_OF_DTYPE = {v: k for k, v in TORCH_DTYPE_NAMES.items()}
_REDUCE = {None: 0, "none": 0, "sum": 1, "max": 2, "min": 3}


class Verdict:
    """The outcome of evt.check: true when every value passed.

    checked, bad (finite values off by more than tol), special_bad (NaN/inf
    mismatches), first_bad (flat index of the first value off, None if none)
    with first_got and first_want, max_err (largest relative error over the
    finite values), max_ulp, floor (the RMS the error is relative to at
    least) and tol, the tolerance applied; elem and reduce as judged."""

    __slots__ = ("elem", "reduce", "checked", "bad", "special_bad", "first_bad", "first_got",
                 "first_want", "max_err", "max_ulp", "floor", "tol", "passed")

    def __init__(self, elem, reduce, v):
        self.elem, self.reduce = elem, reduce
        for f in ("checked", "bad", "special_bad", "first_got", "first_want", "max_err",
                  "max_ulp", "floor", "tol"):
            setattr(self, f, getattr(v, f))
        self.first_bad = None if v.first_bad < 0 else v.first_bad
        self.passed = bool(v.passed)

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"<evt.Verdict {self}>"

    def __str__(self):
        what = f"{self.elem}" + (f" reduce_{self.reduce}" if self.reduce else "")
        s = (f"{what}: max rel err {self.max_err:.2e}, max {self.max_ulp} ulp (floor "
             f"{self.floor:.3g}, tol {self.tol:.2g}): {'PASS' if self.passed else 'FAIL'}")
        if not self.passed:
            s += (f"; {self.bad} of {self.checked} values off, {self.special_bad} NaN/inf "
                  f"mismatches; first at flat index {self.first_bad}: got "
                  f"{self.first_got:.9g}, want {self.first_want:.9g}")
        return s


def _need(name):
    if not _lib.has(name):
        raise UnsupportedError(f"the libevt loaded ({_lib.path}) has no {name}: rebuild it")
    return getattr(_lib.lib, name)


def _torch_host(t, dtype=None):
    """A contiguous CPU copy of tensor t (as dtype if given) in logical order."""
    t = t.detach()
    t = t.to("cpu", dtype) if dtype is not None else t.to("cpu")
    return t.contiguous()


def _doubles(x, keep):
    """x (a tensor, a sequence of numbers or one number) as float64s for C:
    (pointer, count)."""
    if isinstance(x, (int, float)):
        x = [x]
    if is_tensor(x):
        import torch
        host = _torch_host(x, torch.float64)
        keep.append(host)
        return ctypes.cast(ctypes.c_void_p(host.data_ptr()), ctypes.POINTER(ctypes.c_double)), host.numel()
    values = x if isinstance(x, array.array) and x.typecode == "d" else array.array("d", [float(v) for v in x])
    keep.append(values)
    return ((ctypes.c_double * max(len(values), 1)).from_buffer(values) if len(values) else None), len(values)


def check(got, want, elem=None, reduce=None, magnitude=None):
    """Judges `got` against the float64 reference `want` by libevt's policy.

    got: a tensor of an evt element type (torch.float16, ...; its dtype gives
    elem), or, with elem given, the stored bytes (bytes, bytearray,
    memoryview) or a sequence of numbers (rounded to elem, as a store would).
    want: the unrounded reference, a tensor (any float dtype; float64 for a
    fair judgement), a sequence of numbers or one number, with as many values as got, in
    the same logical order (tensors are compared element by element in
    their shape, whatever their strides).  reduce: None for an element-wise
    output, else "sum", "max" or "min" (a sum is allowed the error of
    another summation order).  magnitude (a sum's only): each result's sum
    of the absolute values of its terms, as many as want; a result is then
    also judged against 2^-12 of it (evt_check_sums), so that a sum whose
    terms cancel is allowed the rounding of its terms.  Returns a Verdict;
    raises ValueError when the sizes differ or the element type is
    unknown."""
    if reduce not in _REDUCE:
        raise ValueError(f"reduce must be None, 'sum', 'max' or 'min', not {reduce!r}")
    if magnitude is not None and reduce != "sum":
        raise ValueError(f"magnitude is a sum's: reduce is {reduce!r}, not 'sum'")
    keep = []  # host copies that must outlive the call
    if is_tensor(got):
        name = _ELEM_OF_DTYPE.get(dtype_name(got.dtype))
        if name is None:
            raise ValueError(f"got has dtype {got.dtype}, which is no evt element type")
        if elem is not None and elem != name:
            raise ValueError(f"got has dtype {got.dtype}, not elem {elem!r}")
        elem = name
        if is_tensor(want) and tuple(want.shape) != tuple(got.shape):
            raise ValueError(f"got has shape {tuple(got.shape)}, want {tuple(want.shape)}")
        host = _torch_host(got)
        keep.append(host)
        count = host.numel()
        got_ptr = ctypes.c_void_p(host.data_ptr())
    else:
        if elem not in _lib.ELEM_SIZES:
            raise ValueError(f"elem must name an evt element type ({', '.join(_lib.ELEM_NAMES)}) "
                             f"when got is not a tensor, not {elem!r}")
        size = _lib.ELEM_SIZES[elem]
        if isinstance(got, (bytes, bytearray, memoryview)):
            raw = bytes(got)
            if len(raw) % size:
                raise ValueError(f"got holds {len(raw)} bytes, not a whole number of {elem}")
            count = len(raw) // size
        else:
            values = array.array("d", [float(x) for x in got])
            count = len(values)
            raw = ctypes.create_string_buffer(count * size + 1)
            src = (ctypes.c_double * max(count, 1)).from_buffer(values) if count else None
            st = _need("evt_convert_from_f64")(_lib.ELEM_NAMES.index(elem), src, raw, count)
            if st != _lib.OK:
                raise error_for(st, "converting got to " + elem)
        buf = ctypes.create_string_buffer(bytes(raw), len(raw) + 1)
        keep.append(buf)
        got_ptr = ctypes.cast(buf, ctypes.c_void_p)

    want_ptr, nwant = _doubles(want, keep)
    if nwant != count:
        raise ValueError(f"got has {count} values, want {nwant}")

    v = _lib.CheckVerdict()
    if magnitude is not None:
        mag_ptr, nmag = _doubles(magnitude, keep)
        if nmag != count:
            raise ValueError(f"got has {count} values, magnitude {nmag}")
        st = _need("evt_check_sums")(_lib.ELEM_NAMES.index(elem), got_ptr, want_ptr, mag_ptr, count,
                                     ctypes.byref(v))
    else:
        st = _need("evt_check_values")(_lib.ELEM_NAMES.index(elem), _REDUCE[reduce], got_ptr,
                                       want_ptr, count, ctypes.byref(v))
    if st != _lib.OK:
        raise error_for(st, "checking the values failed")
    return Verdict(elem, None if reduce == "none" else reduce, v)


def tolerance(elem, reduce=None):
    """The largest relative error an output of `elem` passes with (0 for
    integers, which pass within 1 of the reference)."""
    if elem not in _lib.ELEM_SIZES or reduce not in _REDUCE:
        raise ValueError(f"unknown element type {elem!r} or reduction {reduce!r}")
    return _need("evt_check_tolerance")(_lib.ELEM_NAMES.index(elem), _REDUCE[reduce])

