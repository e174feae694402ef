#!/bin/sh
# pipes.sh KLADDER: every command that reads a results or wisdom file
# (compare, report, explain --results, tune --check) refuses a named pipe
# that no process writes to at once, in one line, instead of waiting for a
# writer forever; a pipe that a process writes to is read.
kladder=$1
command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout here"; exit 77; }
top=$(mktemp -d) || exit 1
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1
mkfifo pipe 2>/dev/null || { echo "SKIP: no mkfifo here"; exit 77; }
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
"$kladder" run -q -w read -b serial -n 4K --reps 3 --json a.json \
  >/dev/null 2>&1 || { echo "FAIL: the run that makes a.json"; exit 1; }

# refused CODE COMMAND...: COMMAND ends within 20 s with CODE and one line
# (tune --check's report on standard output, the others' error on
# standard error) saying the pipe has no writer.
refused() {
  want=$1
  shift
  timeout 20 "$@" >out 2>err
  rc=$?
  [ "$rc" != 124 ] || { fail "$*: still waiting after 20 s"; return; }
  [ "$rc" = "$want" ] || fail "$*: exit $rc, not $want"
  cat out err >both
  [ "$(wc -l <both)" = 1 ] || fail "$*: not one line"
  grep -q "a pipe that no process writes to" both || {
    cat both
    fail "$*: the line does not say the pipe has no writer"
  }
}
refused 2 "$kladder" compare a.json pipe
refused 2 "$kladder" report pipe -o page.html
refused 2 "$kladder" explain -w read --results pipe
refused 1 "$kladder" tune --check pipe
[ ! -e page.html ] || fail "report made a page from a pipe with no writer"

# A writer already there: read.
# The writer, started in the background, may open the pipe late on a
# loaded machine: a refusal for want of a writer is tried again a while.
cat a.json >pipe &
writer=$!
tries=0
while :; do
  timeout 20 "$kladder" compare a.json pipe >out 2>err && break
  rc=$?
  grep -q "a pipe that no process writes to" err && [ "$tries" -lt 300 ] || {
    fail "compare of a pipe with a writer: exit $rc"
    break
  }
  sleep 0.1
  tries=$((tries + 1))
done
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
[ "$failures" = 0 ] && echo "pipes: refused at once without a writer, read with one"
exit "$failures"
