"""Arrays as the entry points take them: NumPy arrays (host memory) and
objects with __cuda_array_interface__ (CuPy arrays, PyTorch CUDA tensors:
device memory), each seen as its data pointer, shape, strides in bytes,
dtype, and for device memory its device and stream. Nothing is copied:
the library gets the array's own pointer. The contexts the entry points
run on, one per device, are cached here."""
import ctypes
import math
import threading

import numpy as np

from . import _lib
from ._lib import DTypeError, NotContiguousError, UsageError, lib

_KL_TYPES = {("f", 4): 0, ("f", 8): 1, ("i", 4): 2, ("i", 8): 3,
             ("u", 1): 4, ("u", 4): 5, ("u", 8): 6}


def kl_type(dtype, allowed, what):
    """The kl_type of dtype, where it is one of `allowed` (names "f64"...)."""
    t = _kl_types.get((dtype, allowed))
    if t is not None:
        return t
    t = _kl_types[(dtype, allowed)] = _kl_type(np.dtype(dtype), allowed, what)
    return t


# kl_type's answers by (dtype, allowed): an entry point's call looks its
# dtype up rather than working it out again.
_kl_types = {}


def _kl_type(dtype, allowed, what):
    t = _KL_TYPES.get((dtype.kind, dtype.itemsize))
    if t is None or _lib.TYPES[t] not in allowed or not dtype.isnative:
        raise DTypeError("kladder.%s: dtype %s is not one of %s" % (
            what, dtype.str if not dtype.isnative else dtype.name,
            ", ".join(_NUMPY_NAMES[a] for a in allowed)), _lib.USAGE)
    return t


_NUMPY_NAMES = {"f32": "float32", "f64": "float64", "i32": "int32",
                "i64": "int64", "u8": "uint8", "u32": "uint32",
                "u64": "uint64"}


class Arr:
    """One array as the library will take it."""
    __slots__ = ("obj", "ptr", "shape", "strides", "dtype", "device",
                 "stream", "readonly")

    @property
    def on_device(self):
        return self.device is not None

    @property
    def size(self):
        return math.prod(self.shape)

    def contiguous(self, order):
        """Whether the elements are one dense block in C or F order."""
        if len(self.shape) == 1:  # a vector: one stride to check
            return self.shape[0] <= 1 or self.strides[0] == self.dtype.itemsize
        if 0 in self.shape:
            return True  # no element: nothing to lay out
        dims = list(zip(self.shape, self.strides))
        if order == "F":
            dims.reverse()
        expect = self.dtype.itemsize
        for extent, stride in reversed(dims):
            if extent != 1 and stride != expect:
                return False
            expect *= extent
        return True

    def dense(self, what, name):
        if not (self.contiguous("C") or self.contiguous("F")):
            raise NotContiguousError(
                "kladder.%s: %s is not contiguous (strides %s for shape %s); "
                "kladder takes an array by its pointer and never copies it: "
                "pass a contiguous one (np.ascontiguousarray)" % (
                    what, name, self.strides, self.shape), _lib.USAGE)


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


_cuda_driver = None


def _device_ordinal(obj, ptr):
    """The CUDA device of a device array: what the object says (CuPy's
    .device.id, PyTorch's .device.index), else the driver's answer for its
    pointer (cuPointerGetAttribute, DEVICE_ORDINAL), else 0."""
    device = getattr(obj, "device", None)
    for attr in ("id", "index"):
        value = getattr(device, attr, None)
        if isinstance(value, int):
            return value
    global _cuda_driver
    if _cuda_driver is None:
        try:
            get = ctypes.CDLL("libcuda.so.1").cuPointerGetAttribute
            get.restype = ctypes.c_int
            get.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64]
            _cuda_driver = get
        except (OSError, AttributeError):
            _cuda_driver = False
    if _cuda_driver and ptr:
        ordinal = ctypes.c_int(-1)
        rc = _cuda_driver(ctypes.byref(ordinal), 9, ptr)  # DEVICE_ORDINAL
        if rc == 0 and ordinal.value >= 0:
            return ordinal.value
    return 0


_dtypes = {}


def _dtype(typestr):
    """The NumPy dtype of an array interface's typestr, kept for the next."""
    dtype = _dtypes[typestr] = np.dtype(typestr)
    return dtype


def view(x, what, name, writable=False):
    """x as an Arr: a device array through __cuda_array_interface__, else a
    NumPy array (array-likes are made one with np.asarray; an output must
    already be an ndarray, as it is written in place)."""
    a = Arr()
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        a.obj = x
        a.shape = tuple(map(int, cai["shape"]))
        a.dtype = _dtypes.get(cai["typestr"]) or _dtype(cai["typestr"])
        a.ptr, a.readonly = int(cai["data"][0] or 0), bool(cai["data"][1])
        strides = cai.get("strides")
        a.strides = (tuple(int(s) for s in strides) if strides is not None
                     else _c_strides(a.shape, a.dtype.itemsize))
        a.device = _device_ordinal(x, a.ptr)
        # Version 3 names the stream the data is ready on (None: no need
        # to wait); an older exporter means the legacy default stream (1).
        a.stream = cai.get("stream") if cai.get("version", 0) >= 3 else 1
    else:
        if writable and not isinstance(x, np.ndarray):
            raise TypeError("kladder.%s: %s must be a NumPy array or a device "
                            "array (it is written in place), not %s"
                            % (what, name, type(x).__name__))
        arr = x if isinstance(x, np.ndarray) else np.asarray(x)
        a.obj = arr
        a.shape, a.strides, a.dtype = arr.shape, arr.strides, arr.dtype
        a.ptr = arr.__array_interface__["data"][0]
        a.readonly = not arr.flags.writeable
        a.device, a.stream = None, None
    if writable and a.readonly:
        raise UsageError("kladder.%s: %s is read-only" % (what, name),
                         _lib.USAGE)
    return a


# ---- contexts ------------------------------------------------------------------------
class Context:
    """One opened kl_context, its lock and the stream it has adopted. The
    lock pairs kl_context_adopt_stream with the call that uses the stream:
    two threads calling on one device take turns (as the library's own
    lock would have them), and each call runs on its own array's stream."""

    def __init__(self, device):
        handle = ctypes.c_void_p()
        _lib.check(lib.kl_context_open(device.encode(), ctypes.byref(handle)))
        self.handle, self.device = handle, device
        self.lock = threading.Lock()
        self.adopted = None

    def adopt(self, stream):
        if stream != self.adopted:
            _lib.check(lib.kl_context_adopt_stream(self.handle, stream))
            self.adopted = stream

    def close(self):
        if self.handle:
            lib.kl_context_close(self.handle)
            self.handle = None


_contexts = {}
_contexts_lock = threading.Lock()


def backends():
    """The backends of this library: name, available, device count, whether
    its memory is the host's, and what its probe found."""
    out = []
    for i in range(lib.kl_backend_count()):
        b = _lib.BackendInfo(size=ctypes.sizeof(_lib.BackendInfo))
        _lib.check(lib.kl_backend_describe(i, ctypes.byref(b)))
        out.append({"name": _lib.text(b.name), "available": bool(b.available),
                    "devices": b.device_count,
                    "host_memory": bool(b.host_memory),
                    "detail": _lib.text(b.detail)})
    return out


_host_device = None
_gpu_backend = None


def host_device():
    """Where NumPy arrays run by default: OpenMP where it is available,
    else serial."""
    global _host_device
    if _host_device is None:
        names = {b["name"] for b in backends() if b["available"]}
        _host_device = "openmp" if "openmp" in names else "serial"
    return _host_device


def gpu_backend():
    """The name of the GPU backend that takes __cuda_array_interface__
    pointers: "cuda" (or "hip" in a HIP build)."""
    global _gpu_backend
    if _gpu_backend is None:
        names = [b["name"] for b in backends()]
        _gpu_backend = next((n for n in ("cuda", "hip") if n in names), "")
    return _gpu_backend


def context(device):
    """The module's context of a device ("openmp", "cuda:1"), opened on
    first use and kept until the process exits."""
    ctx = _contexts.get(device)  # opened: no lock to take
    if ctx is not None:
        return ctx
    with _contexts_lock:
        ctx = _contexts.get(device)
        if ctx is None:
            ctx = _contexts[device] = Context(device)
        return ctx


def close_contexts():
    with _contexts_lock:
        for ctx in _contexts.values():
            ctx.close()
        _contexts.clear()


def where(what, arrays, device):
    """The context for a call on `arrays` (all host or all on one device),
    and the stream to adopt (None for host data)."""
    on = [a for a in arrays if a.device is not None]
    if not on:
        return context(device or host_device()), None, 0
    if len(on) != len(arrays):
        raise UsageError("kladder.%s: host and device arrays mixed in one call"
                         % what, _lib.USAGE)
    ordinal = on[0].device
    if any(a.device != ordinal for a in on):
        raise UsageError("kladder.%s: arrays on devices %s in one call"
                         % (what, sorted({a.device for a in on})), _lib.USAGE)
    name = _gpu_names.get(ordinal) or _gpu_name(what, ordinal)
    if device and device not in (name, name[:-2] if ordinal == 0 else name):
        raise UsageError("kladder.%s: device=%r, but the arrays are on %s"
                         % (what, device, name), _lib.USAGE)
    stream = next((a.stream for a in on if a.stream is not None), None)
    return context(name), stream, 1


_gpu_names = {}


def _gpu_name(what, ordinal):
    """The device name of GPU `ordinal` ("cuda:1"), kept for the next call."""
    backend = gpu_backend()
    if not backend:
        raise _lib.UnavailableError(
            "kladder.%s: a device array, but this kladder was built without a "
            "GPU backend" % what, _lib.UNAVAILABLE)
    name = _gpu_names[ordinal] = "%s:%d" % (backend, ordinal)
    return name
