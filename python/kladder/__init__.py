"""kladder from Python: the library's entry points on NumPy arrays and on
device arrays (CuPy, PyTorch: __cuda_array_interface__), without a copy,
and runs of the ladders with their reports. ctypes over the libkladder.so
this package installed (docs/python.md).

Threads: every function may be called from any thread. The entry points
run on contexts this module opens once per device and keeps until the
process exits; calls on one device take turns, calls on different
devices run at once (ctypes releases the GIL for the call)."""
import atexit as _atexit

from ._lib import (CheckFailed, DeviceError, DTypeError, Interrupted,
                   KladderError, KladderIOError, NotContiguousError,
                   NotConverged, OutOfMemoryError, ShapeError, TooLargeError,
                   UnavailableError, UsageError, LIBRARY_PATH)
from ._arrays import backends, close_contexts as _close_contexts
from ._entries import CGResult, cg, dispatch, gemm, histogram, laplacian, reduce
from ._run import Comparison, History, Report, compare, fields, history, run
from . import _lib


def _version():
    import ctypes

    class BuildInfo(ctypes.Structure):  # kl_build_info's first fields
        _fields_ = [("size", ctypes.c_size_t), ("version", ctypes.c_char_p)]
    build = _lib.lib.kl_build
    build.restype, build.argtypes = ctypes.POINTER(BuildInfo), []
    return build().contents.version.decode()


__version__ = _version()
_atexit.register(_close_contexts)

__all__ = ["reduce", "histogram", "laplacian", "cg", "gemm", "CGResult",
           "dispatch", "backends", "run", "Report", "compare", "Comparison",
           "history", "History", "fields", "KladderError", "UsageError",
           "NotContiguousError", "DTypeError", "ShapeError", "TooLargeError",
           "UnavailableError", "OutOfMemoryError", "DeviceError",
           "KladderIOError", "CheckFailed", "NotConverged", "Interrupted",
           "LIBRARY_PATH"]
