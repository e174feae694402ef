#!/bin/sh
# report.sh KLADDER TESTS_DIR: the HTML report in a real browser.
# A host run (four workloads swept over two sizes, so that cost growth has
# lines; pipeline's rungs trace their intervals, so timelines are drawn;
# map with a check failed on purpose, KLADDER_INJECT_WRONG; one rung
# marked known-wrong in the file, as the CUDA racy rung is marked, since
# no host rung is one; and serial-triad given openmp-triad as its named
# peer, as the OpenACC rungs name their CUDA rungs) is drawn by `kladder
# report`, and:
#   check_report.py  the SVGs parse as XML, every result is on the page,
#                    every number shown is the file's, shown as kladder
#                    shows numbers;
#   chromium         headless: the page's own check (every chart drawn
#                    with marks and a size, no label outside its chart's
#                    box, every bar's link opens a lesson, no script error)
#                    says ok in the DOM it dumps;
#   the lessons      each bar links to its rung's lesson, folded: map's
#                    text, code and diff (issue 35);
#                    a screenshot is not blank.
# Exit 77 (skipped) without chromium or python3.
kl=$1 tests=$2
browser=$(command -v chromium || command -v chromium-browser ||
  command -v google-chrome) || { echo "SKIP: no chromium here"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3 here"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

"$kl" run -q -w stream,map,reduce,pipeline -b serial,openmp -n 4K,64K \
  --reps 3 --json "$dir/ab.json" >/dev/null || fail "the sweep of 4K,64K"
KLADDER_INJECT_WRONG=openmp "$kl" run -q -w map -b serial,openmp -n 1000 \
  --reps 3 --json "$dir/c.json" >/dev/null
[ $? = 1 ] || fail "the injected wrong rung did not fail its check"
# One rung given a named peer; one rung known-wrong.
python3 - "$dir" <<'PY' || fail "could not merge the results"
import json, sys
d = sys.argv[1]
a = json.load(open(d + "/ab.json"))
# A named peer, as the OpenACC rungs name their CUDA rungs (kl_rung.peer).
for r in a["results"]:
    if r["rung"] == "serial-triad":
        r["peer"] = "openmp-triad"
json.dump(a, open(d + "/ab.json", "w"))
c = json.load(open(d + "/c.json"))
for r in c["results"]:
    if r["workload"] == "map" and r["rung"] == "serial":
        r["flags"] = "known-wrong"
        r["summary"] += " (marked known-wrong by the test)"
json.dump(c, open(d + "/c.json", "w"))
PY
start=$(date +%s%N)
"$kl" report "$dir/ab.json" "$dir/c.json" -o "$dir/report.html" ||
  fail "kladder report"
echo "report written in $(( ($(date +%s%N) - start) / 1000000 )) ms," \
  "$(wc -c <"$dir/report.html") bytes"
python3 "$tests/check_report.py" "$dir/report.html" "$dir/ab.json" \
  "$dir/c.json" || fail "the page does not match its results files"
for part in 'id="w-pipeline"' 'id="roofline"' 'id="growth"' \
  'id="timelines"' 'class="bar fail"' 'class="bar wrong"' 'peers:' \
  'the rung of another backend that does its work' \
  'Save the Chrome trace' 'class="lesson-link"' '<details class="lesson"' \
  'lesson: openmp (openmp)' '<pre class="code">' \
  'kl__map_omp(const kl_args'; do
  grep -q "$part" "$dir/report.html" || fail "no $part on the page"
done

flags="--headless --no-sandbox --disable-gpu --hide-scrollbars
  --no-first-run --virtual-time-budget=5000"
# The page's own check, read from the DOM the browser dumps.
in_browser() {
  # shellcheck disable=SC2086
  timeout 120 "$browser" $flags --dump-dom "file://$1" \
    >"$dir/dom.html" 2>"$dir/browser.log"
  verdict=$(sed -n 's/.*<p id="selfcheck">\([^<]*\)<.*/\1/p' "$dir/dom.html")
  echo "browser: $verdict"
  case $verdict in
  "selfcheck: ok"*) ;;
  *) tail -5 "$dir/browser.log"; fail "the page's check in the browser ($1): ${verdict:-no verdict}" ;;
  esac
}
in_browser "$dir/report.html"

# --db: each rung's history beside its ladder (issue 36), from a history
# of the run above and four more of it, on two machines, one rung 30%
# slower in the last; skipped where this kladder has no SQLite.
if "$kl" history --db "$dir/h.db" --import "$dir/ab.json" >/dev/null 2>&1
then
  python3 - "$dir" <<'PY' || fail "could not make the history's runs"
import json, sys
d = sys.argv[1]
a = json.load(open(d + "/ab.json"))
for i in range(4):
    a["started"] = "2030-01-0%dT00:00:00Z" % (i + 1)
    a["build"]["commit"] = "feed%08d" % i
    a["machine"]["host"] = "other" if i % 2 else a["machine"]["host"]
    for r in a["results"]:
        if r.get("median_s"):
            r["median_s"] *= 1.3 if i == 3 and r["rung"] == "serial" else 1.02
    json.dump(a, open("%s/more-%d.json" % (d, i), "w"))
PY
  "$kl" history --db "$dir/h.db" --import "$dir"/more-*.json >/dev/null ||
    fail "the history's import"
  "$kl" report "$dir/ab.json" "$dir/c.json" --db "$dir/h.db" \
    -o "$dir/report-db.html" || fail "kladder report --db"
  python3 "$tests/check_report.py" "$dir/report-db.html" "$dir/ab.json" \
    "$dir/c.json" || fail "the page with its history does not match its files"
  histories=$(grep -o 'time against the runs' "$dir/report-db.html" | wc -l)
  rungs=$(python3 -c 'import json,sys; print(sum(not r.get("ceiling_only") for r in json.load(open(sys.argv[1]))["results"]))' "$dir/ab.json")
  [ "$histories" = "$rungs" ] ||
    fail "$histories history charts, not one for each of the $rungs rungs of ab.json on its ladders"
  grep -q 'figure class="history"' "$dir/report-db.html" &&
    grep -q 'feed00000003' "$dir/report-db.html" ||
    fail "no history beside the ladders"
  in_browser "$dir/report-db.html"
  "$kl" report "$dir/ab.json" --db "$dir/missing.db" -o "$dir/x.html" \
    2>"$dir/err"
  [ $? = 2 ] && [ ! -e "$dir/x.html" ] && grep -q 'no such history' "$dir/err" ||
    fail "report --db of a missing history"
  echo "report --db: $histories history charts"
fi
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --window-size=1000,3000 \
  --screenshot="$dir/shot.png" "file://$dir/report.html" >/dev/null 2>&1
python3 - "$dir/shot.png" <<'PY' || fail "the screenshot is blank"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
distinct = len(set(raw))
print("screenshot: %d bytes of pixels, %d distinct byte values" % (len(raw), distinct))
sys.exit(0 if distinct > 32 else 1)
PY
echo "report in the browser: ok"
