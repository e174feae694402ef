#!/usr/bin/env bash
# No measured figure in the product's text but where figures live: rates
# (GB/s, TB/s, GFLOP/s, TFLOP/s, Gpt/s) and speeds over a vendor library
# ("1.2x cuBLAS", "1.2× CUB") may appear only in docs/performance.md (made
# from results/) and the workloads' LESSONS.md (each figure there with its
# machine), and in README.md only inside the summary it quotes from
# docs/performance.md. Times in ms, µs or ns are figures too in README.md
# and the workloads' pages (docs/workloads/); elsewhere in docs/ a time is
# a setting the text states (energy's 25 ms samples, design's bounds) and
# passes. Everything else must say how to get a figure, not carry one.
# And README.md stays a guide: at most 300 lines of at most 100 columns
# (counted in bytes, which a wide character only makes stricter) and
# 3,000 words.
#   tests/cli/figures.sh SOURCE_DIR
set -u
root=${1:?usage: figures.sh SOURCE_DIR}
cd "$root" || exit 2
rate='[0-9][0-9.,]* ?(GB/s|TB/s|MB/s|GFLOP/s|TFLOP/s|Gpt/s)([^A-Za-z0-9]|$)'
time='[0-9][0-9.,]* ?(ms|µs|us|ns)([^A-Za-z0-9]|$)'
vendor='[0-9][0-9.]* ?[x×] (cuBLAS|CUB|cub|cuSPARSE|cusparse|OpenBLAS|openblas|the vendor|vendor)'
found=0
scan() { # scan FILE TIMES: every line that carries a figure, FILE:LINE: text
  awk -v rate="$rate" -v vendor="$vendor" -v time="$time" -v times="$2" \
      -v file="$1" '
    /^<!-- summary -->$/ { quoted = 1 }
    /^<!-- end summary -->$/ { quoted = 0; next }
    !quoted && ($0 ~ rate || $0 ~ vendor || (times && $0 ~ time)) {
      print file ":" NR ": " $0; bad = 1
    }
    END { exit bad }' "$1"
}
for f in README.md $(find docs -name '*.md' ! -path docs/performance.md | sort); do
  case $f in README.md | docs/workloads/*) times=1 ;; *) times=0 ;; esac
  scan "$f" "$times" || found=1
done
lines=$(wc -l <README.md) words=$(wc -w <README.md)
wide=$(awk 'length > 100 { print FILENAME ":" FNR }' README.md)
[ "$lines" -le 300 ] || { echo "README.md: $lines lines, over 300"; found=1; }
[ "$words" -le 3000 ] || { echo "README.md: $words words, over 3000"; found=1; }
[ -z "$wide" ] || { echo "over 100 columns: $wide"; found=1; }
if [ "$found" = 0 ]; then
  echo "no measured figure outside docs/performance.md and LESSONS.md"
else
  echo "FAIL: measured figures above: they belong in docs/performance.md" \
    "(results/) or a workload's LESSONS.md"
fi
exit "$found"
