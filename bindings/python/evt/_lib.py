"""Finding libevt and declaring, through ctypes, every C function the binding calls.

The structs below mirror include/evt/evt.h field for field; the binding
refuses a library whose major version differs, since that is when they may
change.
"""

import ctypes
import ctypes.util
import os
import sys
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
                ("row_group", ctypes.c_int), ("ignore_records", ctypes.c_int),
                ("stream_k", ctypes.c_int), ("shared_epilogue", ctypes.c_int)]


class TuneOptions(ctypes.Structure):
    _fields_ = [("max_seconds", ctypes.c_double), ("threads", ctypes.c_int),
                ("warmup", ctypes.c_int), ("reps", ctypes.c_int), ("dry_run", ctypes.c_int)]


class TuneEntry(ctypes.Structure):
    _fields_ = [("config", ctypes.c_char * 48), ("split_k", ctypes.c_int),
                ("ms", ctypes.c_double), ("stream_k", ctypes.c_int)]


TUNE_MAX_ENTRIES = 96  # EVT_TUNE_MAX_ENTRIES


class TuneResult(ctypes.Structure):
    _fields_ = [("best", TuneEntry), ("heuristic", TuneEntry), ("candidates", ctypes.c_int),
                ("timed", ctypes.c_int), ("compiled", ctypes.c_int),
                ("compile_seconds", ctypes.c_double), ("seconds", ctypes.c_double),
                ("recorded", ctypes.c_int), ("nentries", ctypes.c_int),
                ("entries", TuneEntry * TUNE_MAX_ENTRIES)]


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
    "evt_check_sums": (_st, [_i, _p, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), _z,
                             ctypes.POINTER(CheckVerdict)]),
    "evt_ctx_set_tuning": (_st, [_p, ctypes.POINTER(Tuning)]),
    "evt_ctx_set_library_path": (_st, [_p, _i, _s]),
    "evt_ctx_set_fast_math": (_st, [_p, _i]),
    "evt_ctx_fast_math": (_i, [_p]),
    "evt_launch_set_tuning": (_st, [_p, ctypes.POINTER(Tuning)]),
    "evt_launch_tune": (_st, [_p, _p, ctypes.POINTER(TuneOptions), ctypes.POINTER(TuneResult)]),
    "evt_tuning_db_path": (None, [ctypes.c_char_p, _z]),
    "evt_launch_workspace_size": (_st, [_p, ctypes.POINTER(_z)]),
    "evt_launch_run_with_workspace": (_st, [_p, _p, _p, _z]),
    "evt_config_count": (_i, []),
    "evt_config_name": (_s, [_i]),
    "evt_kernel_config_check": (_st, [_p, _p, _i, _s]),
    "evt_launch_set_batch": (_st, [_p, _ll, _ll, _ll]),
    "evt_launch_bind_batched": (_st, [_p, _s, _p, _z, _ll, _ll]),
}


# CMAKE_BUILD_TYPE's rank among a source tree's build folders: optimized
# first, an unset type next, Debug last (its per-pass IR verification makes
# compiling several times slower).
_BUILD_TYPE_RANK = {"release": 0, "relwithdebinfo": 1, "minsizerel": 2, "": 3, "debug": 4}


def _cache_entries(folder):
    """CMakeCache.txt's NAME:TYPE=VALUE lines as {NAME: VALUE} ({} if none)."""
    try:
        text = (folder / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return {}
    entries = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and ":" in name and not name.startswith(("#", "//")):
            entries[name.split(":", 1)[0]] = value
    return entries


def source_tree_libraries(root):
    """[(libevt.so path, build type)] of the build*/ folders under `root`,
    best first: Release, RelWithDebInfo, MinSizeRel, an unknown type, Debug;
    folders of one rank by name.  Folders configured with EVT_SANITIZE,
    EVT_TSAN or EVT_FUZZ are left out: their library needs its sanitizer's
    runtime loaded first and would end the interpreter on load."""
    found = []
    for folder in Path(root).glob("build*"):
        lib = folder / "libevt.so"
        if not lib.is_file():
            continue
        cache = _cache_entries(folder)
        if any(cache.get(option) == "ON" for option in ("EVT_SANITIZE", "EVT_TSAN", "EVT_FUZZ")):
            continue
        build_type = cache.get("CMAKE_BUILD_TYPE", "")
        found.append((_BUILD_TYPE_RANK.get(build_type.lower(), 3), folder.name, str(lib),
                      build_type or "build type unknown"))
    return [(lib, build_type) for _, _, lib, build_type in sorted(found)]


def _source_root():
    """The source tree this package sits in (bindings/python/evt), or None."""
    here = Path(__file__).resolve()
    if len(here.parents) > 3 and here.parents[2].name == "bindings" and \
            (here.parents[3] / "CMakeLists.txt").is_file():
        return here.parents[3]
    return None


def _package_dirs():
    """The evt package's folders.  An editable install (scikit-build-core's)
    has two: the source's, and the one in site-packages holding libevt.so."""
    package = sys.modules.get(__package__)
    return [Path(p) for p in getattr(package, "__path__", ())] or [Path(__file__).parent]


def _load_one(path):
    """The library at `path` with its prototypes declared, or the reason it
    cannot be used (a str)."""
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        return str(e)
    try:
        for name, (res, args) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
    except AttributeError as e:
        return f"not a usable libevt ({e})"
    for name, (res, args) in _OPTIONAL.items():
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype = res
            fn.argtypes = args
    major = lib.evt_version_number() // 10000
    if major != ABI_MAJOR:
        return (f"libevt {lib.evt_version().decode()} has major version {major}; "
                f"this binding needs {ABI_MAJOR}.x")
    return lib


def _load():
    """(library, its path, None or a note naming the source tree's other
    builds) from the first that loads of: $EVT_LIBRARY alone if set; the
    libevt.so packaged with this module (a wheel); in a source checkout, its
    build folders' (source_tree_libraries' order); the system loader's."""
    env = os.environ.get("EVT_LIBRARY")
    if env:
        lib = _load_one(env)
        if isinstance(lib, str):
            raise ImportError(f"evt: cannot load EVT_LIBRARY={env}: {lib}\n"
                              "Point it at a libevt.so of this version, or unset it.")
        return lib, env, None
    tried = []
    root = _source_root()
    for folder in _package_dirs():
        packaged = folder / "libevt.so"
        if packaged.is_file():
            lib = _load_one(str(packaged))
            if not isinstance(lib, str):
                return lib, str(packaged), None
            tried.append(f"{packaged}: {lib}")
        elif not root:
            tried.append(f"{packaged}: missing")
    built = source_tree_libraries(root) if root else []
    for i, (path, build_type) in enumerate(built):
        lib = _load_one(path)
        if not isinstance(lib, str):
            others = ", ".join(f"{p} ({t})" for p, t in built[i + 1:])
            return lib, path, others and f"loaded {path} ({build_type}); also built: {others}"
        tried.append(f"{path} ({build_type}): {lib}")
    # Last: a libevt installed system-wide (cmake --install).
    system = ctypes.util.find_library("evt") or "libevt.so.0"
    lib = _load_one(system)
    if not isinstance(lib, str):
        return lib, system, None
    tried.append(f"{system}: {lib}")
    if root:
        how = (f"No build of it in the source tree {root}; build one (flex, bison, cmake and\n"
               "a C compiler needed):\n"
               f"  cmake -S {root} -B {root}/build -DCMAKE_BUILD_TYPE=Release\n"
               f"  cmake --build {root}/build\n"
               "or set EVT_LIBRARY to a libevt.so.")
    else:
        how = ("The evt-compiler package ships it beside this module; reinstall the package\n"
               "(pip install --force-reinstall evt-compiler; from a source checkout, pip\n"
               "install .), or set EVT_LIBRARY to a libevt.so.")
    raise ImportError("evt: cannot load libevt.so.\n" + how + "\nTried:\n  "
                      + "\n  ".join(tried))


lib, path, several_builds = _load()


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


# Where NVIDIA's wheel (nvidia-cuda-nvrtc 13.x, the [nvrtc] extra) puts NVRTC
# under site-packages, libnvrtc-builtins.so.13.0 beside it.
NVRTC_WHEEL_PATH = Path("nvidia", "cu13", "lib", "libnvrtc.so.13")


def nvrtc_library(environ=None, search_path=None):
    """The NVRTC each context is told to load (evt_ctx_set_library_path), or
    None for the library's own search (libnvrtc.so.13 through the loader,
    then /usr/local/cuda/lib64).  The first of: $EVT_NVRTC_LIBRARY; NVIDIA's
    wheel on `search_path` (sys.path), installed for this Python; the
    toolkit $CUDA_HOME or $CUDA_PATH names (the library reads no environment
    variable, so the binding does)."""
    environ = os.environ if environ is None else environ
    if environ.get("EVT_NVRTC_LIBRARY"):
        return environ["EVT_NVRTC_LIBRARY"]
    for entry in sys.path if search_path is None else search_path:
        wheel = Path(entry or ".", NVRTC_WHEEL_PATH)
        if wheel.is_file():
            return str(wheel)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if environ.get(var):
            for sub in ("lib64", "lib"):
                toolkit = Path(environ[var], sub, "libnvrtc.so.13")
                if toolkit.is_file():
                    return str(toolkit)
    return None
