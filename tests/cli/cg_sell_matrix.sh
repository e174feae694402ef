#!/bin/sh
# cg_sell_matrix.sh KLADDER: cuda-sell on matrices of their own, one
# written here by awk, one by arrowhead.sh. The 2D 5-point matrix on a
# 100 x 100 grid (10000 rows, the last slice in part; its slices smaller
# than its CSR, which has row offsets besides) is the rung's to solve: it
# must pass its check. The arrowhead of 3000 rows (the first row full:
# its slice 3000 entries wide) is not: the rung must stand aside, saying
# why, and every other rung pass. Skips (77) where the CUDA backend is not
# available.
set -u
. "$(dirname "$0")/arrowhead.sh"
kl=${1:?usage: cg_sell_matrix.sh KLADDER}
"$kl" list | grep -Eq '^  cuda +available' ||
  { echo "SKIP: no cuda here"; exit 77; }
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
for m in five arrow; do
  "$kl" run -w cg -b cuda -i "$tmp/$m.mtx" --reps 1 --warmup 0 \
    --no-ceiling >"$tmp/out" 2>&1
  rc=$?
  cat "$tmp/out"
  if [ "$rc" != 0 ] || grep -qE ' (FAIL|ERROR|WRONG[^ ]*)$' "$tmp/out"; then
    echo "FAIL: $m: exit $rc or a rung failed"; failures=$((failures + 1))
  fi
  # The table's row; and for the arrowhead the reason, which the report
  # wraps to its width (read here as one line).
  case $m in
  five) want='^cg +cuda-sell +cuda .* PASS$' why='' ;;
  arrow) want='^cg +cuda-sell +cuda .* ASIDE$'
    why="stands aside: cg: cuda-sell: the matrix's slices .* within 1/8 of its CSR's bytes" ;;
  esac
  grep -qE "$want" "$tmp/out" ||
    { echo "FAIL: $m: no line '$want'"; failures=$((failures + 1)); }
  [ -z "$why" ] || tr '\n' ' ' <"$tmp/out" | grep -qE "$why" ||
    { echo "FAIL: $m: no reason '$why'"; failures=$((failures + 1)); }
done
[ "$failures" = 0 ] || exit 1
echo "cuda-sell solved the 5-point matrix and stood aside for the arrowhead"
