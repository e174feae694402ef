"""The package's tests run on the host backends (serial and OpenMP); the
device ones need CuPy or PyTorch and a GPU, and skip saying so where
either is missing."""
import pytest

import kladder

HOST = [b["name"] for b in kladder.backends()
        if b["available"] and b["host_memory"]]


@pytest.fixture(params=["serial", "openmp"])
def device(request):
    if request.param not in HOST:
        pytest.skip("backend %s not available here" % request.param)
    return request.param
