#!/bin/sh
# energy-report.sh KLADDER RESULTS.json: the report of a run with energy
# (test_energy's, on a fake RAPL counter) shows pJ per byte and watts
# beside the rate and an energy roofline, and every number it shows is
# the file's (check_report.py). Skipped (77) without python3.
kladder=$1 json=$2
tests=$(dirname "$0")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$kladder" report "$json" -o "$dir/report.html" || exit 1
fail=0
grep -q '<th>energy</th><th>power</th>' "$dir/report.html" ||
  { echo "FAILED: no energy column"; fail=1; }
grep -q 'data-k="energy_pj"[^>]*data-u="pJ/B"' "$dir/report.html" ||
  { echo "FAILED: no pJ/B cell"; fail=1; }
grep -q '<section id="energy">' "$dir/report.html" ||
  { echo "FAILED: no energy section"; fail=1; }
grep -q 'aria-label="energy roofline"\|energy roofline' "$dir/report.html" ||
  { echo "FAILED: no energy roofline"; fail=1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
python3 "$tests/check_report.py" "$dir/report.html" "$json" || fail=1
[ $fail = 0 ] && echo "energy report: ok"
exit $fail
