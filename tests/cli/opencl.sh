#!/bin/sh
# opencl.sh KLADDER: the OpenCL backend's bad cases, on whatever device the
# ICD loader lists here (PoCL in CI); exit 77 (skipped) where none is.
#   1. no platform (OCL_ICD_VENDORS at an empty folder): -b opencl is one
#      line, "not available here: no OpenCL device", exit 2;
#   2. a device without doubles (KLADDER_INJECT_NO_FP64=1): f64 rungs stand
#      aside saying so, f32 ones run and pass, exit 0;
#   3. a kernel the device's compiler refuses (KLADDER_INJECT_CL_BUILD=1):
#      the rung's error names the build and its log's first line, exit 3;
#   4. the programs' build time apart from the times: setup_build_seconds
#      above 0 for an OpenCL rung that built its program, a number for
#      each OpenCL rung, null (JSON) and empty (CSV) for a serial one, and
#      the table's line saying so.
kladder=$1
"$kladder" list | grep -q '^  opencl *available' || {
  echo "SKIP: no OpenCL device here"
  exit 77
}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*"
  cat "$dir/out" "$dir/err" 2>/dev/null | tail -8
  exit 1
}

# An empty vendors folder hides every platform from ocl-icd's loader. A
# loader that still lists one (the H100 machine's: its platform comes from
# another place than OCL_ICD_VENDORS) cannot make this case: said, skipped.
mkdir "$dir/none"
if OCL_ICD_VENDORS="$dir/none" OCL_ICD_FILENAMES= "$kladder" list |
  grep -q '^  opencl *available'; then
  echo "skipped: no platform: this ICD loader lists a platform whatever" \
    "OCL_ICD_VENDORS names"
else
  OCL_ICD_VENDORS="$dir/none" OCL_ICD_FILENAMES= "$kladder" run -w stream \
    -b opencl -n 1000 >"$dir/out" 2>"$dir/err"
  code=$?
  [ "$code" = 2 ] || fail "no platform: exit $code, not 2"
  grep -q "^kladder: error: backend 'opencl' is not available here: no OpenCL device" \
    "$dir/err" || fail "no platform: the message"
  [ "$(wc -l <"$dir/err")" = 1 ] || fail "no platform: more than one line"
  echo "ok: no OpenCL platform: exit 2, one line"
fi

KLADDER_INJECT_NO_FP64=1 "$kladder" run -w stream -b opencl -n 1000 \
  --reps 2 >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" = 0 ] || fail "no fp64: exit $code, not 0"
# The table wraps long lines, and PoCL's device names are long (its CPU's
# architecture and model): the reason may go on over two lines.
tr '\n' ' ' <"$dir/out" |
  grep -Eq "opencl-copy: stands aside: .*has no +double precision" ||
  fail "no fp64: opencl-copy does not stand aside saying why"
KLADDER_INJECT_NO_FP64=1 "$kladder" run -w stream -b opencl -t f32 -n 1000 \
  --reps 2 >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" = 0 ] || fail "no fp64, f32: exit $code, not 0"
[ "$(grep -c 'opencl-.* PASS' "$dir/out")" = 2 ] || fail "no fp64, f32: not two PASS"
echo "ok: a device without doubles: f64 rungs stand aside, f32 pass"

KLADDER_INJECT_CL_BUILD=1 "$kladder" run -w stream -b opencl -n 1000 \
  >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" = 3 ] || fail "a failed build: exit $code, not 3"
grep -q "^kladder: error: stream opencl-copy: opencl: building kernel stream_copy .*failed: CL_BUILD_PROGRAM_FAILURE: .*injected build error" \
  "$dir/err" || fail "a failed build: the message does not give the log"
echo "ok: a kernel that fails to build: exit 3, its log's first line"

"$kladder" run -w stream -b serial,opencl -n 1000 --reps 2 --no-ceiling \
  --json "$dir/r.json" --csv "$dir/r.csv" >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" = 0 ] || fail "the build time: exit $code, not 0"
grep -q "^stream, opencl programs built at set-up (untimed): opencl-copy " \
  "$dir/out" || fail "the build time: no line in the table"
python3 -c '
import csv, json, sys
rs = json.load(open(sys.argv[1]))["results"]
cl = [r for r in rs if r["backend"] == "opencl"]
host = [r for r in rs if r["backend"] == "serial"]
assert cl and host, [r["rung"] for r in rs]
for r in cl:
    assert r["setup_build_seconds"] >= 0, (r["rung"], r["setup_build_seconds"])
assert cl[0]["setup_build_seconds"] > 0, cl[0]["setup_build_seconds"]
for r in host:
    assert r["setup_build_seconds"] is None, r["setup_build_seconds"]
rows = list(csv.DictReader(open(sys.argv[2])))
for row in rows:
    b = row["setup_build_seconds"]
    assert (b == "") == (row["backend"] == "serial"), (row["rung"], b)
' "$dir/r.json" "$dir/r.csv" || fail "the build time: setup_build_seconds"
echo "ok: the programs' build time apart: JSON, CSV and the table"
