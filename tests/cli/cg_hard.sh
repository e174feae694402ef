#!/bin/sh
# cg_hard.sh KLADDER SPD_GEN: cg on hard matrices. spd_gen makes sparse SPD
# matrices of 1000 rows of about condition 1e2, 1e4, 1e6 and 1e8 (a band,
# T^2 + sI as in SciPy's example; a random sparse one scaled D A D; a 2D
# diffusion problem with a checkerboard of coefficients), and every cg
# rung of every backend here that takes a matrix must solve each to its
# tolerance and pass its check, with the default cap on iterations (a
# matrix file's: 20 a row; CG in double needs 13,066 on the band of
# condition 1e8).
set -u
kl=${1:?usage: cg_hard.sh KLADDER SPD_GEN}
gen=${2:?usage: cg_hard.sh KLADDER SPD_GEN}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-cg-hard-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
for kind in band random poisson; do
  for kappa in 1e2 1e4 1e6 1e8; do
    m=$tmp/$kind-$kappa.mtx
    "$gen" "$kind" 1000 "$kappa" 7 >"$m" || { echo "FAIL: spd_gen $kind $kappa"; exit 1; }
    "$kl" run -w cg -b "*" -i "$m" --reps 1 --warmup 0 --no-ceiling >"$tmp/out" 2>&1
    rc=$?
    rows=$(grep -cE '^cg +[a-z0-9-]+ +[a-z]+ .* PASS$' "$tmp/out")
    if [ "$rc" != 0 ] || grep -qE ' (FAIL|ERROR)$' "$tmp/out" || [ "$rows" -lt 2 ]; then
      echo "FAIL: $kind, condition $kappa: exit $rc, $rows rungs passed"
      grep -E '^cg |iterations|residual' "$tmp/out"
      failures=$((failures + 1))
    else
      echo "ok: $kind, condition $kappa: $rows rungs passed"
    fi
  done
done
[ "$failures" = 0 ] || { echo "$failures matrices failed"; exit 1; }
echo "every rung here solved every matrix"
