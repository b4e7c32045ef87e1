"""evt: fused GPU epilogues from Python, over libevt through ctypes.

    import torch, evt
    m = evt.compile(source='''
        epilogue bias_gelu { in bias : bf16[N]  out y : bf16[M, N] = gelu(acc + bias) }
        kernel mlp_up = gemm(a: bf16 row, b: bf16 col, acc: f32) with bias_gelu
    ''')
    y = m.kernel("mlp_up")(a=x, b=linear.weight.t(), bias=linear.bias)

libevt.so is found through $EVT_LIBRARY, else beside this module (an
installed wheel), else in the source tree's build*/ folders (Release first),
else through the system loader.  docs/python.md is the manual.
"""

import warnings

from . import _lib
from ._check import Verdict, check, tolerance
from ._module import (Arg, Diag, Kernel, Launch, Module, Operand, Outputs, TunePlan,
                      TuneResult, Tuning, compile, configs, device_target)
from ._tensor import TORCH_DTYPE_NAMES
from .errors import (ArgumentError, ArgumentTypeError, BadBufferError, CompileError,
                     DriverError, EvtError, EvtIOError, EvtWarning, InternalError,
                     InvalidArgumentError, LaunchError, LimitError, NoGpuError, NoMemoryError,
                     NotFoundError, SourceError, UnboundError, UnsupportedError)

__all__ = [
    "compile", "configs", "device_target", "Tuning", "TunePlan", "TuneResult", "torch_dtype", "check", "tolerance", "Verdict", "Module", "Kernel", "Launch", "Outputs", "Arg",
    "Operand", "Diag", "EvtError", "SourceError", "InvalidArgumentError", "NotFoundError",
    "EvtIOError", "NoMemoryError", "LimitError", "InternalError", "CompileError",
    "UnsupportedError", "NoGpuError", "LaunchError", "DriverError", "UnboundError",
    "BadBufferError", "ArgumentError", "ArgumentTypeError", "EvtWarning", "library_path",
    "library_version",
]

# The libevt.so loaded and its version ("0.1.0").
library_path = _lib.path
library_version = _lib.text(_lib.lib.evt_version())
__version__ = library_version

if _lib.several_builds:
    # Say which build of a source checkout runs: a stale Release build beside
    # a fresh Debug one is an easy way to test old code.
    warnings.warn(f"evt: {_lib.several_builds}. Set EVT_LIBRARY to choose.", EvtWarning,
                  stacklevel=2)


def torch_dtype(elem):
    """The torch dtype of an evt element type: torch_dtype('bf16') is torch.bfloat16."""
    import torch
    try:
        return getattr(torch, TORCH_DTYPE_NAMES[elem])
    except KeyError:
        raise ValueError(f"unknown element type {elem!r}: one of "
                         f"{', '.join(TORCH_DTYPE_NAMES)}") from None
