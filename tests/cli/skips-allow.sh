#!/bin/sh
# skips-allow.sh CHECKER ALLOW_LIST: CTest's skips-allow-list. The allow-list
# is well formed (each rule: modes from plain, optional and any; a test
# and a reason pattern that awk takes), and the checker
# (scripts/check-skips.sh) holds on a made-up CTest run: an allowed skip
# passes, one not allowed fails, one with no SKIP: line fails, and too few
# passed fails.
set -u
checker=$1 allow=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

awk '/^[[:space:]]*(#|$)/ { next }
  NF < 3 { print "line " NR ": fewer than three fields"; bad = 1; next }
  { n = split($1, ms, ",")
    for (i = 1; i <= n; i++)
      if (ms[i] != "plain" && ms[i] != "optional" && ms[i] != "any") {
        print "line " NR ": unknown mode " ms[i]; bad = 1 }
    if ("x" ~ $2) {} }
  END { exit bad }' "$allow" || fail "$allow is malformed"
echo "ok: $allow is well formed"

# A made-up run: three tests, two skipped.
cat >"$dir/out" <<'OUT'
67% tests passed, 0 tests failed out of 3

The following tests did not run:
	  2 - rungs-cuda-map (Skipped)
	  3 - mystery (Skipped)
OUT
cat >"$dir/last" <<'LOG'
2/3 Test: rungs-cuda-map
Output:
----------------------------------------------------------
SKIP: backend cuda not available here: no cuda device: no driver
<end of output>
3/3 Test: mystery
Output:
----------------------------------------------------------
SKIP: a reason no rule allows
<end of output>
LOG
printf 'any ^rungs-cuda-.*$ ^backend cuda not available here\n' >"$dir/allow"
sh "$checker" "$dir/out" "$dir/last" "$dir/allow" plain 1 >"$dir/r" 2>&1 &&
  fail "a skip not allowed passed: $(cat "$dir/r")"
grep -q "mystery skipped, not allowed" "$dir/r" || fail "no line for the skip not allowed"
grep -q "skip allowed: rungs-cuda-map" "$dir/r" || fail "the allowed skip not said"
printf 'any ^mystery$ ^a reason\n' >>"$dir/allow"
sh "$checker" "$dir/out" "$dir/last" "$dir/allow" plain 1 >"$dir/r" 2>&1 ||
  fail "every skip allowed, yet: $(cat "$dir/r")"
sh "$checker" "$dir/out" "$dir/last" "$dir/allow" plain 2 >"$dir/r" 2>&1 &&
  fail "1 passed against a minimum of 2 passed"
sed 's/^SKIP: a reason no rule allows$/why not/' "$dir/last" >"$dir/last2"
sh "$checker" "$dir/out" "$dir/last2" "$dir/allow" plain 1 >"$dir/r" 2>&1 &&
  fail "a skip without a reason passed"
grep -q "mystery skipped without a reason" "$dir/r" || fail "no line for the skip without a reason"
echo "ok: the checker passes allowed skips and fails the others"
