#!/bin/sh
# compare.sh KLADDER DATA: `kladder compare`'s inputs and outputs (issue 30).
#   1. Each bad input (missing, empty, truncated, malformed, foreign, no
#      results, a directory, a result without a field, a newer format
#      without the fields compare needs) and each bad option: exit 2, one
#      line on stderr naming the file, nothing on stdout, nothing written.
#   2. An output that names an input (the same path, another spelling, a
#      link) or another output, or that cannot be written (a missing
#      folder, a directory, /dev/full): exit 2, one line, the input
#      untouched and no output written, no temporary file left.
#   3. The outputs: --csv, --json and --html written whole; JSON and CSV
#      parse (python3, where present); `--json -` is the document alone on
#      standard output, the table on standard error.
#   4. A newer format with the fields compare needs: one warning line,
#      exit 0.
#   5. A live run (serial and OpenMP reduce at 64K, 7 timed runs) compared
#      with itself: every pair the same, exit 0.
# DATA is tests/data/compare (make.py there says how its files are made).
kladder=$1 data=$2
top=$(mktemp -d) || exit 1
trap 'rm -rf "$top"' EXIT
work=$top/work
mkdir "$work" && cd "$work" || exit 1
cp "$data/base.json" "$data/slower.json" "$data/format-9.json" . || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  for f in "$top/out" "$top/err"; do echo "== ${f##*/}"; cat "$f"; done
  failures=$((failures + 1))
}

# What the folder holds, with each file's checksum.
snapshot() { ls -A | while read -r f; do printf '%s ' "$f"; cksum <"$f" 2>/dev/null || echo dir; done; }

# refused CODE RE ARGS...: `kladder compare ARGS` exits CODE with exactly
# one line on stderr, matching RE, nothing on stdout, and the folder as it
# was.
refused() {
  want=$1 re=$2
  shift 2
  before=$(snapshot)
  "$kladder" compare "$@" >"$top/out" 2>"$top/err"
  got=$?
  lines=$(wc -l <"$top/err")
  if [ "$got" != "$want" ]; then fail "compare $*: exit $got, not $want"
  elif [ "$lines" != 1 ]; then fail "compare $*: $lines lines on stderr, not 1"
  elif ! grep -Eq -- "$re" "$top/err"; then fail "compare $*: stderr does not match: $re"
  elif [ -s "$top/out" ]; then fail "compare $*: wrote to stdout"
  elif [ "$(snapshot)" != "$before" ]; then fail "compare $*: the folder changed: $(ls -A)"
  else echo "ok: $(cat "$top/err")"
  fi
}

e='^kladder: error: '
# 1. Bad input.
refused 2 "${e}missing\\.json: cannot read: No such file or directory$" base.json missing.json
: >empty.json
refused 2 "${e}empty\\.json: empty: no JSON document in it$" empty.json base.json
rm empty.json
refused 2 "${e}.*/truncated\\.json:[0-9]+:[0-9]+: expected .*, found the end of the file$" \
  base.json "$data/truncated.json"
refused 2 "${e}.*/malformed\\.json:3:3: expected ',' or '\\}', found '\"'$" \
  "$data/malformed.json" base.json
refused 2 "${e}.*/foreign\\.json: not a kladder results file \\(its format is 'kladder-compare-1'\\)$" \
  base.json "$data/foreign.json"
refused 2 "${e}.*/no-format\\.json: not a kladder results file \\(no \"format\"" \
  base.json "$data/no-format.json"
refused 2 "${e}.*/no-results\\.json: no results in it" base.json "$data/no-results.json"
refused 2 "${e}.*/missing-rung\\.json:14:5: result 3 has no \"rung\"$" \
  base.json "$data/missing-rung.json"
refused 2 "${e}.*/format-9-lacking\\.json: format kladder-results-9 is newer than this kladder reads \\(kladder-results-1 and -2\\), and its result 1 has no \"median_s\"$" \
  base.json "$data/format-9-lacking.json"
refused 2 "${e}\\.: a directory, not a file to read$" base.json .
mkdir sub
refused 2 "${e}sub: a directory" sub base.json
rmdir sub
printf '[1, 2]\n' >array.json
refused 2 "${e}array\\.json: not a kladder results file" base.json array.json
printf '{"format": "kladder-results-x", "results": []}\n' >x.json
refused 2 "${e}x\\.json: format 'kladder-results-x' has no version this kladder reads" base.json x.json
printf '{"format": "kladder-results-1", "results": {}}\n' >x.json
refused 2 "${e}x\\.json:1:44: \"results\" is not an array$" base.json x.json
rm x.json array.json
# ... and nothing is written for a bad input, outputs or not.
refused 2 "${e}missing\\.json: cannot read" base.json missing.json --csv out.csv --json out.json --html out.html

# Bad options: one line, the rules' place on it.
for t in -1 x nan inf 1e999 5%; do
  refused 2 "${e}--threshold '$t' must be a number from 0 up .*see .kladder compare --help" \
    base.json slower.json --threshold "$t"
done
for a in 0 1 -0.5 x; do
  refused 2 "${e}--alpha '$a' must be a number above 0 and below 1" base.json slower.json --alpha "$a"
done
refused 2 "${e}option '--threshold' needs a non-empty value" base.json slower.json --threshold=
refused 2 "${e}option '--csv' given twice" base.json slower.json --csv a --csv b
refused 2 "${e}compare takes two results files, BASE and NEW; only one given" base.json
refused 2 "${e}compare takes two results files, BASE and NEW; none given"
refused 2 "${e}unexpected argument 'extra'" base.json slower.json extra
refused 2 "${e}unknown option '--frob'" base.json slower.json --frob
refused 2 "${e}BASE and NEW cannot both be standard input" - -

# 2. Outputs that name an input or each other, or cannot be written.
refused 2 "${e}--csv 'base\\.json' is BASE, an input: refusing to write over it$" \
  base.json slower.json --csv base.json
refused 2 "${e}--json '\\./slower\\.json' is NEW, an input" base.json slower.json --json ./slower.json
ln -s base.json link.json
refused 2 "${e}--html 'link\\.json' is BASE, an input" base.json slower.json --html link.json
refused 2 "${e}--csv 'base\\.json' is NEW, an input" slower.json link.json --csv base.json
rm link.json
refused 2 "${e}--csv and --json name the same file 'out'" base.json slower.json --csv out --json ./out
refused 2 "${e}--csv and --html name the same file '-'" base.json slower.json --csv - --html -
refused 2 "${e}cannot write --csv 'missing/x\\.csv': its directory does not exist$" \
  base.json slower.json --csv missing/x.csv
mkdir folder
refused 2 "${e}cannot write --json 'folder': it is a directory$" base.json slower.json --json folder
rmdir folder
if [ -e /dev/full ]; then
  refused 2 "${e}cannot write --html '/dev/full': No space left on device$" \
    base.json slower.json --json out.json --csv out.csv --html /dev/full
fi

# 3. Every output whole; the regression's exit code with them.
"$kladder" compare base.json slower.json --csv out.csv --json out.json --html out.html \
  >"$top/out" 2>"$top/err"
got=$?
[ "$got" = 1 ] || fail "compare with outputs: exit $got, not 1"
for f in out.csv out.json out.html; do [ -s "$f" ] || fail "$f not written"; done
[ "$(ls -A | grep -c tmp)" = 0 ] || fail "a temporary file left: $(ls -A)"
grep -q '^workload,rung,backend,type,shape,' out.csv || fail "out.csv has no header"
grep -q '^reduce,openmp-partials,openmp,f64,65536,sum,random,.*,slower,1,[0-9.e-]*,[0-9.e-]*,[0-9.e-]*,[0-9.e-]*$' out.csv ||
  fail "out.csv has no slower row"
grep -q '"format": "kladder-compare-1"' out.json || fail "out.json has no format"
grep -q '<table>' out.html && grep -q '</html>' out.html || fail "out.html is not a page"
grep -q '<tr class="slower"><td class="t">reduce</td>' out.html || fail "out.html has no slower row"
if command -v python3 >/dev/null 2>&1; then
  python3 -c '
import csv, json, sys
d = json.load(open("out.json"))
assert d["format"] == "kladder-compare-1"
slower = [p for p in d["pairs"] if p["verdict"] == "slower"]
assert [p["rung"] for p in slower] == ["openmp-partials"], slower
assert abs(slower[0]["time_ratio"] - 1.5) < 1e-9 and slower[0]["test"] == "exact"
lo, hi = slower[0]["ratio_interval"]
assert 1 < lo <= slower[0]["ratio_estimate"] <= hi, slower[0]
assert d["summary"]["machine"] == 0
assert d["summary"]["exit_code"] == 1 and d["summary"]["pairs"] == 7
rows = list(csv.DictReader(open("out.csv")))
assert len(rows) == 7 and sum(r["verdict"] == "slower" for r in rows) == 1
' || fail "out.json or out.csv does not hold the comparison"
  "$kladder" compare base.json slower.json --json - >"$top/out" 2>"$top/err"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["summary"]["slower"] == 1' \
    "$top/out" || fail "--json - is not the document alone"
  grep -Eq '^reduce +openmp-partials +openmp .*slower$' "$top/err" ||
    fail "--json -: the table is not on stderr"
fi
# An existing output is replaced whole.
echo old >old.csv
"$kladder" compare base.json base.json --csv old.csv >/dev/null 2>&1 || fail "exit $? over old.csv"
grep -q '^workload,' old.csv || fail "old.csv not replaced"
rm -f out.csv out.json out.html old.csv

# 4. A newer format with the fields compare needs: one warning, exit 0.
"$kladder" compare base.json format-9.json >"$top/out" 2>"$top/err"
got=$?
[ "$got" = 0 ] || fail "format-9: exit $got"
[ "$(wc -l <"$top/err")" = 1 ] &&
  grep -q '^kladder: warning: format-9\.json: format kladder-results-9 is newer than this kladder reads' "$top/err" ||
  fail "format-9: not one warning line"

# 5. A live run compared with itself.
"$kladder" run -q -w reduce -b serial,openmp -n 64K --reps 7 --json live.json >/dev/null 2>&1 ||
  fail "the live run failed"
"$kladder" compare live.json live.json >"$top/out" 2>"$top/err"
got=$?
[ "$got" = 0 ] || fail "live run against itself: exit $got"
grep -Eq '^[0-9]+ pairs: 0 slower, 0 faster, 0 machine, [0-9]+ same, 0 failed' "$top/out" ||
  fail "live run against itself: not all the same"
awk 'length > 100 { bad = 1 } END { exit bad }' "$top/out" || fail "a line of the table is over 100 columns"

[ "$failures" = 0 ] || { echo "$failures failures"; exit 1; }
echo "all passed"
