#!/bin/sh
# outputs.sh KLADDER: every whole-file output (report -o, report --markdown
# -o, run --html, tune -o) is written as the results files are: a link to a
# device or a pipe is written through, never replaced by a file; a regular
# file is replaced whole; no temporary file is left beside any of them.
# The device is /dev/null behind a link of our own, so that a writer that
# replaced what it was given would replace the link, not the device. A run
# killed before its end leaves no file behind.
kladder=$1
top=$(mktemp -d) || exit 1
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  [ -f err ] && { echo "== err"; cat err; }
  failures=$((failures + 1))
}

"$kladder" run -q -w read -b serial -n 4K --reps 3 --json a.json \
  >/dev/null 2>err || { fail "the run that makes a.json: exit $?"; exit 1; }

# through_pipe COMMAND...: run COMMAND, whose output is a pipe that a
# reader started in the background opens; the writer refuses a pipe that
# no process reads yet, so a refusal of that kind is tried again while the
# reader may still be starting (a loaded machine may start it late).
through_pipe() {
  tries=0
  while :; do
    "$@" >/dev/null 2>err && return 0
    status=$?
    grep -q "a pipe with no reader" err && [ "$tries" -lt 300 ] || return "$status"
    sleep 0.1
    tries=$((tries + 1))
  done
}

# write NAME PIPE COMMAND...: COMMAND writes the output NAME (a word in
# it); PIPE 1 where it is written once, so that a pipe can take it (tune
# rewrites its file after each workload: a pipe takes only the first).
write() {
  name=$1 pipe=$2
  shift 2
  # Through a link to a device: exit 0, the link and the device as they were.
  rm -f "$name"
  ln -s /dev/null "$name"
  "$@" >/dev/null 2>err || fail "$name through a link to /dev/null: exit $?"
  [ -L "$name" ] && [ "$(readlink "$name")" = /dev/null ] ||
    fail "$name: the link to /dev/null was replaced"
  [ -c /dev/null ] || fail "$name: /dev/null is no longer a device"
  # A pipe with a reader: it stays a pipe, and the reader gets the output.
  rm -f "$name" got
  if [ "$pipe" = 1 ] && mkfifo "$name" 2>/dev/null; then
    cat "$name" >got &
    reader=$!
    if through_pipe "$@"; then
      if [ -p "$name" ]; then
        wait "$reader"
        [ -s got ] || fail "$name: the pipe's reader got nothing"
      else
        fail "$name: the pipe was replaced"
      fi
    else
      fail "$name as a pipe: exit $?"
    fi
    # A reader still there waits for a writer that never comes.
    kill "$reader" 2>/dev/null
    wait "$reader" 2>/dev/null
    rm -f "$name"
  fi
  # A regular file: replaced whole.
  echo "contents from before" >"$name"
  "$@" >/dev/null 2>err || fail "$name over a file: exit $?"
  [ -f "$name" ] && [ -s "$name" ] && ! grep -q "contents from before" "$name" ||
    fail "$name: the file was not replaced whole"
  rm -f "$name"
  leftover=$(ls -A | grep -F "$name.tmp-")
  [ -z "$leftover" ] || fail "$name: a temporary file is left: $leftover"
}

write page.html 1 "$kladder" report a.json -o page.html
write page.md 1 "$kladder" report --markdown a.json -o page.md
write run.html 1 "$kladder" run -q -w read -b serial -n 4K --reps 3 --html run.html
write wisdom 0 "$kladder" tune -q -w reduce -b serial -n 4K --reps 3 -o wisdom

# A run killed before its end (SIGKILL, as mpirun ends the ranks left when
# one dies) leaves no results file and no temporary one: a regular file's
# temporary exists only while the results are written.
mkdir killed
( cd killed && exec "$kladder" run -q -w reduce -b serial -n 64K --reps 1000000 \
    --max-time 0 --json r.json --csv r.csv --trace r.trace >/dev/null 2>&1 ) &
runner=$!
sleep 2
kill -9 "$runner" 2>/dev/null
wait "$runner" 2>/dev/null
left=$(ls -A killed)
[ -z "$left" ] || fail "a killed run left: $left"

[ "$failures" = 0 ] && echo "outputs: a link to a device, a pipe and a file, each written as it is"
exit "$failures"
