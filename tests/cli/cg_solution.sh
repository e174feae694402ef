#!/bin/sh
# cg_solution.sh KLADDER MATRIX RHS WANT ARGS...: solves a user's own
# system, `KLADDER run -w cg --matrix MATRIX --rhs RHS --solution x.mtx
# ARGS`, in a fresh directory, and compares the x.mtx it wrote with WANT
# (both Matrix Market array files) value by value: the same rows, each
# |x - want| <= 1e-9 (1 + |want|). The run must pass (exit 0), its note
# must name the rung that wrote x, and x.mtx must begin with an array
# header and say which rung it came from.
kladder=$1 matrix=$2 rhs=$3 want=$4
shift 4
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$kladder" run -w cg --matrix "$matrix" --rhs "$rhs" --solution "$dir/x.mtx" \
  -q "$@" >"$dir/table.txt" 2>&1
code=$?
cat "$dir/table.txt"
if [ "$code" != 0 ]; then
  echo "FAILED: kladder exited $code"
  exit 1
fi
# The note may wrap (a long temporary path): its lines joined.
tr '\n' ' ' <"$dir/table.txt" |
  grep -Eq "note: .*cg: solution file '[^']*' written from rung +[a-z]" ||
  { echo "FAILED: no note of the solution"; exit 1; }
head -n 1 "$dir/x.mtx" | grep -q '^%%MatrixMarket matrix array real general$' ||
  { echo "FAILED: x.mtx has no array header"; exit 1; }
grep -q '^% rung ' "$dir/x.mtx" || { echo "FAILED: x.mtx names no rung"; exit 1; }
cat "$dir/x.mtx"
# The values of an array file: after the header, comments and blank lines,
# the size line, then one value a line.
values() {
  awk '/^%/ || /^[ \t\r]*$/ { next } !sized { sized = 1; next } { print $1 }' "$1"
}
values "$dir/x.mtx" >"$dir/got"
values "$want" >"$dir/want"
if ! paste "$dir/got" "$dir/want" | awk '
  { n++; d = $1 - $2; if (d < 0) d = -d; w = $2 < 0 ? -$2 : $2
    if ($1 == "" || $2 == "" || d > 1e-9 * (1 + w)) {
      print "FAILED: value " n ": got " $1 ", want " $2; bad = 1 } }
  END { if (n == 0) { print "FAILED: no values"; bad = 1 }
        exit bad }'; then
  exit 1
fi
echo "ok: x.mtx is the known solution ($(wc -l <"$dir/got") values)"
