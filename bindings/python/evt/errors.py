"""Exceptions: one class per evt_status, raised with the library's own message.

Each class also derives from the built-in exception a Python caller would
expect (ValueError for a bad argument, LookupError for a missing name, ...),
so `except ValueError` catches what it should.
"""

from . import _lib


class EvtError(Exception):
    """Base of every error evt raises.

    `status` is the evt_status code (an int, None for checks done in Python),
    `message` the library's message (evt_ctx_last_error) or the binding's own,
    `diagnostics` the module's diagnostics text where it has any ("" else)."""

    status = None

    def __init__(self, message, diagnostics=""):
        super().__init__(message)
        self.message = message
        self.diagnostics = diagnostics

    def __str__(self):
        if self.diagnostics and self.diagnostics not in self.message:
            return f"{self.message}\n{self.diagnostics.rstrip()}"
        return self.message


class SourceError(EvtError, ValueError):
    """The .evt source is invalid.  `diagnostics` holds every diagnostic as text
    (file:line:col: error: ..., the line, a caret); `diags` the same as Diag tuples."""

    status = _lib.ERR_SOURCE

    def __init__(self, message, diagnostics="", diags=()):
        super().__init__(message, diagnostics)
        self.diags = tuple(diags)


class InvalidArgumentError(EvtError, ValueError):
    """An argument the library refused (a size, a leading dimension, a level)."""
    status = _lib.ERR_INVALID_ARGUMENT


class NotFoundError(EvtError, LookupError):
    """No kernel, input, output or param of that name."""
    status = _lib.ERR_NOT_FOUND


class EvtIOError(EvtError, OSError):
    """A file could not be read or written."""
    status = _lib.ERR_IO


class NoMemoryError(EvtError, MemoryError):
    """A host allocation failed."""
    status = _lib.ERR_NO_MEMORY


class LimitError(EvtError, ValueError):
    """An input exceeded a documented size limit."""
    status = _lib.ERR_LIMIT


class InternalError(EvtError, RuntimeError):
    """A bug in libevt."""
    status = _lib.ERR_INTERNAL


class CompileError(EvtError, RuntimeError):
    """NVRTC is missing or failed; `diagnostics` holds its log."""
    status = _lib.ERR_COMPILE


class UnsupportedError(EvtError, NotImplementedError):
    """Valid source the library cannot build or launch yet (or an older GPU)."""
    status = _lib.ERR_UNSUPPORTED


class NoGpuError(EvtError, RuntimeError):
    """No CUDA driver or no GPU."""
    status = _lib.ERR_NO_GPU


class LaunchError(EvtError, RuntimeError):
    """Base of the errors of launching: arguments, buffers, the driver."""


class DriverError(LaunchError):
    """A CUDA driver call failed; the message names it and its CUresult."""
    status = _lib.ERR_DRIVER


class UnboundError(LaunchError):
    """A launch argument (operand, input, output, param without default) was not given."""
    status = _lib.ERR_UNBOUND


class BadBufferError(LaunchError):
    """A launch buffer is misaligned or smaller than what the kernel touches."""
    status = _lib.ERR_BAD_BUFFER


class ArgumentError(LaunchError, ValueError):
    """The binding's own check of a launch argument failed before anything ran:
    its device, element type, shape or strides.  `argument` names it."""

    def __init__(self, message, argument=None):
        super().__init__(message)
        self.argument = argument


class ArgumentTypeError(ArgumentError, TypeError):
    """A launch argument of the wrong kind or element type (also a TypeError)."""


class EvtWarning(UserWarning):
    """Warnings of the .evt source (diagnostics of severity warning), and
    import's note of which build it loaded when a source checkout has several."""


_BY_STATUS = {
    cls.status: cls
    for cls in (SourceError, InvalidArgumentError, NotFoundError, EvtIOError, NoMemoryError,
                LimitError, InternalError, CompileError, UnsupportedError, NoGpuError,
                DriverError, UnboundError, BadBufferError)
}


def error_for(status, message, diagnostics=""):
    """The exception for a non-OK status, carrying `message`."""
    cls = _BY_STATUS.get(status)
    if cls is None:
        return EvtError(f"{message} (unknown evt_status {status})", diagnostics)
    message = message or _lib.text(_lib.lib.evt_status_string(status))
    if status == _lib.ERR_COMPILE and message.startswith("cannot load NVRTC (libnvrtc"):
        # The library's default search failed; its advice is for C programs.
        message += ("; from Python: pip install 'evt-compiler[nvrtc]', or set CUDA_HOME "
                    "or EVT_NVRTC_LIBRARY")
    err = cls(message, diagnostics)
    err.status = status
    return err
