#!/usr/bin/env bash
# docs/performance.md, made by `kladder report --markdown` from the results
# files under results/: results/MACHINE/WORKLOAD.json, each the JSON of
# `kladder run -w WORKLOAD --json` on that machine at the default sizes
# (`scripts/gpu.sh bench WORKLOAD` on a GPU machine). To refresh a machine's
# figures, run again and replace its files; then `make performance`.
#
#   scripts/performance.sh KLADDER           write docs/performance.md
#   scripts/performance.sh KLADDER --check   exit 1 where docs/performance.md
#                                            is not what the files make, or
#                                            results/ breaks its rules
#
# The rules of results/: only MACHINE/WORKLOAD.json files (no dates in the
# names: a file is replaced, never added beside), each a results file, and
# at most 3 MB in all. MACHINES are the page's columns in order: one with
# no folder yet reads "not measured"; BACKENDS are rows every table has.
set -euo pipefail
MACHINES=h100,h100x4,h200,h200x2,host-2core
BACKENDS=serial,openmp,cuda,hip,openacc,opencl
MAX_BYTES=$((3 * 1024 * 1024))

[ $# -ge 1 ] || { echo "usage: $0 KLADDER [--check]" >&2; exit 2; }
kladder=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

page=docs/performance.md
# make_page OUT: the page of results/ written to OUT.
make_page() {
  "$kladder" report --markdown --machines "$MACHINES" --backends "$BACKENDS" \
    results/*/*.json -o "$1"
}
if [ "${2:-}" = --check ]; then
  bad=0
  while IFS= read -r f; do
    [[ "$f" =~ ^results/[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*\.json$ ]] ||
      { echo "results/: $f is not results/MACHINE/WORKLOAD.json"; bad=1; }
  done < <(find results -type f | sort)
  bytes=$(find results -type f -name '*.json' -printf '%s\n' |
          awk '{s += $1} END {print s + 0}')
  [ "$bytes" -le "$MAX_BYTES" ] ||
    { echo "results/: $bytes bytes, over the $MAX_BYTES allowed"; bad=1; }
  tmp=$(mktemp "${TMPDIR:-/tmp}/kladder-performance-XXXXXX")
  trap 'rm -f "$tmp"' EXIT
  make_page "$tmp"
  if ! diff -u "$page" "$tmp"; then
    echo "$page is not what results/ makes: run \`make performance\`"
    bad=1
  fi
  # README quotes the page's summary table between the same two markers.
  summary() { sed -n '/^<!-- summary -->$/,/^<!-- end summary -->$/p' "$1"; }
  if ! diff -u <(summary "$tmp") <(summary README.md); then
    echo "README.md's summary is not the page's: run \`make performance\`"
    bad=1
  fi
  [ "$bad" = 0 ] && echo "performance page, README summary and results/: ok"
  exit "$bad"
fi
make_page "$page"
# The summary table into README.md, between its markers.
splice_summary() {
  awk -v page="$page" '
    BEGIN {
      while ((getline line < page) > 0) {
        if (line == "<!-- summary -->") on = 1
        if (on) block = block line "\n"
        if (line == "<!-- end summary -->") on = 0
      }
    }
    $0 == "<!-- summary -->" { printf "%s", block; skip = 1; next }
    skip && $0 == "<!-- end summary -->" { skip = 0; next }
    !skip { print }
  ' README.md > README.md.new && mv README.md.new README.md
}
if grep -q '^<!-- summary -->$' README.md; then splice_summary; fi
echo "wrote $page"
