#!/bin/sh
# bad_inputs.sh KLADDER: every command that reads a results file (compare,
# report, report --markdown, explain --results, history --import) refuses
# each kind of bad one alike: exit 2, one line on standard error, nothing
# on standard output, no file written, within 20 s. The kinds are a table;
# a command and a kind meet once each.
kladder=$1
top=$(mktemp -d) || exit 1
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1
failures=0 tried=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
"$kladder" run -q -w read -b serial -n 4K --reps 3 --json good.json \
  >/dev/null 2>&1 || { echo "FAIL: the run that makes good.json"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 here"; exit 77; }
timeout_=
command -v timeout >/dev/null 2>&1 && timeout_="timeout 20"

# The bad files, each made from good.json: KIND and what makes it.
python3 - <<'EOF' || { echo "FAIL: making the bad files"; exit 1; }
import json
good = json.load(open("good.json"))
def put(name, doc):
    open(name, "w").write(doc if isinstance(doc, str) else json.dumps(doc))
def change(name, edit):
    d = json.loads(json.dumps(good)); edit(d); put(name, d)
put("empty.json", "")
put("truncated.json", json.dumps(good)[:200])
put("array.json", "[1, 2]")
change("format-0.json", lambda d: d.update(format="kladder-results-0"))
change("no-results.json", lambda d: d.update(results=[]))
change("non-object.json", lambda d: d.update(results=[3]))
change("nul-name.json", lambda d: d["results"][0].update(rung="serial\u0000junk"))
change("negative.json", lambda d: d["results"][0].update(median_s=-1))
change("zero-rung.json", lambda d: d["results"][0].update(rung=""))
change("string-time.json", lambda d: d["results"][0].update(median_s="fast"))
change("no-median.json", lambda d: d["results"][0].pop("median_s"))
open("inf.json", "w").write(json.dumps(good).replace(
    '"median_s": %r' % good["results"][0]["median_s"], '"median_s": 1e999', 1))
EOF
mkdir directory.json
mkfifo pipe.json 2>/dev/null || echo "no mkfifo: the pipe kind is left out"
kinds="missing.json directory.json empty.json truncated.json array.json
format-0.json no-results.json non-object.json nul-name.json negative.json
zero-rung.json string-time.json no-median.json inf.json"
[ -p pipe.json ] && kinds="$kinds pipe.json"

have_history=0
"$kladder" history --help >/dev/null 2>&1 &&
  ! "$kladder" history --check 2>&1 | grep -q "without SQLite" && have_history=1

# refused NAME COMMAND...: exit 2, one line on stderr, nothing on stdout,
# no out.* file made.
refused() {
  name=$1
  shift
  tried=$((tried + 1))
  rm -f out.html out.md out.db out.csv
  $timeout_ "$@" >stdout 2>stderr
  rc=$?
  [ "$rc" != 124 ] || { fail "$name: still running after 20 s"; return; }
  [ "$rc" = 2 ] || fail "$name: exit $rc, not 2 ($(head -c 160 stderr))"
  [ "$(wc -l <stderr)" = 1 ] || fail "$name: $(wc -l <stderr) lines on stderr"
  [ ! -s stdout ] || fail "$name: wrote to standard output"
  for f in out.html out.md out.db out.csv; do
    [ ! -e "$f" ] || fail "$name: made $f"
  done
}

for k in $kinds; do
  refused "compare $k" "$kladder" compare good.json "$k"
  refused "compare --csv $k" "$kladder" compare "$k" good.json --csv out.csv
  refused "report $k" "$kladder" report "$k" -o out.html
  refused "report --markdown $k" "$kladder" report --markdown "$k" -o out.md
  refused "explain --results $k" "$kladder" explain -w read --results "$k"
  [ "$have_history" = 1 ] &&
    refused "history --import $k" "$kladder" history --import "$k" --db out.db
done

# Outputs that cannot be written: a missing folder, a directory.
for o in missing/out.html directory.json; do
  refused "report -o $o" "$kladder" report good.json -o "$o"
  refused "report --markdown -o $o" "$kladder" report --markdown good.json -o "$o"
  refused "compare --csv $o" "$kladder" compare good.json good.json --csv "$o"
done
[ ! -e missing ] || fail "a missing folder was made"

[ "$failures" = 0 ] &&
  echo "bad inputs: $tried commands, each refused in one line, nothing written"
exit "$failures"
