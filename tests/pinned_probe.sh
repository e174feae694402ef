#!/bin/sh
# pinned_probe (pinned_probe.c): its bad input on any machine; where there
# is a GPU, every figure there and positive (else exit 77: skipped).
# Usage: pinned_probe.sh PROBE
probe=$1
fail() { echo "FAIL: $*"; exit 1; }
for arg in 12x 8 "1 2"; do
  # shellcheck disable=SC2086 # "1 2": two arguments, on purpose
  out=$("$probe" $arg 2>&1)
  code=$?
  [ "$code" = 2 ] || fail "'$arg': exit $code, want 2: $out"
  [ "$(echo "$out" | wc -l)" = 1 ] || fail "'$arg': not one line: $out"
  echo "$out" | grep -q "^pinned_probe: " || fail "'$arg': no message: $out"
done
out=$(timeout 100 "$probe" 65536 2>&1)
code=$?
echo "$out"
[ "$code" = 77 ] && { echo "SKIP: no CUDA device here"; exit 77; }
[ "$code" = 0 ] || fail "65536 bytes: exit $code"
# idle, cpu-wrote, cpu-read (and flushed where the CPU has clflushopt),
# each direction.
n=$(echo "$out" | grep -cE '^(h2d|d2h) +(idle|cpu-wrote|cpu-read) +[0-9.]+ +[0-9]+\.[0-9][0-9] ')
[ "$n" = 6 ] || fail "want 6 lines of idle, cpu-wrote and cpu-read, got $n"
echo "$out" | grep -q ' 0\.00 ' && fail "a rate of zero"
exit 0
