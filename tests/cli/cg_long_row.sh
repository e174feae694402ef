#!/bin/sh
# cg_long_row.sh KLADDER: cg on an arrowhead matrix of 3000 rows whose
# first row holds all 3000 nonzeros (diagonal 3000, the first column and
# row 1, the rest of the diagonal 2: diagonally dominant, so SPD), from
# arrowhead.sh. Every OpenCL rung must pass its check on it: opencl-stream's
# groups stage a row's nonzeros in chunks of 2048, and this row spans two.
# Skips (77) where the OpenCL backend is not available.
set -u
. "$(dirname "$0")/arrowhead.sh"
kl=${1:?usage: cg_long_row.sh KLADDER}
"$kl" list | grep -Eq '^  opencl +available' ||
  { echo "SKIP: no opencl here"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-cg-long-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
arrowhead 3000 >"$tmp/arrow.mtx" || exit 1
"$kl" run -w cg -b opencl -i "$tmp/arrow.mtx" --reps 1 --warmup 0 \
  --no-ceiling >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" = 0 ] || { echo "FAIL: exit $rc"; exit 1; }
grep -qE '^cg +opencl-stream +opencl .* PASS$' "$tmp/out" ||
  { echo "FAIL: opencl-stream did not pass"; exit 1; }
if grep -qE ' (FAIL|ERROR|WRONG[^ ]*)$' "$tmp/out"; then
  echo "FAIL: a rung failed"; exit 1
fi
echo "every OpenCL rung solved the arrowhead matrix"
