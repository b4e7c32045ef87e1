"""Finding libevt and declaring, through ctypes, every C function the binding calls.

The structs below mirror include/evt/evt.h field for field; the binding
refuses a library whose major version differs, since that is when they may
change.
"""

import ctypes
import ctypes.util
import os
from pathlib import Path

# The header version this binding was written against.
ABI_MAJOR = 0

# ---- evt.h enumerations ---------------------------------------------------

OK = 0
ERR_SOURCE = 1
ERR_INVALID_ARGUMENT = 2
ERR_NOT_FOUND = 3
ERR_IO = 4
ERR_NO_MEMORY = 5
ERR_LIMIT = 6
ERR_INTERNAL = 7
ERR_COMPILE = 8
ERR_UNSUPPORTED = 9
ERR_NO_GPU = 10
ERR_DRIVER = 11
ERR_UNBOUND = 12
ERR_BAD_BUFFER = 13

ELEM_NAMES = ("f32", "f16", "bf16", "i8", "i32", "e4m3", "e5m2")  # evt_elem order
ELEM_SIZES = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4, "e4m3": 1, "e5m2": 1}
SHAPES = {0: (), 1: ("M",), 2: ("N",), 3: ("M", "N")}  # evt_shape bit sets
ARG_INPUT, ARG_PARAM, ARG_OUTPUT = 0, 1, 2
REDUCE_NAMES = (None, "sum", "max", "min")
MAINLOOP_GEMM, MAINLOOP_CONV2D_FPROP = 0, 1
LAYOUT_NAMES = (None, "row", "col")
SEVERITY_NAMES = ("error", "warning", "note")
DIAG_TEXT, DIAG_JSON = 0, 1
BINARY_PTX, BINARY_CUBIN = 0, 1

# ---- evt.h structs --------------------------------------------------------


class Loc(ctypes.Structure):
    _fields_ = [("file", ctypes.c_char_p), ("line", ctypes.c_uint), ("column", ctypes.c_uint)]


class Diag(ctypes.Structure):
    _fields_ = [("severity", ctypes.c_int), ("loc", Loc), ("message", ctypes.c_char_p)]


class ArgInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int),
        ("elem", ctypes.c_int),
        ("shape", ctypes.c_int),
        ("reduce", ctypes.c_int),
        ("has_default", ctypes.c_int),
        ("default_value", ctypes.c_float),
        ("loc", Loc),
    ]


class OperandInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("elem", ctypes.c_int), ("layout", ctypes.c_int)]


class ConvProblem(ctypes.Structure):
    _fields_ = [(f, ctypes.c_longlong) for f in ("n", "h", "w", "c", "k", "r", "s")] + [
        (f, ctypes.c_int) for f in ("pad_h", "pad_w", "stride_h", "stride_w", "dil_h", "dil_w")
    ]


class CheckVerdict(ctypes.Structure):
    _fields_ = [
        ("checked", ctypes.c_longlong),
        ("bad", ctypes.c_longlong),
        ("special_bad", ctypes.c_longlong),
        ("first_bad", ctypes.c_longlong),
        ("first_got", ctypes.c_double),
        ("first_want", ctypes.c_double),
        ("max_err", ctypes.c_double),
        ("max_ulp", ctypes.c_longlong),
        ("floor", ctypes.c_double),
        ("tol", ctypes.c_double),
        ("passed", ctypes.c_int),
    ]


class Tuning(ctypes.Structure):
    _fields_ = [("config", ctypes.c_char_p), ("split_k", ctypes.c_int),
                ("row_group", ctypes.c_int)]


# ---- prototypes ------------------------------------------------------------

_p = ctypes.c_void_p
_s = ctypes.c_char_p
_z = ctypes.c_size_t
_i = ctypes.c_int
_ll = ctypes.c_longlong
_st = ctypes.c_int  # evt_status

# name: (restype, argtypes).  Handles are opaque c_void_p.
_PROTOTYPES = {
    "evt_version": (_s, []),
    "evt_version_number": (_i, []),
    "evt_status_string": (_s, [_st]),
    "evt_ctx_create": (_p, []),
    "evt_ctx_destroy": (None, [_p]),
    "evt_ctx_last_error": (_s, [_p]),
    "evt_module_parse_buffer": (_st, [_p, _s, _s, _z, ctypes.POINTER(_p)]),
    "evt_module_parse_file": (_st, [_p, _s, ctypes.POINTER(_p)]),
    "evt_module_destroy": (None, [_p]),
    "evt_module_diag_count": (_z, [_p]),
    "evt_module_diag": (ctypes.POINTER(Diag), [_p, _z]),
    "evt_module_error_count": (_z, [_p]),
    "evt_module_diag_text": (_s, [_p, _i]),
    "evt_module_epilogue_count": (_z, [_p]),
    "evt_module_epilogue": (_p, [_p, _z]),
    "evt_epilogue_name": (_s, [_p]),
    "evt_epilogue_arg_count": (_z, [_p, _i]),
    "evt_epilogue_arg": (ctypes.POINTER(ArgInfo), [_p, _i, _z]),
    "evt_module_kernel_count": (_z, [_p]),
    "evt_module_kernel": (_p, [_p, _z]),
    "evt_module_find_kernel": (_p, [_p, _s]),
    "evt_kernel_name": (_s, [_p]),
    "evt_kernel_loc": (Loc, [_p]),
    "evt_kernel_mainloop": (_i, [_p]),
    "evt_kernel_operand": (ctypes.POINTER(OperandInfo), [_p, _z]),
    "evt_kernel_epilogue": (_p, [_p]),
    "evt_module_ir_text": (_s, [_p]),
    "evt_module_dot_text": (_s, [_p]),
    "evt_module_optimize": (_st, [_p, _i]),
    "evt_target_name": (_s, [_i]),
    "evt_target_parse": (_st, [_s, ctypes.POINTER(_i)]),
    "evt_kernel_cuda": (_st, [_p, _p, _i, ctypes.POINTER(_s)]),
    "evt_kernel_compile": (
        _st,
        [_p, _p, _i, _i, ctypes.POINTER(_p), ctypes.POINTER(_z), ctypes.POINTER(ctypes.c_double)],
    ),
    "evt_free": (None, [_p]),
    "evt_launch_create": (_st, [_p, _p, ctypes.POINTER(_p)]),
    "evt_launch_destroy": (None, [_p]),
    "evt_launch_set_gemm": (_st, [_p, _ll, _ll, _ll, _p, _ll, _z, _p, _ll, _z]),
    "evt_launch_bind": (_st, [_p, _s, _p, _z, _ll]),
    "evt_launch_set_param": (_st, [_p, _s, ctypes.c_float]),
    "evt_launch_run": (_st, [_p, _p]),
    "evt_launch_benchmark": (_st, [_p, _p, _i, _i, ctypes.POINTER(ctypes.c_double)]),
    "evt_device_target": (_st, [_p, ctypes.POINTER(_i), ctypes.c_char_p, _z]),
}

# Declared in evt.h but possibly not yet in the library loaded: looked up
# only if present, and the binding says so when it needs one that is missing.
_OPTIONAL = {
    "evt_launch_plan": (_s, [_p]),
    "evt_conv_output_size": (_st, [ctypes.POINTER(ConvProblem), ctypes.POINTER(_ll),
                                   ctypes.POINTER(_ll)]),
    "evt_launch_set_conv": (_st, [_p, ctypes.POINTER(ConvProblem), _p, _z, _p, _z]),
    "evt_convert_from_f64": (_st, [_i, ctypes.POINTER(ctypes.c_double), _p, _z]),
    "evt_check_tolerance": (ctypes.c_double, [_i, _i]),
    "evt_check_values": (_st, [_i, _i, _p, ctypes.POINTER(ctypes.c_double), _z,
                               ctypes.POINTER(CheckVerdict)]),
    "evt_ctx_set_tuning": (_st, [_p, ctypes.POINTER(Tuning)]),
    "evt_ctx_set_library_path": (_st, [_p, _i, _s]),
    "evt_launch_set_tuning": (_st, [_p, ctypes.POINTER(Tuning)]),
    "evt_launch_workspace_size": (_st, [_p, ctypes.POINTER(_z)]),
    "evt_launch_run_with_workspace": (_st, [_p, _p, _p, _z]),
    "evt_config_count": (_i, []),
    "evt_config_name": (_s, [_i]),
    "evt_kernel_config_check": (_st, [_p, _p, _i, _s]),
}


def _is_sanitized_build(folder):
    """True for a build folder configured with EVT_SANITIZE or EVT_FUZZ.

    Such a library needs the ASan runtime loaded first and would end the
    interpreter on load, so the search skips it instead of trying it."""
    cache = folder / "CMakeCache.txt"
    try:
        text = cache.read_text(errors="replace")
    except OSError:
        return False
    return any(f"{opt}:BOOL=ON" in text for opt in ("EVT_SANITIZE", "EVT_FUZZ"))


def _candidates():
    """Paths to try, in order: $EVT_LIBRARY alone if set, else the source
    tree's build folders (build first, then the others by name), else
    whatever the system loader finds."""
    env = os.environ.get("EVT_LIBRARY")
    if env:
        return [env]
    found = []
    here = Path(__file__).resolve()
    # evt/ -> python/ -> bindings/ -> the source tree's root, if this is one.
    root = here.parents[3] if len(here.parents) > 3 and here.parents[2].name == "bindings" else None
    folders = sorted(root.glob("build*"), key=lambda p: (p.name != "build", p.name)) if root else []
    for folder in folders:
        lib = folder / "libevt.so"
        if lib.exists() and not _is_sanitized_build(folder):
            found.append(str(lib))
    system = ctypes.util.find_library("evt")
    found.append(system or "libevt.so.0")
    return found


def _load():
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
            continue
        try:
            for name, (res, args) in _PROTOTYPES.items():
                fn = getattr(lib, name)
                fn.restype = res
                fn.argtypes = args
        except AttributeError as e:
            tried.append(f"{path}: not a usable libevt ({e})")
            continue
        for name, (res, args) in _OPTIONAL.items():
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = res
                fn.argtypes = args
        major = lib.evt_version_number() // 10000
        if major != ABI_MAJOR:
            tried.append(f"{path}: libevt {lib.evt_version().decode()} has major version "
                         f"{major}; this binding needs {ABI_MAJOR}.x")
            continue
        return lib, path
    raise ImportError("evt: cannot load libevt.so; set EVT_LIBRARY to its path or build it "
                      "(cmake -S . -B build && cmake --build build). Tried:\n  "
                      + "\n  ".join(tried))


lib, path = _load()


def has(name):
    """Whether the loaded library exports `name` (for entry points newer than it)."""
    return getattr(lib, name, None) is not None


def need(name, what):
    """Raises UnsupportedError when the loaded library lacks `name`, which
    `what` (e.g. "tuning") needs."""
    if not has(name):
        from .errors import UnsupportedError
        raise UnsupportedError(f"{what} needs {name}, which the libevt loaded ({path}) lacks")


def text(ptr):
    """A C string from the library as str (None stays None)."""
    return None if ptr is None else ptr.decode("utf-8", errors="replace")
