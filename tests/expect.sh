#!/bin/sh
# expect.sh CODE PATTERN KLADDER [--needs B] [--lacks B] [--env K=V]
#           [--outputs] ARGS...
# Runs KLADDER ARGS and passes when it exits with CODE and its output
# (stdout and stderr) matches the extended regular expression PATTERN.
# --needs/--lacks B: skip (exit 77) unless backend B is / is not available.
# --env K=V: run with that variable set. --outputs: add --csv and --json
# files and check what was written to them.
code=$1 pattern=$2 kladder=$3
shift 3
outputs=
while :; do
  case $1 in
  --needs | --lacks)
    if "$kladder" list | grep -Eq "^  $2 +available"; then have=1; else have=0; fi
    if [ "$1" = --needs ] && [ $have = 0 ]; then echo "SKIP: no $2 here"; exit 77; fi
    if [ "$1" = --lacks ] && [ $have = 1 ]; then echo "SKIP: $2 is here"; exit 77; fi
    shift 2 ;;
  --env) export "$2"; shift 2 ;;
  --outputs) outputs=$(mktemp -d); shift ;;
  *) break ;;
  esac
done
if [ -n "$outputs" ]; then
  set -- "$@" --csv "$outputs/out.csv" --json "$outputs/out.json"
fi
log=$(mktemp)
"$kladder" "$@" >"$log" 2>&1
got=$?
if [ -n "$outputs" ] && [ $got = 0 ]; then
  rows=$(grep -c ',PASS,' "$outputs/out.csv")
  head -n 1 "$outputs/out.csv" | grep -q '^workload,rung,backend,' &&
    [ "$rows" -ge 2 ] &&
    [ "$(grep -c '"check": "PASS"' "$outputs/out.json")" = "$rows" ] &&
    grep -q '"machine": {"cpu": ' "$outputs/out.json" &&
    grep -q '^stream,serial-triad,serial,"ceiling",' "$outputs/out.csv" &&
    echo "wrote both: $rows rows" >>"$log"
  rm -rf "$outputs"
fi
cat "$log"
if [ "$got" != "$code" ]; then
  echo "FAILED: exit code $got, expected $code"
  rm -f "$log"
  exit 1
fi
if ! grep -Eq -- "$pattern" "$log"; then
  echo "FAILED: output does not match: $pattern"
  rm -f "$log"
  exit 1
fi
rm -f "$log"
echo "ok: exit $got, output matches"
