"""The entry points against NumPy and SciPy on the host backends: awkward
sizes, every dtype each takes, bad inputs, and that the library gets the
caller's own memory."""
import threading

import numpy as np
import pytest

import kladder
from kladder import _lib

rng = np.random.default_rng(20261121)
SIZES = [1, 2, 3, 7, 31, 1009, 65537, (1 << 20) + 3]


def data(n, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


# ---- reduce
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_reduce(device, n, dtype, op):
    x = data(n, dtype)
    got = kladder.reduce(x, op, device=device)
    if op == "sum":
        if dtype == np.int32:
            assert got == np.sum(x, dtype=np.int64)
            assert got.dtype == np.int64
        else:
            want = np.sum(x, dtype=np.float64)
            bound = n * np.finfo(np.float64).eps * np.sum(np.abs(x.astype(np.float64)))
            assert abs(got - want) <= bound + 1e-300
            assert got.dtype == np.float64
    else:
        assert got == getattr(np, op)(x)
        assert got.dtype == dtype


def test_reduce_shapes_and_nan(device):
    x = data(6 * 7, np.float64).reshape(6, 7)
    assert kladder.reduce(x, "max", device=device) == x.max()
    assert kladder.reduce(np.asfortranarray(x), "min", device=device) == x.min()
    x[3, 4] = np.nan
    assert np.isnan(kladder.reduce(x, "min", device=device))
    assert np.isnan(kladder.reduce(x, "sum", device=device))


def test_reduce_list_and_default_device():
    assert kladder.reduce([1.0, 2.0, 3.5]) == 6.5


def test_reduce_bad_inputs():
    with pytest.raises(kladder.UsageError, match="at least 1"):
        kladder.reduce(np.zeros(0))
    for dtype in (np.int64, np.float16, np.complex128, np.uint8):
        with pytest.raises(kladder.DTypeError) as e:
            kladder.reduce(np.zeros(4, dtype=dtype))
        assert isinstance(e.value, TypeError) and e.value.status == _lib.USAGE
    with pytest.raises(kladder.DTypeError):
        kladder.reduce(np.zeros(4, dtype=">f8"))
    with pytest.raises(kladder.NotContiguousError, match="not contiguous"):
        kladder.reduce(np.zeros(10)[::2])
    with pytest.raises(kladder.NotContiguousError):
        kladder.reduce(np.zeros((4, 4))[:, :2])
    with pytest.raises(kladder.UsageError, match="op"):
        kladder.reduce(np.zeros(3), "mean")
    with pytest.raises(kladder.UsageError):
        kladder.reduce(np.zeros(3), device="nosuchbackend")


# ---- histogram
@pytest.mark.parametrize("n", [1, 255, 257, 4099, (1 << 20) + 1])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_histogram(device, n, dtype):
    x = rng.integers(0, 256, n).astype(np.uint8).view(dtype)
    got = kladder.histogram(x, device=device)
    assert got.dtype == np.uint64 and got.shape == (256,)
    assert np.array_equal(got, np.bincount(x.view(np.uint8), minlength=256))


def test_histogram_bytes_like():
    got = kladder.histogram(b"mississippi")
    assert got[ord("s")] == 4 and got[ord("i")] == 4 and got.sum() == 11
    assert kladder.histogram(bytearray(b"\x00\xff\xff"))[255] == 2


def test_histogram_bad_inputs():
    with pytest.raises(kladder.UsageError):
        kladder.histogram(np.zeros(0, dtype=np.uint8))
    with pytest.raises(kladder.DTypeError, match="view"):
        kladder.histogram(np.zeros(8, dtype=np.float64))
    with pytest.raises(kladder.NotContiguousError):
        kladder.histogram(np.zeros(8, dtype=np.uint8)[::3])


# ---- laplacian
def stencil(u, hs, order):
    """NumPy's f on the interior; hs in u's axis order."""
    f = np.zeros_like(u, dtype=np.float64)
    u = u.astype(np.float64)
    inner = tuple(slice(1, -1) for _ in range(3))
    for axis, h in enumerate(hs):
        lo = [slice(1, -1)] * 3
        hi = [slice(1, -1)] * 3
        lo[axis], hi[axis] = slice(0, -2), slice(2, None)
        f[inner] += (u[tuple(lo)] - 2 * u[inner] + u[tuple(hi)]) / h ** 2
    return f


@pytest.mark.parametrize("shape", [(3, 3, 3), (5, 7, 11), (17, 13, 19),
                                   (3, 31, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("h", [1.0, (0.5, 0.25, 2.0)])
def test_laplacian(device, shape, dtype, order, h):
    u = np.asarray(rng.standard_normal(shape), dtype=dtype, order=order)
    out = np.full(shape, 7.0, dtype=dtype, order=order)
    got = kladder.laplacian(u, h=h, out=out, device=device)
    assert got is out
    hs = np.broadcast_to(np.asarray(h, dtype=np.float64), (3,))
    want = stencil(u, hs, order)
    inner = tuple(slice(1, -1) for _ in range(3))
    tol = 1e-12 if dtype == np.float64 else 1e-4
    scale = np.max(np.abs(u)) * np.sum(4.0 / hs ** 2)
    assert np.max(np.abs(got[inner] - want[inner])) <= tol * scale
    mask = np.ones(shape, dtype=bool)
    mask[inner] = False
    assert np.all(got[mask] == 7.0)  # the boundary left as it was


def test_laplacian_small_grid_writes_nothing():
    u = np.ones((2, 5, 5))
    assert not np.any(kladder.laplacian(u))


def test_laplacian_bad_inputs():
    with pytest.raises(kladder.ShapeError):
        kladder.laplacian(np.zeros((4, 4)))
    with pytest.raises(kladder.DTypeError):
        kladder.laplacian(np.zeros((4, 4, 4), dtype=np.int32))
    with pytest.raises(kladder.NotContiguousError):
        kladder.laplacian(np.zeros((8, 4, 4))[::2])
    with pytest.raises(kladder.ShapeError):
        kladder.laplacian(np.zeros((4, 4, 4)), out=np.zeros((4, 4, 5)))
    with pytest.raises(kladder.ShapeError):
        kladder.laplacian(np.zeros((4, 4, 4)),
                          out=np.zeros((4, 4, 4), dtype=np.float32))
    with pytest.raises(kladder.NotContiguousError):
        kladder.laplacian(np.zeros((4, 4, 4)), out=np.zeros((4, 4, 4), order="F"))
    ro = np.zeros((4, 4, 4))
    ro.flags.writeable = False
    with pytest.raises(kladder.UsageError, match="read-only"):
        kladder.laplacian(np.zeros((4, 4, 4)), out=ro)
    with pytest.raises(TypeError):
        kladder.laplacian(np.zeros((4, 4, 4)), out=[0.0] * 64)
    with pytest.raises(kladder.UsageError, match="spacing|h"):
        kladder.laplacian(np.zeros((4, 4, 4)), h=0.0)


# ---- gemm
@pytest.mark.parametrize("mnk", [(1, 1, 1), (3, 5, 7), (17, 13, 11),
                                 (64, 64, 64), (97, 101, 89)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_gemm(device, mnk, dtype, order):
    m, n, k = mnk
    a = np.asarray(rng.standard_normal((m, k)), dtype=dtype, order=order)
    b = np.asarray(rng.standard_normal((k, n)), dtype=dtype, order=order)
    c0 = np.asarray(rng.standard_normal((m, n)), dtype=dtype, order=order)
    eps = np.finfo(dtype).eps
    want = a.astype(np.float64) @ b.astype(np.float64)
    bound = 2 * k * eps * (np.abs(a) @ np.abs(b)) + 1e-30
    got = kladder.gemm(a, b, device=device)
    assert got.shape == (m, n) and got.dtype == dtype
    assert np.all(np.abs(got - want) <= bound)
    c = c0.copy(order=order)
    out = kladder.gemm(a, b, c, alpha=0.5, beta=-2.0, device=device)
    assert out is c
    want2 = 0.5 * want - 2.0 * c0.astype(np.float64)
    assert np.all(np.abs(c - want2) <= bound + 4 * eps * np.abs(c0))


@pytest.mark.parametrize("order", ["C", "F"])
def test_gemm_blocks_with_leading_dimension(order):
    big_a = np.asarray(rng.standard_normal((40, 40)), order=order)
    big_b = np.asarray(rng.standard_normal((40, 40)), order=order)
    big_c = np.zeros((40, 40), order=order)
    a, b, c = big_a[3:20, 5:16], big_b[2:13, 1:30], big_c[4:21, 7:36]
    kladder.gemm(a, b, c)
    assert np.allclose(c, a @ b, rtol=1e-12, atol=1e-12)
    assert np.all(big_c[:4] == 0) and np.all(big_c[21:] == 0)


def test_gemm_bad_inputs():
    a, b = np.ones((3, 4)), np.ones((4, 5))
    with pytest.raises(kladder.ShapeError):
        kladder.gemm(a, np.ones((5, 4)))
    with pytest.raises(kladder.ShapeError):
        kladder.gemm(a, b, np.zeros((3, 4)))
    with pytest.raises(kladder.ShapeError):
        kladder.gemm(np.ones(3), b)
    with pytest.raises(kladder.DTypeError):
        kladder.gemm(a.astype(np.int32), b.astype(np.int32))
    with pytest.raises(kladder.DTypeError):
        kladder.gemm(a, b.astype(np.float32))
    with pytest.raises(kladder.NotContiguousError, match="all"):
        kladder.gemm(a, np.asfortranarray(np.ones((4, 5)) + np.eye(4, 5)),
                     np.zeros((3, 5)))
    with pytest.raises(kladder.NotContiguousError):
        kladder.gemm(np.ones((3, 8))[:, ::2], b)  # no unit stride
    every_other_row = rng.standard_normal((6, 4))[::2]  # a leading dimension
    assert np.allclose(kladder.gemm(every_other_row, b), every_other_row @ b)
    with pytest.raises(kladder.UsageError, match="at least 1"):
        kladder.gemm(np.ones((0, 4)), b)
    with pytest.raises(kladder.UsageError, match="beta"):
        kladder.gemm(a, b, beta=1.0)


# ---- cg
def poisson_1d(n):
    import scipy.sparse as sp
    return sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")


@pytest.mark.parametrize("n", [1, 2, 7, 101, 1009])
def test_cg(device, n):
    sp = pytest.importorskip("scipy.sparse")
    from scipy.sparse.linalg import spsolve
    A = poisson_1d(n)
    b = rng.standard_normal(n)
    res = kladder.cg(A, b, tol=1e-12, maxit=5000, device=device)
    assert res.converged and res.residual <= 1e-12
    assert 0 < res.iterations <= 5000
    want = spsolve(A.tocsc(), b) if n > 1 else b / 2.5
    assert np.allclose(res.x, want, rtol=1e-9, atol=1e-9)
    # A csr_array, int64 indices, and a start x0 that is not written.
    B = sp.csr_array(A)
    B.indices = B.indices.astype(np.int64)
    x0 = np.ones(n)
    res2 = kladder.cg(B, b, tol=1e-12, maxit=5000, x0=x0, device=device)
    assert np.allclose(res2.x, want, rtol=1e-9, atol=1e-9)
    assert np.all(x0 == 1)


def test_cg_grid_matches_scipy():
    sp = pytest.importorskip("scipy.sparse")
    from scipy.sparse.linalg import spsolve
    n = 5
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    i = sp.identity(n)
    A7 = (sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i)
          + sp.kron(sp.kron(i, i), t)).tocsc()
    b = rng.standard_normal(n ** 3)
    res = kladder.cg(None, b, tol=1e-12, maxit=1000, grid=n, stencil=7)
    assert np.allclose(res.x, spsolve(A7, b), rtol=1e-9, atol=1e-9)
    # The same matrix given as CSR.
    res2 = kladder.cg(A7.tocsr(), b, tol=1e-12, maxit=1000)
    assert np.allclose(res2.x, res.x, rtol=1e-9, atol=1e-9)


def test_cg_not_converged_carries_result():
    pytest.importorskip("scipy.sparse")
    A, b = poisson_1d(200), np.ones(200)
    with pytest.raises(kladder.NotConverged) as e:
        kladder.cg(A, b, tol=1e-12, maxit=3)
    r = e.value.result
    assert isinstance(r, kladder.CGResult)
    assert not r.converged and r.iterations == 3 and r.residual > 1e-12
    assert r.x.shape == (200,) and np.any(r.x != 0)
    assert e.value.status == _lib.NOT_CONVERGED
    fixed = kladder.cg(A, b, tol=0, maxit=3)  # fixed mode: exactly maxit
    assert fixed.converged and fixed.iterations == 3


def test_cg_bad_inputs():
    sp = pytest.importorskip("scipy.sparse")
    A = poisson_1d(10)
    with pytest.raises(kladder.ShapeError):
        kladder.cg(A, np.ones(11))
    with pytest.raises(kladder.ShapeError):
        kladder.cg(sp.csr_matrix(np.ones((3, 4))), np.ones(3))
    with pytest.raises(kladder.DTypeError):
        kladder.cg(A.astype(np.float32), np.ones(10))
    with pytest.raises(kladder.DTypeError):
        kladder.cg(A, np.ones(10, dtype=np.float32))
    with pytest.raises(TypeError, match="CSR"):
        kladder.cg(A.tocsc(), np.ones(10))
    with pytest.raises(TypeError):
        kladder.cg(np.eye(10), np.ones(10))
    with pytest.raises(kladder.UsageError):
        kladder.cg(A, np.ones(10), tol=0.9)
    with pytest.raises(kladder.UsageError):  # not positive definite
        kladder.cg(-A, np.ones(10))


# ---- no copy: the library gets the caller's pointers
def spy(monkeypatch, name):
    calls = []
    real = getattr(_lib.lib, name)

    def wrapper(*args):
        calls.append(args)
        return real(*args)
    monkeypatch.setattr(_lib.lib, name, wrapper)
    return calls


def test_zero_copy_reduce(monkeypatch):
    calls = spy(monkeypatch, "kl_reduce")
    x = data(1000, np.float64)
    kladder.reduce(x)
    assert calls[0][3] == x.__array_interface__["data"][0]


def test_zero_copy_histogram(monkeypatch):
    calls = spy(monkeypatch, "kl_histogram")
    raw = bytearray(b"abcabc")
    x = np.frombuffer(raw, dtype=np.uint8)
    kladder.histogram(x)
    assert calls[0][1] == x.ctypes.data


def test_zero_copy_gemm_and_laplacian(monkeypatch):
    calls = spy(monkeypatch, "kl_gemm")
    a, b = np.asfortranarray(np.ones((4, 3))), np.asfortranarray(np.ones((3, 2)))
    c = np.zeros((4, 2), order="F")
    assert kladder.gemm(a, b, c) is c and np.all(c == 3)
    ptrs = {calls[0][6], calls[0][8], calls[0][11]}
    assert ptrs == {a.ctypes.data, b.ctypes.data, c.ctypes.data}
    calls = spy(monkeypatch, "kl_laplacian")
    u = np.ones((4, 4, 4))
    f = np.empty_like(u)
    kladder.laplacian(u, out=f)
    assert calls[0][8:10] == (u.ctypes.data, f.ctypes.data)


def test_zero_copy_cg(monkeypatch):
    pytest.importorskip("scipy.sparse")
    calls = spy(monkeypatch, "kl_cg")
    A = poisson_1d(20)
    A.indptr = A.indptr.astype(np.int64)  # kept as it is
    b = np.ones(20)
    kladder.cg(A, b)
    m = calls[0][1]._obj
    assert (m.offsets, m.columns, m.values) == (
        A.indptr.ctypes.data, A.indices.ctypes.data, A.data.ctypes.data)
    assert calls[0][4] == b.ctypes.data


# ---- threads and the module's contexts
def test_threads_share_contexts(device):
    x = data(100003, np.float64)
    want = kladder.reduce(x, device=device)
    got, errors = [], []

    def work():
        try:
            for _ in range(20):
                got.append(kladder.reduce(x, device=device))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 80 and all(g == want for g in got)


def test_dispatch_and_backends():
    names = [b["name"] for b in kladder.backends()]
    assert "serial" in names
    backend, rung = kladder.dispatch("reduce", "f64", 1 << 20, device="serial")
    assert backend == "serial" and rung
    with pytest.raises(kladder.UsageError):
        kladder.dispatch("nosuchworkload")


def test_library_is_the_packages():
    import os
    if not os.environ.get("KLADDER_LIBRARY"):
        here = os.path.dirname(os.path.abspath(kladder.__file__))
        assert kladder.LIBRARY_PATH.startswith(os.path.join(here, "lib"))
