#!/bin/sh
# signals.sh KLADDER: an interrupted run keeps its finished rungs.
#   1. SIGINT during a run: exit 130, the table and the CSV and JSON files
#      hold the rungs that finished (complete, valid, "interrupted" set),
#      no temporary file is left.
#   2. SIGTERM: the same with exit 143.
#   3. Two signals during one long repetition: exit at once (130), the
#      results files absent and no temporary file left.
#   4. SIGINT during `kladder tune`'s second workload: exit 130, the wisdom
#      file holds the first workload's lines alone, whole (tune --check
#      takes it), no temporary file left.
# Each run is the serial backend's gemm or map at sizes where a repetition
# takes a fraction of a second (1) or seconds (3).
kladder=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*"
  for f in "$dir"/*.txt "$dir"/*.err; do [ -f "$f" ] && { echo "== $f"; tail -5 "$f"; }; done
  exit 1
}

# wait_for PATTERN FILE WHAT: until FILE has a line matching PATTERN (30 s
# at most: then the run $pid is killed and the test fails, naming WHAT).
wait_for() {
  tries=0
  until grep -q "$1" "$2" 2>/dev/null; do
    sleep 0.1
    tries=$((tries + 1))
    [ $tries -lt 300 ] || { kill -9 $pid; fail "$3 in 30 s"; }
  done
}

# run NAME SIGNAL... : starts a run, waits for its first rung to finish,
# sends each signal (0.3 s apart), and leaves its exit code in $code.
run() {
  name=$1
  shift
  "$kladder" run -w stream,map -b serial -n 2M --reps 100000 --max-time 3 \
    --csv "$dir/$name.csv" --json "$dir/$name.json" \
    >"$dir/$name.txt" 2>"$dir/$name.err" &
  pid=$!
  # The first rung's line ("... median") says one has finished.
  wait_for median "$dir/$name.err" "$name: no rung finished"
  for sig in "$@"; do
    kill -s "$sig" $pid 2>/dev/null
    sleep 0.3
  done
  wait $pid
  code=$?
}

no_temporaries() {
  left=$(ls "$dir" | grep -F ".tmp-")
  [ -z "$left" ] || fail "$1: temporary files left: $left"
}

# results NAME: the CSV and the JSON hold the finished rungs, and say so.
results() {
  rows=$(($(wc -l <"$dir/$1.csv") - 1))
  [ "$rows" -ge 1 ] || fail "$1: no rows in the CSV"
  head -1 "$dir/$1.csv" | grep -q ",interrupted" || fail "$1: no interrupted column"
  if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True, "interrupted not true"
assert len(d["results"]) == int(sys.argv[2]), "results: %d" % len(d["results"])
assert all(r["check"] == "PASS" for r in d["results"])
import csv
rows = list(csv.DictReader(open(sys.argv[3])))
assert all(r["interrupted"] == "1" for r in rows), "the CSV says not interrupted"
' "$dir/$1.json" "$rows" "$dir/$1.csv" || fail "$1: the JSON or the CSV"
  fi
  grep -q "^interrupted: the run was stopped" "$dir/$1.txt" || fail "$1: the table does not say so"
  grep -q "kladder: interrupted" "$dir/$1.err" || fail "$1: no message"
}

run int INT
[ "$code" = 130 ] || fail "SIGINT: exit $code, not 130"
results int
no_temporaries int
echo "ok: SIGINT, exit 130, $rows finished rungs written"

run term TERM
[ "$code" = 143 ] || fail "SIGTERM: exit $code, not 143"
results term
no_temporaries term
echo "ok: SIGTERM, exit 143, $rows finished rungs written"

# Two signals inside one repetition of many seconds: gemm's naive loop at
# 2000^3 (16 GFLOP; 0.2 s at 512^3 on the H100 machine's Xeon, so at
# least 5 s a repetition there; 1000^3 was short enough there that the run
# ended between the two signals). The signals go once the rung's progress
# line is out, so that both land inside a repetition, not in the set-up.
"$kladder" run -w gemm -r serial-naive -n 2000 --reps 5 \
  --csv "$dir/twice.csv" --json "$dir/twice.json" \
  >"$dir/twice.txt" 2>"$dir/twice.err" &
pid=$!
wait_for serial-naive "$dir/twice.err" "twice: the rung did not start"
sleep 0.5
kill -INT $pid
sleep 0.3
kill -INT $pid
wait $pid
code=$?
[ "$code" = 130 ] || fail "twice: exit $code, not 130"
[ ! -e "$dir/twice.csv" ] && [ ! -e "$dir/twice.json" ] ||
  fail "twice: results files were left"
no_temporaries twice
echo "ok: a second SIGINT quits at once, exit 130, nothing left"

# kladder tune: map (f32, its one type) finishes, then SIGINT while
# reduce's first type runs (8M at 1000 repetitions: two seconds a rung).
"$kladder" tune -w map,reduce -b serial -n 1K,8M --reps 1000 \
  -o "$dir/wisdom.txt" >"$dir/tune.txt" 2>"$dir/tune.err" &
pid=$!
wait_for "^tune: reduce" "$dir/tune.err" "tune: reduce did not start"
sleep 0.3
kill -INT $pid
wait $pid
code=$?
[ "$code" = 130 ] || fail "tune: exit $code, not 130"
grep -q "^pick d0 map f32 0 serial " "$dir/wisdom.txt" ||
  fail "tune: map's finished lines not written"
if grep -q "reduce" "$dir/wisdom.txt"; then
  fail "tune: the unfinished workload written"
fi
"$kladder" tune --check "$dir/wisdom.txt" >"$dir/check.txt" ||
  fail "tune: the file written is not whole ($(cat "$dir/check.txt"))"
grep -q "tune: interrupted; .* holds the" "$dir/tune.err" ||
  fail "tune: no message"
no_temporaries tune
echo "ok: tune interrupted, exit 130, the finished workload's wisdom written"
