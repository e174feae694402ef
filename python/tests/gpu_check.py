"""A check for a GPU machine with CuPy and PyTorch (not run by pytest):

    python3 python/tests/gpu_check.py [N]     # N doubles, default 256M

It asserts kladder.reduce and kladder.gemm on CuPy arrays and PyTorch CUDA
tensors against CuPy's and PyTorch's own results, that the library got
the arrays' own pointers (no copy), and times kladder.reduce on a CuPy
array of N doubles against the C entry point called directly on the same
pointer (ctypes, no Python layer) and against CuPy's sum, then prints a
short table. Exit 0 when every assertion holds."""
import ctypes
import statistics
import sys
import time

import cupy
import torch

import kladder
from kladder import _arrays, _lib


def spy(name):
    calls, real = [], getattr(_lib.lib, name)
    setattr(_lib.lib, name, lambda *a: calls.append(a) or real(*a))
    return calls, lambda: setattr(_lib.lib, name, real)


def timed(fns, reps=50):
    """The median time of each of fns, their calls interleaved (one of each
    in turn, after one untimed), so that drift of the machine falls on all
    alike."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(reps):
        for fn, kept in zip(fns, times):
            t = time.perf_counter()
            fn()
            kept.append(time.perf_counter() - t)
    return [statistics.median(kept) for kept in times]


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 256 << 20
    print("kladder", kladder.__version__, "from", kladder.LIBRARY_PATH)
    # CuPy: reduce and gemm, by the arrays' pointers.
    x = cupy.random.standard_normal(n)
    calls, undo = spy("kl_reduce")
    got = kladder.reduce(x)
    undo()
    assert calls[0][3] == x.data.ptr, "reduce: not the CuPy array's pointer"
    want = float(x.sum())
    assert abs(got - want) <= 1e-9 * float(cupy.abs(x).sum()), (got, want)
    assert kladder.reduce(x, "min") == float(x.min())
    a = cupy.random.standard_normal((1000, 700))
    b = cupy.random.standard_normal((700, 900))
    c = cupy.empty((1000, 900))
    calls, undo = spy("kl_gemm")
    assert kladder.gemm(a, b, c) is c
    undo()
    assert c.data.ptr in calls[0], "gemm: not the CuPy array's pointer"
    assert cupy.allclose(c, a @ b, rtol=1e-10, atol=1e-10)
    print("cupy: reduce and gemm agree, no copy")
    # PyTorch: the same on CUDA tensors, on a stream of its own.
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        tx = torch.randn(1 << 24, device="cuda", dtype=torch.float64)
        calls, undo = spy("kl_reduce")
        tgot = kladder.reduce(tx)
        undo()
        assert calls[0][3] == tx.data_ptr(), "reduce: not the tensor's pointer"
        assert abs(tgot - tx.sum().item()) <= 1e-9 * tx.abs().sum().item()
        ta = torch.randn(513, 257, device="cuda", dtype=torch.float32)
        tb = torch.randn(257, 129, device="cuda", dtype=torch.float32)
        tc = kladder.gemm(ta, tb)
        assert torch.allclose(tc, ta @ tb, rtol=1e-3, atol=1e-3)
    print("torch: reduce and gemm agree, no copy")
    # Times: the package's call, the C entry on the same pointer, CuPy.
    ctx = _arrays.context("%s:%d" % (_arrays.gpu_backend(), x.device.id))
    out = ctypes.c_double()

    def c_entry():
        st = _lib.lib.kl_reduce(ctx.handle, b"sum", 1, x.data.ptr, n, 1,
                                ctypes.byref(out))
        assert st == 0, _lib.text(_lib.lib.kl_last_error())

    def cupy_sum():
        x.sum()
        cupy.cuda.get_current_stream().synchronize()

    names = ("kladder.reduce (Python)", "kl_reduce (C, same pointer)",
             "cupy.sum + synchronize")
    rows = list(zip(names, timed([lambda: kladder.reduce(x), c_entry,
                                  cupy_sum])))
    gb = n * 8 / 1e9
    print("\nreduce, %d doubles (%.2f GB), medians of 50, calls interleaved"
          % (n, gb))
    print("%-30s %12s %10s %8s" % ("call", "time", "GB/s", "vs C"))
    for name, t in rows:
        print("%-30s %9.3f ms %10.1f %7.2fx" % (name, t * 1e3, gb / t,
                                                t / rows[1][1]))
    print("\n(kladder run -w reduce -b cuda -n %d: the rungs' own times)" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
