#!/bin/sh
# trace.sh KLADDER CHECKER ARGS...: runs `KLADDER run ARGS --trace --csv`
# in a fresh directory, then `python3 CHECKER trace csv` over what it
# wrote (check_trace.py). Skipped (77) without python3.
kladder=$1 checker=$2
shift 2
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 here"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$kladder" run "$@" -q --trace "$dir/trace.json" --csv "$dir/out.csv" \
  >"$dir/table.txt" 2>&1
code=$?
if [ "$code" != 0 ]; then
  cat "$dir/table.txt"
  echo "trace.sh: kladder exited $code"
  exit 1
fi
grep "overlap" "$dir/table.txt"
python3 "$checker" "$dir/trace.json" "$dir/out.csv"
