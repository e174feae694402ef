"""Device arrays (__cuda_array_interface__): CuPy arrays and PyTorch CUDA
tensors go to the CUDA backend's context of their device by their own
pointer. Each test skips, saying why, without the framework, a GPU, or a
kladder built with CUDA."""
import numpy as np
import pytest

import kladder
from kladder import _lib


def _gpu_ready():
    names = {b["name"]: b for b in kladder.backends()}
    gpu = names.get("cuda") or names.get("hip")
    if not gpu or not gpu["available"]:
        pytest.skip("no CUDA backend here: %s" % (gpu["detail"] if gpu else
                                                  "not built"))


@pytest.fixture
def cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no GPU")
    except Exception as e:  # noqa: BLE001 - no driver
        pytest.skip("CuPy sees no GPU: %s" % e)
    _gpu_ready()
    return cp


@pytest.fixture
def torch():
    t = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not t.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    _gpu_ready()
    return t


def spy(monkeypatch, name):
    calls = []
    real = getattr(_lib.lib, name)
    monkeypatch.setattr(_lib.lib, name,
                        lambda *a: calls.append(a) or real(*a))
    return calls


@pytest.mark.parametrize("n", [1, 1009, (1 << 20) + 3])
def test_cupy_reduce(cupy, monkeypatch, n):
    x = cupy.random.standard_normal(n)
    calls = spy(monkeypatch, "kl_reduce")
    got = kladder.reduce(x)
    assert calls[0][3] == x.data.ptr and calls[0][5] == 1  # on device
    assert abs(got - float(x.sum())) <= 1e-9 * float(abs(x).sum())
    assert kladder.reduce(x, "max") == float(x.max())


def test_cupy_gemm_and_stream(cupy, monkeypatch):
    a = cupy.random.standard_normal((129, 65))
    b = cupy.random.standard_normal((65, 33))
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        c = cupy.zeros((129, 33))
        calls = spy(monkeypatch, "kl_gemm")
        out = kladder.gemm(a, b, c)
    assert out is c and c.data.ptr in calls[0]
    assert cupy.allclose(c, a @ b, rtol=1e-12, atol=1e-12)
    assert np.array_equal(cupy.asnumpy(kladder.histogram(
        cupy.arange(256, dtype=cupy.uint8))), np.ones(256, dtype=np.uint64))


def test_cupy_cg(cupy):
    sparse = pytest.importorskip("cupyx.scipy.sparse")
    import scipy.sparse as sp
    n = 500
    A = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    b = np.ones(n)
    host = kladder.cg(A, b, tol=1e-12)
    dev = kladder.cg(sparse.csr_matrix(A), cupy.asarray(b), tol=1e-12)
    assert np.allclose(cupy.asnumpy(dev.x), host.x, rtol=1e-9, atol=1e-9)


def test_torch_reduce_gemm(torch, monkeypatch):
    x = torch.randn(100003, device="cuda", dtype=torch.float64)
    calls = spy(monkeypatch, "kl_reduce")
    got = kladder.reduce(x)
    assert calls[0][3] == x.data_ptr()
    assert abs(got - x.sum().item()) <= 1e-9 * x.abs().sum().item()
    a = torch.randn(64, 48, device="cuda", dtype=torch.float32)
    b = torch.randn(48, 40, device="cuda", dtype=torch.float32)
    c = kladder.gemm(a, b)
    assert c.is_cuda and torch.allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_torch_noncontiguous(torch):
    x = torch.zeros(10, device="cuda")[::2]
    with pytest.raises(kladder.NotContiguousError):
        kladder.reduce(x)
