#!/bin/sh
# expect.sh CODE PATTERN KLADDER [--needs B] [--lacks B] [--env K=V]
#           [--outputs] [--match RE] [--not RE] [--in-tmpdir]
#           [--leaves-nothing] [--keeps FILE] [--file FILE RE]
#           [--if-exists PATH] [--json-stdout EXPR] [--write FILE TEXT]
#           [--lines N] ARGS...
# Runs KLADDER ARGS and passes when it exits with CODE and its output
# (stdout and stderr) matches the extended regular expression PATTERN.
# --needs/--lacks B: skip (exit 77) unless backend B is / is not available.
# --env K=V: run with that variable set. --outputs: add --csv and --json
# files and check what was written to them.
# --match RE: the output must match RE too; --not RE: it must not (both
# may be repeated).
# --in-tmpdir: run in a fresh empty directory, removed afterwards, so
# relative paths in ARGS land there. --leaves-nothing: that directory must
# be empty after the run (no results file, no temporary one). --keeps
# FILE: FILE is there, with known contents, before the run, and must be
# unchanged after it. --file FILE RE: after the run FILE exists and a line
# of it matches RE. (All three imply --in-tmpdir.)
# --if-exists PATH: skip unless PATH exists (/dev/full).
# --json-stdout EXPR: stdout alone must be one JSON document for which
# the Python expression EXPR, over the document d, is true; skipped
# without python3.
# --write FILE TEXT: FILE holds TEXT (printf's %s of it; '' for an empty
# file) before the run (implies --in-tmpdir; --leaves-nothing does not
# count it).
# --lines N: the output has at most N lines.
# An argument '' (two quotes) in ARGS is an empty one, which CMake's
# add_test cannot pass.
code=$1 pattern=$2 kladder=$3
shift 3
outputs= matches= nots= tmpdir= leaves_nothing= keeps= json_expr=
file= file_re= write_file= write_text= max_lines=
nl='
'
while :; do
  case $1 in
  --needs | --lacks)
    if "$kladder" list | grep -Eq "^  $2 +available"; then have=1; else have=0; fi
    if [ "$1" = --needs ] && [ $have = 0 ]; then echo "SKIP: no $2 here"; exit 77; fi
    if [ "$1" = --lacks ] && [ $have = 1 ]; then echo "SKIP: $2 is here"; exit 77; fi
    shift 2 ;;
  --env) export "$2"; shift 2 ;;
  --outputs) outputs=$(mktemp -d); shift ;;
  --match) matches="$matches$2$nl"; shift 2 ;;
  --not) nots="$nots$2$nl"; shift 2 ;;
  --in-tmpdir) tmpdir=1; shift ;;
  --leaves-nothing) tmpdir=1 leaves_nothing=1; shift ;;
  --keeps) tmpdir=1 keeps=$2; shift 2 ;;
  --file) tmpdir=1 file=$2 file_re=$3; shift 3 ;;
  --write)
    tmpdir=1 write_file=$2 write_text=$3; shift 3
    [ "$write_text" != "''" ] || write_text= ;;
  --lines) max_lines=$2; shift 2 ;;
  --if-exists)
    if [ ! -e "$2" ]; then echo "SKIP: no $2 here"; exit 77; fi
    shift 2 ;;
  --json-stdout)
    if ! command -v python3 >/dev/null 2>&1; then
      echo "SKIP: no python3 to read the JSON"; exit 77
    fi
    json_expr=$2; shift 2 ;;
  *) break ;;
  esac
done
for arg; do
  shift
  [ "$arg" != "''" ] || arg=
  set -- "$@" "$arg"
done
if [ -n "$outputs" ]; then
  set -- "$@" --csv "$outputs/out.csv" --json "$outputs/out.json"
fi
if [ -n "$tmpdir" ]; then
  tmpdir=$(mktemp -d) && cd "$tmpdir" || exit 1
  [ -z "$keeps" ] || echo "contents from before the run" >"$keeps"
  [ -z "$write_file" ] || printf %s "$write_text" >"$write_file"
fi
log=$(mktemp) out=$(mktemp)
if [ -n "$json_expr" ]; then
  "$kladder" "$@" >"$out" 2>"$log"
  got=$?
  cat "$out" >>"$log"
else
  "$kladder" "$@" >"$log" 2>&1
  got=$?
fi
failed=
if [ -n "$outputs" ] && [ $got = 0 ]; then
  rows=$(grep -c ',PASS,' "$outputs/out.csv")
  head -n 1 "$outputs/out.csv" | grep -q '^workload,rung,backend,' &&
    [ "$rows" -ge 2 ] &&
    [ "$(grep -c '"check": "PASS"' "$outputs/out.json")" = "$rows" ] &&
    grep -q '"machine": {"cpu": ' "$outputs/out.json" &&
    grep -q '^stream,serial-copy,serial,"ceiling",' "$outputs/out.csv" &&
    echo "wrote both: $rows rows" >>"$log"
  rm -rf "$outputs"
fi
if [ -n "$json_expr" ] && [ $got = 0 ]; then
  if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$out" "$json_expr"; then
    failed="stdout is not JSON for which this holds: $json_expr"
  fi
fi
if [ -n "$tmpdir" ]; then
  left=$(ls -A)
  if [ -n "$keeps" ]; then
    if [ "$(cat "$keeps" 2>/dev/null)" != "contents from before the run" ]; then
      failed="$keeps was changed or removed by the run"
    fi
    left=$(ls -A | grep -Fxv -- "$keeps")
  fi
  [ -z "$write_file" ] || left=$(echo "$left" | grep -Fxv -- "$write_file")
  if [ -n "$file" ] && ! grep -Eq -- "$file_re" "$file" 2>/dev/null; then
    failed="$file is missing or does not match: $file_re"
  fi
  if [ -n "$leaves_nothing" ] && [ -n "$left" ]; then
    failed="the run left files behind: $(echo $left)"
  fi
  cd / && rm -rf "$tmpdir"
fi
cat "$log"
rm -f "$out"
if [ "$got" != "$code" ]; then
  echo "FAILED: exit code $got, expected $code"
  rm -f "$log"
  exit 1
fi
check() { # check must|mustnot RE: whether the output matches RE
  if grep -Eq -- "$2" "$log"; then
    [ "$1" = must ] || failed="output matches what it must not: $2"
  else
    [ "$1" = mustnot ] || failed="output does not match: $2"
  fi
}
check must "$pattern"
lines=$(($(wc -l <"$log")))
if [ -n "$max_lines" ] && [ "$lines" -gt "$max_lines" ]; then
  failed="the output has $lines lines, more than $max_lines"
fi
# One regular expression a line, unexpanded.
set -f
saved_ifs=$IFS IFS=$nl
for re in $matches; do check must "$re"; done
for re in $nots; do check mustnot "$re"; done
IFS=$saved_ifs
set +f
rm -f "$log"
if [ -n "$failed" ]; then
  echo "FAILED: $failed"
  exit 1
fi
echo "ok: exit $got, output matches"
