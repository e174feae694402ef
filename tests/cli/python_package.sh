#!/bin/sh
# python_package.sh SOURCE
# CTest's `python-package`: builds the Python package's wheel from SOURCE
# (pyproject.toml: scikit-build-core over this CMake project), installs it
# into a fresh virtual environment and runs SOURCE/python/tests there with
# pytest, against the libkladder.so the wheel installed. Everything lives
# in one temporary folder, removed at the end; SOURCE is not written.
# Skips (exit 77, one SKIP: line) without python3, its venv module, pip in
# the venv, or where numpy, scipy, pytest and scikit-build-core cannot be
# installed into the venv (pip reaches PyPI, or a mirror pip is set up
# for). The wheel here is built without the GPU backends (KL_CUDA and
# KL_OPENACC OFF): the package's device tests need a GPU and CuPy or
# PyTorch (python/tests/gpu_check.py is their check on a GPU machine).
set -eu
source=$1
skip() { echo "SKIP: $*"; exit 77; }
command -v python3 >/dev/null 2>&1 || skip "no python3 here"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
fail() { echo "FAIL: $*"; exit 1; }
# quiet LOG COMMAND...: its output to LOG, the end of it shown on failure.
quiet() {
  log=$1
  shift
  "$@" >"$log" 2>&1 || { tail -40 "$log"; fail "$*"; }
}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INPUT=1
export PYTHONDONTWRITEBYTECODE=1
unset KLADDER_LIBRARY KLADDER_MODULE_DIR PYTHONPATH

python3 -m venv "$tmp/venv" >"$tmp/venv.log" 2>&1 ||
  skip "no python3-venv here (python3 -m venv: $(grep . "$tmp/venv.log" | head -1))"
py=$tmp/venv/bin/python
"$py" -m pip --version >/dev/null 2>&1 || skip "no pip in a python3 venv here"
"$py" -m pip install numpy scipy pytest 'scikit-build-core>=0.10' \
  >"$tmp/tools.log" 2>&1 ||
  skip "cannot install numpy, scipy, pytest and scikit-build-core into a venv: $(grep -i error "$tmp/tools.log" | tail -1)"

# pandas, where it installs, for Report.to_pandas (its test skips without).
"$py" -m pip install pandas >/dev/null 2>&1 || echo "note: no pandas in the venv"

# The wheel, built outside SOURCE (its build folder in $tmp), and what it
# holds: the library, the command, the package; no headers.
quiet "$tmp/wheel.log" "$py" -m pip wheel --no-build-isolation --no-deps \
  -w "$tmp/dist" --config-settings "build-dir=$tmp/build" \
  --config-settings cmake.define.KL_CUDA=OFF \
  --config-settings cmake.define.KL_OPENACC=OFF "$source"
wheel=$(ls "$tmp"/dist/kladder-*.whl)
"$py" - "$wheel" <<'PY' || fail "the wheel's contents"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for want in ("kladder/__init__.py", "kladder/bin/kladder"):
    assert want in names, "%s not in the wheel" % want
assert any(n.startswith("kladder/lib/libkladder.so.") for n in names), \
    "no libkladder.so in the wheel"
extra = [n for n in names if n.startswith(("kladder/include/", "kladder/share/"))
         or n.endswith(".a")]
assert not extra, "in the wheel but not for it: %s" % extra
print("ok: the wheel holds the package, libkladder.so and the command")
PY
quiet "$tmp/install.log" "$py" -m pip install --no-deps --no-index "$wheel"

# The tests, copied out of SOURCE (pytest writes nothing there), run from
# $tmp against the package installed.
cp -R "$source/python/tests" "$tmp/tests"
cd "$tmp"
"$py" -c 'import kladder, sys; print("kladder", kladder.__version__, "at", kladder.LIBRARY_PATH)'
"$tmp/venv/bin/kladder" list >/dev/null || fail "the kladder command of the venv"
"$py" -m pytest -q -rs -p no:cacheprovider --basetemp="$tmp/pytest" "$tmp/tests" ||
  fail "pytest over the installed package"
