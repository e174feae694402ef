"""libkladder.so through ctypes: the library this package installed, its
functions' prototypes, the public structs the package fills, and the
exceptions each kl_status maps to.

The library is the one in this package's lib/ folder (installed there by
the wheel), found by a path relative to this file, never by the loader's
search: a libkladder.so elsewhere on the system is not taken by accident.
KLADDER_LIBRARY, where set, names another one (a build tree's, for
development). The GPU module (libkladder-cuda.so) is opened by
libkladder.so itself, from the folder libkladder.so was loaded from.
"""
import ctypes
import glob
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _library_path():
    env = os.environ.get("KLADDER_LIBRARY")
    if env:
        return env
    found = sorted(glob.glob(os.path.join(_HERE, "lib", "libkladder.so.*")),
                   key=len)
    if not found:
        raise ImportError(
            "kladder: no libkladder.so in %s (the package was not installed "
            "by its wheel; set KLADDER_LIBRARY to a libkladder.so)"
            % os.path.join(_HERE, "lib"))
    return found[0]  # the soname, libkladder.so.MAJOR.MINOR


LIBRARY_PATH = _library_path()
lib = ctypes.CDLL(LIBRARY_PATH)


def command_path():
    """The kladder command installed beside the library (kladder/bin), or,
    for a library named by KLADDER_LIBRARY, the one in its folder."""
    for path in (os.path.join(_HERE, "bin", "kladder"),
                 os.path.join(os.path.dirname(LIBRARY_PATH), "kladder")):
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError("kladder: the kladder command is not installed "
                            "beside %s" % LIBRARY_PATH)


# ---- types (kladder.h) -------------------------------------------------------
c_status = ctypes.c_int
c_p = ctypes.c_void_p
i64 = ctypes.c_int64

# KL_TYPE_MAP, in its order: the enum's values from 0.
TYPES = ("f32", "f64", "i32", "i64", "u8", "u32", "u64")
TYPE_DEFAULT = -1


class BackendInfo(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("name", ctypes.c_char_p),
                ("summary", ctypes.c_char_p), ("available", ctypes.c_int),
                ("detail", ctypes.c_char * 256),
                ("device_count", ctypes.c_int), ("host_memory", ctypes.c_int)]


class DeviceInfo(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("backend", ctypes.c_char_p),
                ("index", ctypes.c_int), ("id", ctypes.c_char * 48),
                ("name", ctypes.c_char * 128),
                ("memory_bytes", ctypes.c_size_t),
                ("compute_units", ctypes.c_int), ("lanes", ctypes.c_int)]


class CGMatrix(ctypes.Structure):
    _fields_ = [("rows", i64), ("nnz", i64), ("offsets", c_p),
                ("columns", c_p), ("values", c_p)]


class CGResultC(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("iterations", i64),
                ("residual", ctypes.c_double), ("converged", ctypes.c_int)]


# ---- kladder-run.h ---------------------------------------------------------------
KL_MAX_DIMS = 4
KL_MAX_FILES = 4
PROGRESS_FN = ctypes.CFUNCTYPE(None, c_p, ctypes.c_char_p)


class Shape(ctypes.Structure):
    _fields_ = [("dims", i64 * KL_MAX_DIMS), ("lead", i64 * KL_MAX_DIMS),
                ("scalars", ctypes.c_double * KL_MAX_DIMS),
                ("scalars_set", ctypes.c_uint64)]


class NamedPath(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("path", ctypes.c_char_p)]


class Options(ctypes.Structure):
    """kl_options, whole as kladder-run.h declares it (its size is given to
    kl_options_init_sized, so that a library with a longer struct knows
    which fields this one has)."""
    _fields_ = [
        ("size", ctypes.c_size_t), ("workloads", ctypes.c_char_p),
        ("backends", ctypes.c_char_p), ("rungs", ctypes.c_char_p),
        ("n", i64), ("type", ctypes.c_int), ("params", ctypes.c_char_p),
        ("op", ctypes.c_char_p), ("inputs", ctypes.c_char_p),
        ("input_file", ctypes.c_char_p), ("shape", Shape),
        ("reps", ctypes.c_int), ("warmup", ctypes.c_int),
        ("seed", ctypes.c_uint64), ("skip_ceiling", ctypes.c_int),
        ("max_seconds", ctypes.c_double), ("progress", PROGRESS_FN),
        ("progress_ctx", c_p), ("command_line", ctypes.c_char_p),
        ("stop", ctypes.POINTER(ctypes.c_int)),  # sig_atomic_t: int
        ("files", NamedPath * KL_MAX_FILES), ("full", ctypes.c_int),
        ("sizes", ctypes.c_char_p), ("host_data", ctypes.c_int),
        ("ranks", c_p), ("scaling", ctypes.c_int), ("energy", ctypes.c_int),
        ("precision", ctypes.c_double), ("cache", ctypes.c_int)]


class FieldInfo(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("name", ctypes.c_char_p),
                ("csv", ctypes.c_char_p), ("kind", ctypes.c_int),
                ("unit", ctypes.c_char_p), ("per_run", ctypes.c_int),
                ("group", ctypes.c_char_p)]


FIELD_KINDS = ("text", "number", "seconds", "list", "pairs", "events",
               "rank_runs")
FORMAT_CSV, FORMAT_JSON, FORMAT_TRACE, FORMAT_TABLE, FORMAT_HTML = range(5)


class CompareOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("threshold", ctypes.c_double),
                ("alpha", ctypes.c_double), ("field", ctypes.c_char_p)]


class ComparePair(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t)] + [
        (name, ctypes.c_char_p) for name in
        ("workload", "rung", "backend", "type", "shape", "op", "inputs",
         "params")] + [
        ("occurrence", ctypes.c_int), ("ceiling", ctypes.c_int)] + [
        (name, ctypes.c_double) for name in
        ("base", "new", "ratio", "low", "high", "p_value")] + [
        ("verdict", ctypes.c_char_p), ("regression", ctypes.c_int)]


class HistoryQuery(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t)] + [
        (name, ctypes.c_char_p) for name in
        ("workloads", "rungs", "backends", "machine", "since")]


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_proto("kl_status_name", ctypes.c_char_p, c_status)
_proto("kl_last_error", ctypes.c_char_p)
_proto("kl_type_name", ctypes.c_char_p, ctypes.c_int)
_proto("kl_backend_count", ctypes.c_size_t)
_proto("kl_backend_describe", c_status, ctypes.c_size_t,
       ctypes.POINTER(BackendInfo))
_proto("kl_context_open", c_status, ctypes.c_char_p, ctypes.POINTER(c_p))
_proto("kl_context_close", None, c_p)
_proto("kl_context_device", c_status, c_p, ctypes.POINTER(DeviceInfo))
_proto("kl_context_adopt_stream", c_status, c_p, c_p)
_proto("kl_dispatch", c_status, c_p, ctypes.c_char_p, ctypes.c_int, i64,
       ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p))
_proto("kl_wisdom_note", ctypes.c_char_p)
_proto("kl_reduce", c_status, c_p, ctypes.c_char_p, ctypes.c_int, c_p, i64,
       ctypes.c_int, c_p)
_proto("kl_histogram", c_status, c_p, c_p, i64, ctypes.c_int, c_p)
_proto("kl_laplacian", c_status, c_p, ctypes.c_int, i64, i64, i64,
       ctypes.c_double, ctypes.c_double, ctypes.c_double, c_p, c_p,
       ctypes.c_int)
_proto("kl_cg", c_status, c_p, ctypes.POINTER(CGMatrix), i64, ctypes.c_int,
       c_p, c_p, ctypes.c_double, i64, ctypes.c_int,
       ctypes.POINTER(CGResultC))
_proto("kl_gemm", c_status, c_p, ctypes.c_int, i64, i64, i64,
       ctypes.c_double, c_p, i64, c_p, i64, ctypes.c_double, c_p, i64,
       ctypes.c_int)
_proto("kl_options_init_sized", None, ctypes.POINTER(Options),
       ctypes.c_size_t)
_proto("kl_run", c_status, ctypes.POINTER(Options), ctypes.POINTER(c_p))
_proto("kl_report_free", None, c_p)
_proto("kl_report_count", ctypes.c_size_t, c_p)
_proto("kl_report_notes", ctypes.c_char_p, c_p)
_proto("kl_report_started", ctypes.c_char_p, c_p)
_proto("kl_report_interrupted", ctypes.c_int, c_p)
_proto("kl_report_print", c_status, c_p, c_p)
_proto("kl_report_print_wide", c_status, c_p, c_p)
_proto("kl_output_open", c_status, ctypes.c_char_p, ctypes.c_int,
       ctypes.POINTER(c_p))
_proto("kl_output_write", c_status, c_p, c_p)
_proto("kl_field_count", ctypes.c_size_t)
_proto("kl_field_describe", c_status, ctypes.c_size_t,
       ctypes.POINTER(FieldInfo))
_proto("kl_result_number", c_status, c_p, ctypes.c_size_t, ctypes.c_size_t,
       ctypes.POINTER(ctypes.c_double))
_proto("kl_result_text", c_status, c_p, ctypes.c_size_t, ctypes.c_size_t,
       ctypes.c_char_p, ctypes.c_size_t)
_proto("kl_compare", c_status, ctypes.c_char_p, ctypes.c_char_p,
       ctypes.POINTER(CompareOptions), ctypes.POINTER(c_p))
_proto("kl_comparison_free", None, c_p)
_proto("kl_comparison_count", ctypes.c_size_t, c_p)
_proto("kl_comparison_pair", c_status, c_p, ctypes.c_size_t,
       ctypes.POINTER(ComparePair))
_proto("kl_comparison_regressed", ctypes.c_int, c_p)
_proto("kl_comparison_warning", ctypes.c_char_p, c_p)
_proto("kl_comparison_print", c_status, c_p, ctypes.c_int, c_p)
_proto("kl_comparison_write", c_status, c_p, ctypes.c_int, ctypes.c_char_p)
_proto("kl_history_open", c_status, ctypes.c_char_p, ctypes.c_int,
       ctypes.POINTER(c_p))
_proto("kl_history_close", None, c_p)
_proto("kl_history_append", c_status, c_p,
       ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
       ctypes.POINTER(ctypes.c_size_t))
_proto("kl_history_print", c_status, c_p, ctypes.POINTER(HistoryQuery),
       ctypes.c_int, c_p)
_proto("kl_history_check", c_status, c_p, ctypes.POINTER(HistoryQuery),
       ctypes.c_double, ctypes.c_int, c_p, ctypes.POINTER(ctypes.c_int))
_proto("kl_report_write_html", c_status, ctypes.c_char_p,
       ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, c_p)


def text(b):
    return b.decode("utf-8", "replace") if b is not None else None


# ---- status codes and exceptions ---------------------------------------------------
# KL_STATUS_MAP's order: the enum's values from 0.
(OK, CHECK_FAILED, USAGE, TOO_LARGE, UNAVAILABLE, NO_MEMORY, DEVICE, IO,
 INTERRUPTED, NOT_CONVERGED) = range(10)


class KladderError(Exception):
    """A kladder call that did not succeed: `status` is the kl_status
    (an int), `message` the library's last-error line."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status
        self.message = message


class UsageError(KladderError, ValueError):
    """KL_USAGE: bad usage or input (a bad size, dtype, layout, op...)."""


class NotContiguousError(UsageError):
    """An array whose elements are not one dense block the library can
    take by its pointer (kladder never copies an array behind your back)."""


class DTypeError(UsageError, TypeError):
    """An array of a dtype the entry point has no rung for."""


class ShapeError(UsageError):
    """Arrays whose shapes do not fit together."""


class TooLargeError(KladderError, MemoryError):
    """KL_TOO_LARGE: the problem does not fit this machine's memory."""


class UnavailableError(KladderError, RuntimeError):
    """KL_UNAVAILABLE: the backend or rung is not available here."""


class OutOfMemoryError(KladderError, MemoryError):
    """KL_NO_MEMORY: an allocation failed."""


class DeviceError(KladderError, RuntimeError):
    """KL_DEVICE: a device or runtime error."""


class KladderIOError(KladderError, OSError):
    """KL_IO: a file could not be read or written."""


class CheckFailed(KladderError):
    """KL_CHECK_FAILED: a verification check failed."""


class NotConverged(KladderError):
    """KL_NOT_CONVERGED: cg stopped at maxit above its tolerance. `result`
    is the CGResult all the same (x the last iterate, converged False)."""

    def __init__(self, message, status=None, result=None):
        super().__init__(message, status)
        self.result = result


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C through the library's stop flag; `report` is
    the Report of the rungs that finished."""

    def __init__(self, report):
        super().__init__("kladder: run interrupted; the rungs that finished "
                         "are in .report")
        self.report = report


_CLASSES = {CHECK_FAILED: CheckFailed, USAGE: UsageError,
            TOO_LARGE: TooLargeError, UNAVAILABLE: UnavailableError,
            NO_MEMORY: OutOfMemoryError, DEVICE: DeviceError,
            IO: KladderIOError, NOT_CONVERGED: NotConverged}


def error(status, cls=None, **extra):
    """The exception for a kl_status, with this thread's last-error line."""
    message = text(lib.kl_last_error()) or text(lib.kl_status_name(status))
    cls = cls or _CLASSES.get(status, KladderError)
    return cls(message, status, **extra)


def check(status):
    if status != OK:
        raise error(status)
