"""The entry points (kladder-reduce.h, -histogram.h, -laplacian.h, -cg.h,
-gemm.h) on NumPy arrays and on device arrays, without a copy."""
import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _arrays, _lib
from ._arrays import kl_type, view, where
from ._lib import NotContiguousError, ShapeError, UsageError, lib


def _call(ctx, stream, fn, *args):
    """fn(ctx, *args) on ctx, after adopting the arrays' stream (device
    data) or the context's own (host data); its status checked."""
    with ctx.lock:
        if ctx.adopted is not None or stream is not None:
            ctx.adopt(stream)
        st = fn(ctx.handle, *args)
        if st != _lib.OK:
            raise _lib.error(st)


def reduce(x, op="sum", *, device=None):
    """The sum, min or max of every element of x (int32, float32 or
    float64, contiguous in C or F order). A sum of int32 is an int64, a sum
    of floats a float64 (a double accumulator), min and max of x's dtype.
    device: "serial", "openmp", "cuda:1"...; None: OpenMP (else serial) for
    a NumPy array, the array's own device for a device array."""
    a = view(x, "reduce", "x")
    a.dense("reduce", "x")
    t = kl_type(a.dtype, ("i32", "f32", "f64"), "reduce")
    if op not in ("sum", "min", "max"):
        raise UsageError("kladder.reduce: op %r is not sum, min or max" % (op,),
                         _lib.USAGE)
    rtype = (np.int64 if a.dtype == np.int32 else np.float64) if op == "sum" \
        else a.dtype.type
    out = _SCALARS[rtype]()
    ctx, stream, on_device = where("reduce", [a], device)
    _call(ctx, stream, lib.kl_reduce, op.encode(), t, a.ptr, a.size,
          on_device, ctypes.addressof(out))
    return rtype(out.value)


# The C scalar a reduce writes, by the NumPy type of its result.
_SCALARS = {np.float64: ctypes.c_double, np.float32: ctypes.c_float,
            np.int64: ctypes.c_int64, np.int32: ctypes.c_int32}


def histogram(buf, *, device=None):
    """The counts of the 256 byte values of buf (a uint8 or int8 array,
    contiguous, or any bytes-like object): a uint64 array of 256, counts[b]
    the bytes equal to b."""
    if isinstance(buf, (bytes, bytearray, memoryview)):
        buf = np.frombuffer(buf, dtype=np.uint8)
    a = view(buf, "histogram", "buf")
    a.dense("histogram", "buf")
    if a.dtype not in (np.uint8, np.int8):
        raise _lib.DTypeError(
            "kladder.histogram: dtype %s is not uint8 or int8 (to count the "
            "bytes of another array, pass x.view(np.uint8))" % a.dtype,
            _lib.USAGE)
    counts = np.zeros(256, dtype=np.uint64)
    ctx, stream, on_device = where("histogram", [a], device)
    _call(ctx, stream, lib.kl_histogram, a.ptr, a.size, on_device,
          counts.ctypes.data)
    return counts


def _spacings(h):
    hs = np.broadcast_to(np.asarray(h, dtype=np.float64), (3,))
    return [float(v) for v in hs]


def _empty_like_device(obj, shape, dtype, order):
    """An uninitialized (zeroed, for laplacian's boundary) array of the same
    framework and device as obj: CuPy or PyTorch."""
    module = type(obj).__module__.split(".")[0]
    if module == "cupy":
        import cupy
        with cupy.cuda.Device(obj.device.id):
            return cupy.zeros(shape, dtype=dtype, order=order)
    if module == "torch":
        import torch
        tdtype = getattr(torch, np.dtype(dtype).name)
        if order == "F":  # the reversed shape in C order, axes reversed
            return torch.zeros(tuple(reversed(shape)), dtype=tdtype,
                               device=obj.device).permute(
                                   *reversed(range(len(shape))))
        return torch.zeros(shape, dtype=tdtype, device=obj.device)
    raise UsageError("kladder: give the output array (a device array of %s "
                     "cannot be made here)" % type(obj).__name__, _lib.USAGE)


def _order(a, what, name):
    if a.contiguous("C"):
        return "C"
    if a.contiguous("F"):
        return "F"
    a.dense(what, name)


def laplacian(u, h=1.0, *, out=None, device=None):
    """f = del^2 u by the 7-point stencil on a 3-D grid u (float32 or
    float64, contiguous in C or F order); h: the spacing, one for every
    axis or one per axis of u, in u's axis order. f's interior points are
    written, its boundary left as it was: out, where given (same shape,
    dtype and order as u; written in place), else a new zeroed array."""
    a = view(u, "laplacian", "u")
    if len(a.shape) != 3:
        raise ShapeError("kladder.laplacian: u has %d dimensions, not 3"
                         % len(a.shape), _lib.USAGE)
    order = _order(a, "laplacian", "u")
    t = kl_type(a.dtype, ("f32", "f64"), "laplacian")
    if out is None:
        out = (np.zeros(a.shape, dtype=a.dtype, order=order)
               if not a.on_device else
               _empty_like_device(u, a.shape, a.dtype, order))
    f = view(out, "laplacian", "out", writable=True)
    if f.shape != a.shape or f.dtype != a.dtype:
        raise ShapeError("kladder.laplacian: out is %s %s, u %s %s" % (
            f.shape, f.dtype, a.shape, a.dtype), _lib.USAGE)
    if not f.contiguous(order):
        raise NotContiguousError("kladder.laplacian: out is not contiguous "
                                 "in u's order (%s)" % order, _lib.USAGE)
    hs = _spacings(h)
    # The library's x is the fastest axis: the last of a C-order array.
    if order == "C":
        (nz, ny, nx), (hz, hy, hx) = a.shape, hs
    else:
        (nx, ny, nz), (hx, hy, hz) = a.shape, hs
    ctx, stream, on_device = where("laplacian", [a, f], device)
    _call(ctx, stream, lib.kl_laplacian, t, nx, ny, nz, hx, hy, hz, a.ptr,
          f.ptr, on_device)
    return out


def _matrix_layout(arrays, what):
    """The order (C or F) all of a, b and c can be read in as matrices with
    a leading dimension, and each one's leading dimension in elements."""
    for order in ("F", "C"):
        leads = []
        for name, a in arrays:
            rows, cols = a.shape if order == "F" else a.shape[::-1]
            unit, lead = (a.strides if order == "F" else a.strides[::-1])
            size = a.dtype.itemsize
            if rows == 0 or cols == 0:  # the library refuses the size
                leads.append(max(rows, 1))
                continue
            if rows > 1 and unit != size:
                break
            ld = lead // size if cols > 1 else max(rows, 1)
            if cols > 1 and (lead % size or ld < rows):
                break
            leads.append(ld)
        else:
            return order, leads
    raise NotContiguousError(
        "kladder.%s: a, b and c must all be column-major (Fortran order) or "
        "all row-major (C order), each with unit stride along its %s" % (
            what, "columns or rows"), _lib.USAGE)


def gemm(a, b, c=None, alpha=1.0, beta=0.0, *, device=None):
    """c = alpha * a @ b + beta * c for 2-D float32 or float64 arrays, all
    in Fortran order or all in C order (each may be a block of a larger
    array: a leading dimension, no other strides). c, where given, is
    updated in place and returned; None: a new array (beta must then be
    0)."""
    A, B = view(a, "gemm", "a"), view(b, "gemm", "b")
    for name, x in (("a", A), ("b", B)):
        if len(x.shape) != 2:
            raise ShapeError("kladder.gemm: %s has %d dimensions, not 2"
                             % (name, len(x.shape)), _lib.USAGE)
    (m, k), (k2, n) = A.shape, B.shape
    if k != k2:
        raise ShapeError("kladder.gemm: a is %dx%d, b %dx%d: %d != %d"
                         % (m, k, k2, n, k, k2), _lib.USAGE)
    t = kl_type(A.dtype, ("f32", "f64"), "gemm")
    if B.dtype != A.dtype:
        raise _lib.DTypeError("kladder.gemm: a is %s, b %s" % (A.dtype,
                                                               B.dtype),
                              _lib.USAGE)
    if c is None:
        if beta != 0:
            raise UsageError("kladder.gemm: beta = %r without c" % (beta,),
                             _lib.USAGE)
        order = "F" if (A.contiguous("F") and B.contiguous("F")
                        and not (A.contiguous("C") and B.contiguous("C"))) \
            else "C"
        c = (np.empty((m, n), dtype=A.dtype, order=order) if not A.on_device
             else _empty_like_device(a, (m, n), A.dtype, order))
    C = view(c, "gemm", "c", writable=True)
    if C.shape != (m, n) or C.dtype != A.dtype:
        raise ShapeError("kladder.gemm: c is %s %s, a @ b %s %s" % (
            C.shape, C.dtype, (m, n), A.dtype), _lib.USAGE)
    order, (lda, ldb, ldc) = _matrix_layout(
        [("a", A), ("b", B), ("c", C)], "gemm")
    ctx, stream, on_device = where("gemm", [A, B, C], device)
    if order == "F":
        _call(ctx, stream, lib.kl_gemm, t, m, n, k, float(alpha), A.ptr,
              lda, B.ptr, ldb, float(beta), C.ptr, ldc, on_device)
    else:
        # Row-major c = a b is column-major c' = b' a': the same memory.
        _call(ctx, stream, lib.kl_gemm, t, n, m, k, float(alpha), B.ptr,
              ldb, A.ptr, lda, float(beta), C.ptr, ldc, on_device)
    return c


@dataclass
class CGResult:
    """What kladder.cg found: x, the iterations made, the solve's own
    |r| / |b| at the end, and whether it met its stopping rule."""
    x: Any
    iterations: int
    residual: float
    converged: bool


def _csr(A, what):
    """A's CSR arrays as the library takes them: int64 offsets, int32
    columns, float64 values. SciPy keeps indptr as int32 for most
    matrices: it is converted (rows + 1 offsets); so are int64 indices,
    which must fit int32. The values are taken as they are."""
    for attr in ("indptr", "indices", "data", "shape"):
        if not hasattr(A, attr):
            raise TypeError("kladder.%s: A must be a CSR matrix "
                            "(scipy.sparse.csr_matrix or csr_array), not %s"
                            % (what, type(A).__name__))
    if getattr(A, "format", "csr") != "csr":
        raise TypeError("kladder.%s: A is in %s format, not CSR (A.tocsr())"
                        % (what, A.format))
    rows, cols = A.shape
    if rows != cols:
        raise ShapeError("kladder.%s: A is %dx%d, not square" % (what, rows,
                                                                cols),
                         _lib.USAGE)
    offsets = A.indptr if A.indptr.dtype == np.int64 else \
        A.indptr.astype(np.int64)
    columns = A.indices
    if columns.dtype != np.int32:
        if rows > np.iinfo(np.int32).max:
            raise UsageError("kladder.%s: %d columns do not fit int32"
                             % (what, cols), _lib.USAGE)
        columns = columns.astype(np.int32)
    if A.data.dtype != np.float64:
        raise _lib.DTypeError("kladder.%s: A's values are %s, not float64"
                              % (what, A.data.dtype), _lib.USAGE)
    return rows, [view(offsets, what, "A.indptr"),
                  view(columns, what, "A.indices"),
                  view(A.data, what, "A.data")]


def cg(A, b, tol=1e-8, maxit=1000, *, x0=None, grid=None, stencil=27,
       device=None):
    """Solve A x = b by conjugate gradients (A symmetric positive definite,
    a SciPy CSR matrix, or a CuPy one for device arrays; float64). tol > 0:
    stop at |r| <= tol |b| (tol from 1e-15 to 0.5) or after maxit
    iterations; tol = 0: exactly maxit. x0: the start (None: zeros; it is
    not written). A None with grid=n: the built-in 3D Poisson matrix on an
    n^3 grid, stencil 27 or 7 (host arrays only). Returns a CGResult; an
    unconverged solve raises NotConverged, its .result the CGResult."""
    B = view(b, "cg", "b")
    if len(B.shape) != 1:
        raise ShapeError("kladder.cg: b has shape %s, not a vector"
                         % (B.shape,), _lib.USAGE)
    B.dense("cg", "b")
    kl_type(B.dtype, ("f64",), "cg")
    if A is None:
        if grid is None:
            raise UsageError("kladder.cg: A is None and no grid= given",
                             _lib.USAGE)
        rows, parts, matrix = int(grid) ** 3, [], None
    else:
        rows, parts = _csr(A, "cg")
    if B.shape[0] != rows:
        raise ShapeError("kladder.cg: A has %d rows, b %d" % (rows,
                                                              B.shape[0]),
                         _lib.USAGE)
    if B.on_device:
        x = (_empty_like_device(b, B.shape, np.float64, "C") if x0 is None
             else (getattr(x0, "clone", None) or x0.copy)())
    else:
        x = np.zeros(rows) if x0 is None else np.array(x0, dtype=np.float64)
    X = view(x, "cg", "x0", writable=True)
    if X.shape != B.shape or X.dtype != np.float64:
        raise ShapeError("kladder.cg: x0 is %s %s, b %s float64"
                         % (X.shape, X.dtype, B.shape), _lib.USAGE)
    if A is not None:
        matrix = _lib.CGMatrix(rows, parts[1].size, parts[0].ptr,
                               parts[1].ptr, parts[2].ptr)
    res = _lib.CGResultC(size=ctypes.sizeof(_lib.CGResultC))
    ctx, stream, on_device = where("cg", parts + [B, X], device)
    with ctx.lock:
        if ctx.adopted is not None or stream is not None:
            ctx.adopt(stream)
        st = lib.kl_cg(ctx.handle,
                       ctypes.byref(matrix) if matrix is not None else None,
                       int(grid or 0), int(stencil), B.ptr, X.ptr,
                       float(tol), int(maxit), on_device, ctypes.byref(res))
    result = CGResult(x, int(res.iterations), float(res.residual),
                      bool(res.converged))
    if st == _lib.NOT_CONVERGED:
        raise _lib.error(st, result=result)
    if st != _lib.OK:
        raise _lib.error(st)
    return result


def dispatch(workload, dtype="f64", n=1 << 20, *, device=None):
    """The backend and rung an entry point would run for workload, dtype
    and size n on device (None: the host default), as the wisdom picks."""
    t = kl_type(dtype if not isinstance(dtype, str) or dtype not in
                _lib.TYPES else _arrays._NUMPY_NAMES[dtype],
                _lib.TYPES, "dispatch")
    ctx = _arrays.context(device or _arrays.host_device())
    backend, rung = ctypes.c_char_p(), ctypes.c_char_p()
    _lib.check(lib.kl_dispatch(ctx.handle, workload.encode(), t, int(n),
                               ctypes.byref(backend), ctypes.byref(rung)))
    return _lib.text(backend.value), _lib.text(rung.value)
