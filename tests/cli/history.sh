#!/bin/sh
# history.sh KLADDER TESTS_DIR RESULTS_DIR: the results history
# (docs/history.md), what kladder wrote read back by Python's own sqlite3
# (history_db.py):
#   appends   4 processes at once, 50 `kladder run --db` each: every run
#             there and whole, integrity_check ok;
#   fields    every text or number field of `kladder list --fields` a
#             column; one dropped (a history made before that field) comes
#             back, filled, at the next run;
#   import    every kladder results file (JSON) under RESULTS_DIR
#             (results/, found at test time) imported in one command,
#             a second import adds nothing, the other JSON files there
#             (Chrome traces) refused, exit 2;
#   check     a history with a planted 20% slowdown at one commit: flagged
#             at that commit once it holds two runs, never before, and the
#             unchanged rung beside it never;
#   machines  two runs that differ in their GPU alone (an H100 and an
#             H200 machine): the table's machine cells differ;
#   query     selection, --since, --csv and --json agree with the history;
#   killed    an import of 80 runs killed at four moments: all or none;
#   bad input not SQLite, another schema, a newer schema, locked past the
#             timeout, a read-only file, a missing one, a JSON file that
#             does not parse: exit 2, one line, the file unchanged.
# Exit 77 (skipped) without python3 or without SQLite in this kladder.
kl=$1 tests=$2 results=$3
command -v python3 >/dev/null || { echo "SKIP: no python3 here"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
py() { python3 "$tests/history_db.py" "$@"; }

"$kl" history --db "$dir/probe.db" --import >"$dir/out" 2>&1
if grep -q 'built without SQLite' "$dir/out"; then
  # The line and the exit code of a build without it, then skip.
  [ "$(wc -l <"$dir/out")" = 1 ] || fail "no SQLite: more than one line"
  "$kl" run -q -w map -b serial -n 1000 --db "$dir/x.db" 2>"$dir/err"
  [ $? = 2 ] && grep -q 'built without SQLite' "$dir/err" ||
    fail "run --db without SQLite: not exit 2 with its line"
  echo "SKIP: this kladder was built without SQLite (KL_SQLITE)"
  exit 77
fi
rm -f "$dir/probe.db"*

# One line on stderr, nothing on stdout, the exit code $1; then the rest
# of the command. $expect: a text the line must hold.
bad() {
  want=$1 expect=$2
  shift 2
  "$@" >"$dir/bad.out" 2>"$dir/bad.err"
  rc=$?
  [ "$rc" = "$want" ] || { cat "$dir/bad.err"; fail "$*: exit $rc, not $want"; }
  [ "$(wc -l <"$dir/bad.err")" = 1 ] ||
    { cat "$dir/bad.err"; fail "$*: not one line on stderr"; }
  [ ! -s "$dir/bad.out" ] || fail "$*: wrote to stdout"
  grep -q -- "$expect" "$dir/bad.err" ||
    { cat "$dir/bad.err"; fail "$*: no '$expect' in the line"; }
}

# ---- appends: 4 processes at once, 50 runs each ----------------------------
start=$(date +%s)
for p in 1 2 3 4; do
  (
    i=0
    while [ $i -lt 50 ]; do
      "$kl" run -q -w integrate -b serial -n 1000 --reps 2 --warmup 0 \
        --no-ceiling --seed $((p * 100 + i)) --db "$dir/many.db" >/dev/null ||
        { echo "process $p, run $i: exit $?" >>"$dir/append.err"; }
      i=$((i + 1))
    done
  ) &
done
wait
[ ! -s "$dir/append.err" ] || { cat "$dir/append.err"; fail "an append failed"; }
py verify "$dir/many.db" 200 2 || fail "the history of 200 appends"

# ---- fields: a column each, added to a history made before them -----------
"$kl" list --fields >"$dir/fields.txt" || fail "kladder list --fields"
py columns "$dir/many.db" "$dir/fields.txt" || fail "a field without its column"
py drop "$dir/many.db" stop || fail "dropping a field's column"
"$kl" run -q -w integrate -b serial -n 1000 --reps 2 --warmup 0 --no-ceiling \
  --db "$dir/many.db" >/dev/null || fail "a run into a history without stop"
py columns "$dir/many.db" "$dir/fields.txt" || fail "the field's column not added back"
py filled "$dir/many.db" stop || fail "the added column not filled"
echo "fields: every one a column, a new one added and filled"
echo "appends: 4 x 50 runs in $(($(date +%s) - start)) s"
"$kl" history --db "$dir/many.db" --check >/dev/null
[ $? -le 1 ] || fail "--check over the 200 runs"

# A run appended and its own --json file imported are the same run.
"$kl" run -q -w map -b serial -n 1000 --reps 2 --json "$dir/own.json" \
  --db "$dir/own.db" >/dev/null || fail "run --json --db"
"$kl" history --db "$dir/own.db" --import "$dir/own.json" >"$dir/out" &&
  grep -q '^history: 0 of 1 results files added.*(1 already there)' \
    "$dir/out" || { cat "$dir/out"; fail "a run's own file imported again"; }

# ---- import of results/ ----------------------------------------------------------
find "$results" -name '*.json' | sort >"$dir/all"
[ -s "$dir/all" ] || fail "no JSON file under $results"
: >"$dir/runs" && : >"$dir/others"
while IFS= read -r f; do
  if grep -q '"format": *"kladder-results-' "$f"; then echo "$f" >>"$dir/runs"
  else echo "$f" >>"$dir/others"; fi
done <"$dir/all"
n=$(wc -l <"$dir/runs")
[ "$n" -ge 1 ] || fail "no kladder results file under $results"
# shellcheck disable=SC2046
"$kl" history --db "$dir/docs.db" --import $(cat "$dir/runs") >"$dir/out" ||
  fail "import of the results files in $results"
grep -q "^history: $n of $n results files added" "$dir/out" ||
  { cat "$dir/out"; fail "import: not $n added"; }
py whole "$dir/docs.db" || fail "the imported history"
before=$(py sum "$dir/docs.db")
# shellcheck disable=SC2046
"$kl" history --db "$dir/docs.db" --import $(cat "$dir/runs") >"$dir/out" &&
  grep -q "^history: 0 of $n results files added.*($n already there)" \
    "$dir/out" || { cat "$dir/out"; fail "a second import added runs"; }
[ "$(py sum "$dir/docs.db")" = "$before" ] || fail "a second import changed it"
while IFS= read -r f; do
  bad 2 'not a kladder results file' "$kl" history --db "$dir/docs.db" \
    --import "$f"
done <"$dir/others"
[ "$(py sum "$dir/docs.db")" = "$before" ] || fail "a refused file changed it"
"$kl" history --db "$dir/docs.db" >"$dir/table" || fail "the history's table"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$dir/table" ||
  fail "a line of the table is wider than 80 columns"
# A run under mpirun (results of 2 ranks or more) is a machine of its
# own: "P ranks of HOST: ...", where such files are there.
for f in $(cat "$dir/runs"); do
  p=$(python3 -c 'import json, sys
rs = json.load(open(sys.argv[1]))["results"]
print(max([int(r.get("ranks") or 1) for r in rs] or [1]))' "$f")
  [ "$p" -gt 1 ] || continue
  "$kl" history --db "$dir/docs.db" --json >"$dir/all.json" || fail "--json"
  python3 -c 'import json, sys
pts = json.load(open(sys.argv[1]))["points"]
assert any(x["machine"].startswith(sys.argv[2] + " ranks of ") for x in pts), \
    sorted({x["machine"] for x in pts})' "$dir/all.json" "$p" ||
    fail "a run of $p ranks not a machine of its own"
  echo "import: a run of $p ranks is the machine \"$p ranks of ...\""
  break
done
echo "import: $n results files from $results ($(wc -l <"$dir/others") other JSON files refused)"

# ---- machines: the table tells apart machines that differ in the GPU -------
py gpus "$dir/gpu" "NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 79.2 GiB)" \
  "NVIDIA H200 (cc 9.0, 132 SMs, 139.8 GiB)"
"$kl" history --db "$dir/gpus.db" --import "$dir/gpu-0.json" \
  "$dir/gpu-1.json" >/dev/null || fail "import of the two GPUs' runs"
"$kl" history --db "$dir/gpus.db" >"$dir/gpus" || fail "the two GPUs' table"
python3 - "$dir/gpus" <<'PY' || { cat "$dir/gpus"; fail "the two GPUs' machine cells"; }
import sys
lines = open(sys.argv[1]).read().splitlines()
head = next(l for l in lines if "machine" in l and "commit" in l)
at = head.index("machine")
# The machine's cell: its 18 columns from its heading on.
cells = [l[at:at + 18].strip() for l in lines if l.startswith("  2026-")]
assert len(cells) == 2, cells
assert cells[0] != cells[1], "both machines read %r" % cells[0]
assert all(len(l) <= 80 for l in lines), "a line wider than 80 columns"
print("machines: %r and %r" % tuple(cells))
PY

# ---- query: selection, --since, CSV and JSON -------------------------------
py planted "$dir" 25 21
for i in $(seq 1 25); do
  f=$(printf '%s/run-%03d.json' "$dir" "$i")
  "$kl" history --db "$dir/planted.db" --import "$f" >/dev/null ||
    fail "import of $f"
  "$kl" history --db "$dir/planted.db" --check >"$dir/check.$i"
  rc=$?
  if [ "$i" -le 21 ]; then
    [ $rc = 0 ] || { cat "$dir/check.$i"; fail "--check flagged at run $i, before the slowdown held"; }
  else
    [ $rc = 1 ] || { cat "$dir/check.$i"; fail "--check missed the slowdown at run $i"; }
    grep -q 'from commit c021 ' "$dir/check.$i" ||
      { cat "$dir/check.$i"; fail "run $i: not flagged at commit c021"; }
    [ "$(grep -c 'slower from commit' "$dir/check.$i")" = 1 ] ||
      { cat "$dir/check.$i"; fail "run $i: more than map flagged"; }
    grep -q '^map serial (serial)' "$dir/check.$i" ||
      fail "run $i: the flag is not map's"
  fi
done
"$kl" history --db "$dir/planted.db" --check --json >"$dir/check.json"
[ $? = 1 ] || fail "--check --json: not exit 1"
python3 - "$dir" <<'PY' || fail "the history's CSV and JSON"
import csv, json, sys
d = sys.argv[1]
c = json.load(open(d + "/check.json"))
assert c["format"] == "kladder-history-check-1"
(r,) = c["regressions"]
assert (r["workload"], r["rung"], r["commit"]) == ("map", "serial", "c021"), r
assert 1.15 < r["ratio"] < 1.25, r["ratio"]
assert c["series"] == 2
PY
"$kl" history --db "$dir/planted.db" -w map --csv >"$dir/map.csv" &&
  "$kl" history --db "$dir/planted.db" -w map --since c010 --json \
    >"$dir/map.json" &&
  "$kl" history --db "$dir/planted.db" -w map --since 2026-11-01T20 --json \
    >"$dir/map-date.json" || fail "history --csv / --json"
python3 - "$dir" <<'PY' || fail "the history's CSV and JSON"
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/map.csv")))
assert len(rows) == 25, len(rows)
assert all(r["workload"] == "map" for r in rows)
assert [r["commit"] for r in rows] == ["c%03d" % i for i in range(1, 26)]
for i, r in enumerate(rows, 1):
    src = json.load(open("%s/run-%03d.json" % (d, i)))["results"][0]
    assert float(r["median_s"]) == src["median_s"], (i, r["median_s"])
    assert float(r["rate"]) == src["rate"]
p = json.load(open(d + "/map.json"))
assert p["format"] == "kladder-history-1"
assert [q["commit"] for q in p["points"]] == ["c%03d" % i for i in range(10, 26)]
p = json.load(open(d + "/map-date.json"))
assert [q["commit"] for q in p["points"]] == ["c%03d" % i for i in range(20, 26)], [q["commit"] for q in p["points"]]
PY
"$kl" history --db "$dir/planted.db" -w map -r serial --machine ci >"$dir/t" &&
  [ "$(grep -c ' c0' "$dir/t")" = 25 ] || fail "history -w -r --machine"
"$kl" history --db "$dir/planted.db" --machine nowhere | grep -q 'no runs' ||
  fail "--machine that matches nothing"
echo "check: the planted slowdown flagged at c021 from its second run on, never before"

# ---- killed: an import of 80 runs killed at several moments, all or none ----
# (80 copies of the largest results file: reading them takes about half
# the import, the transaction the rest, so the kills land in both.)
src=$(for f in $(cat "$dir/runs"); do echo "$(wc -c <"$f") $f"; done |
  sort -n | tail -1 | cut -d' ' -f2)
py variants "$src" "$dir" 80
seen=
for delay in 0.1 0.3 0.5 0.7; do
  cp "$dir/docs.db" "$dir/killed.db"
  runs_before=$(py runs "$dir/killed.db")
  "$kl" history --db "$dir/killed.db" --import "$dir"/variant-*.json \
    >/dev/null 2>&1 &
  pid=$!
  sleep $delay
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  added=$(($(py runs "$dir/killed.db") - runs_before))
  case $added in
  0 | 80) ;;
  *) fail "an import killed after $delay s left $added of 80 runs" ;;
  esac
  py whole "$dir/killed.db" >/dev/null || fail "the history after a kill at $delay s"
  seen="$seen $added"
done
echo "killed: after 0.1, 0.3, 0.5 and 0.7 s, runs added:$seen (all or none)"

# ---- bad input ----------------------------------------------------------------
good=$dir/run-001.json
printf 'results, not a database\n' >"$dir/text.db"
s=$(py sum "$dir/text.db")
bad 2 'not an SQLite database' "$kl" history --db "$dir/text.db" --import "$good"
bad 2 'not an SQLite database' "$kl" history --db "$dir/text.db"
bad 2 'not an SQLite database' "$kl" run -q -w map -b serial -n 1000 \
  --db "$dir/text.db"
[ "$(py sum "$dir/text.db")" = "$s" ] || fail "a file not SQLite was changed"

py foreign "$dir/other.db"
s=$(py sum "$dir/other.db")
bad 2 'another schema' "$kl" history --db "$dir/other.db" --import "$good"
bad 2 'another schema' "$kl" history --db "$dir/other.db" --check
[ "$(py sum "$dir/other.db")" = "$s" ] || fail "another program's database was changed"

py newer "$dir/newer.db"
s=$(py sum "$dir/newer.db")
bad 2 'newer than this' "$kl" history --db "$dir/newer.db" --import "$good"
[ "$(py sum "$dir/newer.db")" = "$s" ] || fail "a newer schema was changed"

s=$(py sum "$dir/planted.db")
py hold "$dir/planted.db" 4 >"$dir/held" &
holder=$!
i=0
while [ ! -s "$dir/held" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$dir/held" ] || fail "could not lock the database"
t0=$(date +%s%N)
bad 2 locked env KLADDER_DB_TIMEOUT=0.5 "$kl" history --db "$dir/planted.db" \
  --import "$dir/variant-000.json"
waited=$((($(date +%s%N) - t0) / 1000000))
[ $waited -ge 400 ] && [ $waited -lt 3500 ] ||
  fail "the busy timeout of 0.5 s waited $waited ms"
wait $holder
[ "$(py sum "$dir/planted.db")" = "$s" ] || fail "a locked database was changed"
bad 2 'KLADDER_DB_TIMEOUT' env KLADDER_DB_TIMEOUT=soon "$kl" history \
  --db "$dir/planted.db"

if [ "$(id -u)" != 0 ]; then
  cp "$dir/planted.db" "$dir/ro.db" && chmod 444 "$dir/ro.db"
  s=$(py sum "$dir/ro.db")
  bad 2 'cannot write' "$kl" history --db "$dir/ro.db" --import "$good"
  bad 2 'cannot write' "$kl" run -q -w map -b serial -n 1000 --db "$dir/ro.db"
  "$kl" history --db "$dir/ro.db" -w map >/dev/null ||
    fail "a read-only history could not be read"
  [ "$(py sum "$dir/ro.db")" = "$s" ] || fail "a read-only history was changed"
else
  echo "read-only file: not tested as root (root writes it anyway)"
fi
# A history in a folder its reader cannot write (WAL's -shm file cannot be
# made beside it): read all the same. As root, read as nobody.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  mkdir "$dir/shut" && cp "$dir/planted.db" "$dir/shut/h.db" &&
    chmod 755 "$dir/shut" && chmod 644 "$dir/shut/h.db"
  chmod o+x "$dir"
  if as_nobody "$kl" --version >/dev/null 2>&1 &&
     as_nobody test -r "$dir/shut/h.db"; then
    s=$(py sum "$dir/shut/h.db")
    as_nobody "$kl" history --db "$dir/shut/h.db" -w map >"$dir/shut.out" 2>&1 ||
      { cat "$dir/shut.out"; fail "a history in a folder its reader cannot write could not be read"; }
    [ "$(py sum "$dir/shut/h.db")" = "$s" ] || fail "a read-only history was changed"
  else
    echo "history in an unwritable folder: not tested (nobody cannot reach the build)"
  fi
fi
bad 2 'cannot open' "$kl" history --db "$dir/no/such/dir/h.db" --import "$good"
[ ! -e "$dir/no" ] || fail "a missing directory was made"
bad 2 'no such history' "$kl" history --db "$dir/missing.db"
"$kl" run -q -w nosuch --db "$dir/new.db" 2>/dev/null
[ $? = 2 ] && [ ! -e "$dir/new.db" ] || fail "a failed run made a history"
bad 2 'cannot make the history' "$kl" run -q -w map -b serial -n 1000 \
  --db "$dir/no/such/dir/h.db"
[ ! -e "$dir/missing.db" ] || fail "a query made a database"
bad 2 'not a regular file' "$kl" history --db "$dir" --import "$good"

printf '{"format": "kladder-results-2", "results": [\n' >"$dir/cut.json"
s=$(py sum "$dir/planted.db")
bad 2 'cut.json:2:1: expected' "$kl" history --db "$dir/planted.db" \
  --import "$good" "$dir/cut.json"
[ "$(py sum "$dir/planted.db")" = "$s" ] || fail "a bad JSON file changed the history"
bad 2 'nothing imported' "$kl" history --db "$dir/planted.db" --import \
  "$dir/none.json"
bad 2 'without --import' "$kl" history --db "$dir/planted.db" "$good"
bad 2 'no history given' "$kl" history --check
bad 2 'neither a date' "$kl" history --db "$dir/planted.db" --since nope
for d in 2026-13-45 2026-02-30 2026-11-01T25:00 2026-11-01T10:61 2026-11-01x; do
  bad 2 'not a date' "$kl" history --db "$dir/planted.db" --since "$d"
done
"$kl" history --db "$dir/planted.db" --since 2024-02-29T23:59:59Z >/dev/null ||
  fail "--since a leap day's last second"
# A failed import into a new path leaves no history behind.
bad 2 'nothing imported' "$kl" history --db "$dir/fresh.db" --import \
  "$dir/cut.json"
[ ! -e "$dir/fresh.db" ] && [ ! -e "$dir/fresh.db-wal" ] ||
  fail "a failed import made a history"
# A pipe that no process writes to is refused at once, not waited for.
if mkfifo "$dir/pipe" 2>/dev/null; then
  bad 2 'a pipe that no process writes to' "$kl" history --db \
    "$dir/planted.db" --import "$dir/pipe"
  rm -f "$dir/pipe"
fi
bad 2 'unknown option' "$kl" history --db "$dir/planted.db" --bogus
"$kl" run -q -w map -b serial -n 1000 --json "$dir/same" --db "$dir/same" \
  2>"$dir/err"
[ $? = 2 ] && grep -q -- '--json and --db name the same file' "$dir/err" ||
  fail "run --json and --db naming the same file"
[ ! -e "$dir/same" ] || fail "run --json and --db the same file: a file made"
echo "bad input: exit 2, one line, nothing changed"
echo "history: ok"
