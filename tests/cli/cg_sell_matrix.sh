#!/bin/sh
# cg_sell_matrix.sh KLADDER: the sliced ELLPACK rungs (cuda-sell,
# opencl-sell) on matrices of their own, one written here by awk, one by
# arrowhead.sh. The 2D 5-point matrix on a 100 x 100 grid (10000 rows,
# the last slice in part; its slices smaller than its CSR, which has row
# offsets besides) is theirs to solve: each must pass its check. The
# arrowhead of 3000 rows (the first row full: its slice 3000 entries
# wide) is not: each must stand aside, saying why, and every other rung
# pass. Each backend of the two that is available here is run; skips (77)
# where neither is.
set -u
. "$(dirname "$0")/arrowhead.sh"
kl=${1:?usage: cg_sell_matrix.sh KLADDER}
backends=
for b in cuda opencl; do
  "$kl" list | grep -Eq "^  $b +available" && backends="$backends $b"
done
[ -n "$backends" ] || { echo "SKIP: no cuda or opencl here"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-cg-sell-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
awk -v m=100 'BEGIN {
  print "%%MatrixMarket matrix coordinate real symmetric"
  print m * m, m * m, m * m + 2 * m * (m - 1)
  for (j = 0; j < m; j++) for (i = 0; i < m; i++) {
    r = 1 + i + m * j
    print r, r, 4
    if (i > 0) print r, r - 1, -1
    if (j > 0) print r, r - m, -1
  }
}' >"$tmp/five.mtx" || exit 1
arrowhead 3000 >"$tmp/arrow.mtx" || exit 1
failures=0
for b in $backends; do
  for m in five arrow; do
    "$kl" run -w cg -b "$b" -i "$tmp/$m.mtx" --reps 1 --warmup 0 \
      --no-ceiling >"$tmp/out" 2>&1
    rc=$?
    cat "$tmp/out"
    if [ "$rc" != 0 ] || grep -qE ' (FAIL|ERROR|WRONG[^ ]*)$' "$tmp/out"; then
      echo "FAIL: $b $m: exit $rc or a rung failed"
      failures=$((failures + 1))
    fi
    # The table's row; and for the arrowhead the reason, which the report
    # wraps to its width (read here as one line).
    case $m in
    five) want="^cg +$b-sell +$b .* PASS\$" why='' ;;
    arrow) want="^cg +$b-sell +$b .* ASIDE\$"
      why="stands aside: cg: $b-sell: the matrix's slices .* within 1/8 of its CSR's bytes" ;;
    esac
    grep -qE "$want" "$tmp/out" ||
      { echo "FAIL: $b $m: no line '$want'"; failures=$((failures + 1)); }
    [ -z "$why" ] || tr '\n' ' ' <"$tmp/out" | grep -qE "$why" ||
      { echo "FAIL: $b $m: no reason '$why'"; failures=$((failures + 1)); }
  done
done
[ "$failures" = 0 ] || exit 1
echo "the sliced rungs of$backends solved the 5-point matrix and stood aside for the arrowhead"
