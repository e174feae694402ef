#!/bin/sh
# check-skips.sh CTEST_OUTPUT LAST_TEST_LOG ALLOW_LIST MODE MIN_PASSED
# After a CTest run: every test that skipped said why (a line "SKIP:
# REASON" in its output), and each (test, reason) is one that
# ALLOW_LIST allows in MODE; at least MIN_PASSED tests passed (0: no
# minimum). CTEST_OUTPUT is what ctest printed (its closing lines list the
# skipped tests), LAST_TEST_LOG its Testing/Temporary/LastTest.log (each
# test's output).
# ALLOW_LIST: a line a rule, "MODES TEST REASON": MODES is a
# comma-separated list of the modes the rule holds in (or "any"), TEST and
# REASON extended regular expressions (REASON runs to the end of the line,
# spaces allowed) that the test's name and its reason must match.
# Exit 0 when all holds; 1 naming every skip not allowed, a skip with no
# reason, or too few passed; 2 on bad arguments.
set -eu
if [ $# -ne 5 ]; then
  echo "usage: check-skips.sh CTEST_OUTPUT LAST_TEST_LOG ALLOW_LIST MODE MIN_PASSED" >&2
  exit 2
fi
out=$1 last=$2 allow=$3 mode=$4 min=$5
for f in "$out" "$last" "$allow"; do
  [ -r "$f" ] || { echo "check-skips: cannot read $f" >&2; exit 2; }
done

# The summary line: "NN% tests passed, F tests failed out of T".
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$out" | tail -1)
[ -n "$summary" ] || { echo "check-skips: no CTest summary in $out" >&2; exit 2; }
failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests? failed.*/\1/')
total=$(echo "$summary" | sed -E 's/.* out of ([0-9]+).*/\1/')
skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$out")
nskipped=$(printf '%s' "$skipped" | grep -c . || true)
passed=$((total - failed - nskipped))

bad=0
for name in $skipped; do
  # The test's output in LastTest.log: from its "Test: NAME" line to the
  # end of its output; its last SKIP: line is the reason.
  reason=$(awk -v t="$name" '
    $0 ~ /^[0-9]+\/[0-9]+ Test: / { on = (substr($0, index($0, ": ") + 2) == t) }
    on && /^<end of output>/ { on = 0 }
    on && /^SKIP: / { r = substr($0, 7) }
    END { print r }' "$last")
  if [ -z "$reason" ]; then
    echo "check-skips: $name skipped without a reason (no SKIP: line)"
    bad=1
    continue
  fi
  ok=$(awk -v t="$name" -v r="$reason" -v m="$mode" '
    /^[[:space:]]*(#|$)/ { next }
    {
      modes = $1; test = $2
      reason = $0
      sub(/^[[:space:]]*[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+/, "", reason)
      n = split(modes, ms, ",")
      hit = 0
      for (i = 1; i <= n; i++) if (ms[i] == "any" || ms[i] == m) hit = 1
      if (hit && t ~ test && r ~ reason) { print "yes"; exit }
    }' "$allow")
  if [ "$ok" = yes ]; then
    echo "skip allowed: $name: $reason"
  else
    echo "check-skips: $name skipped, not allowed in mode $mode: $reason"
    bad=1
  fi
done
echo "check-skips: $passed passed, $nskipped skipped, $failed failed of $total (mode $mode)"
if [ "$passed" -lt "$min" ]; then
  echo "check-skips: $passed passed, fewer than $min"
  bad=1
fi
exit $bad
