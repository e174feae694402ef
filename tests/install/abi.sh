#!/bin/sh
# The ABI (docs/design.md, "The headers and the ABI"): libkladder.so
# exports exactly src/kladder.map's symbols (a build without the GPU
# module, its private ones that only the module's loader defines aside);
# its public node, named after
# the soname (KLADDER_MAJOR.MINOR), is exactly the functions the installed
# headers declare, each with a doc comment; every symbol of the library
# that the command, the GPU module and the module's test take from it is
# exported; kladder.h is at most 250 lines; and tests/install/example.c,
# kladder.h and one entry header, builds against the build tree and runs.
# Usage: abi.sh SOURCE_DIR BUILD_DIR C_COMPILER [LINK_FLAGS]
# (LINK_FLAGS: what a program linking the library needs, a sanitizer
# build's -fsanitize options.)
src=$1 build=$2 cc=$3 link=${4:-}
fail() { echo "FAIL: $*"; exit 1; }
lib=$build/libkladder.so
[ -e "$lib" ] || { echo "SKIP: no $lib (a static-only build)"; exit 77; }
command -v nm >/dev/null || { echo "SKIP: no nm here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
map=$src/src/kladder.map

# The functions an installed header declares: its text without comments
# (the compiler's preprocessor, includes not followed), cut into
# statements; a statement that starts with a type and then names kl_...(.
# Not a static inline function, a typedef or a call in an inline body.
declared() {
  for h in "$@"; do
    "$cc" -fpreprocessed -dD -E -P -x c "$h" | grep -v '^ *#' | tr '\n' ' ' |
      sed 's/[;{}]/\n/g'
  done | grep -Ev '^ *(static|typedef|return)\b' |
    sed -nE 's/^ *(const +)?(struct +)?[A-Za-z_][A-Za-z0-9_]*( *\*)* +\**(kl_[a-z0-9_]+) *\(.*/\4/p' |
    sort -u
}
declared "$src"/include/kladder*.h >"$tmp/declared" || fail "the headers do not preprocess"
[ -s "$tmp/declared" ] || fail "no function found in the installed headers"

# The map's nodes: each node's global names.
node() {
  awk -v want="$1" '
    /^[A-Z_0-9.]+ *\{/ { name = $1; sub(/\{.*/, "", name); inside = 1; global = 0; next }
    /^}/ { inside = 0; next }
    inside && /global:/ { global = 1; next }
    inside && /local:/ { global = 0; next }
    inside && global && name == want { gsub(/[ ;]/, ""); if ($0 != "") print }
  ' "$map" | sort -u
}
soname=$(objdump -p "$lib" 2>/dev/null | awk '/SONAME/ {print $2}')
[ -n "$soname" ] || soname=$(basename "$(readlink -f "$lib")" | sed -E 's/(\.so\.[0-9]+\.[0-9]+).*/\1/')
version=${soname#libkladder.so.}
public=KLADDER_$version
node "$public" >"$tmp/public"
node KLADDER_PRIVATE >"$tmp/private"
[ -s "$tmp/public" ] || fail "src/kladder.map has no node $public (the soname is $soname)"
if ! cmp -s "$tmp/declared" "$tmp/public"; then
  echo "FAIL: $public is not the installed headers' functions"
  comm -23 "$tmp/declared" "$tmp/public" | sed 's/^/  declared, not in the map: /'
  comm -13 "$tmp/declared" "$tmp/public" | sed 's/^/  in the map, not declared: /'
  exit 1
fi
sort -u "$tmp/public" "$tmp/private" >"$tmp/mapped"

# What the library exports (defined, with a version: not the version
# nodes' own names), against the map.
nm -D --defined-only --with-symbol-versions "$lib" 2>/dev/null |
  awk '$2 != "A" && $3 ~ /@/ {sub(/@.*/, "", $3); print $3}' | sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || nm -D --defined-only "$lib" |
  awk '$2 != "A" {print $3}' | sort -u >"$tmp/exported"
# Without the GPU module the loader is not built: its private symbols
# (the module's stubs' slots) are not there to export.
expected=$tmp/mapped
if ! ls "$build"/libkladder-*.so >/dev/null 2>&1; then
  comm -12 "$tmp/mapped" "$tmp/exported" | sort -u - "$tmp/public" >"$tmp/expected"
  expected=$tmp/expected
fi
if ! cmp -s "$tmp/exported" "$expected"; then
  echo "FAIL: libkladder.so exports other than src/kladder.map"
  comm -23 "$tmp/exported" "$expected" | sed 's/^/  exported, not in the map: /'
  comm -13 "$tmp/exported" "$expected" | sed 's/^/  in the map, not exported: /'
  exit 1
fi
# Every kl symbol the tree's own users take from the library is there.
for user in "$build/kladder" "$build"/libkladder-*.so "$build/tests/unit/test_module"; do
  [ -e "$user" ] || continue
  nm -D --undefined-only "$user" | awk '{print $2}' | sed 's/@.*//' |
    grep -E '^kl_' | sort -u | comm -23 - "$tmp/exported" >"$tmp/missing"
  [ ! -s "$tmp/missing" ] ||
    fail "$(basename "$user") takes what libkladder.so does not export: $(tr '\n' ' ' <"$tmp/missing")"
done

# A doc comment above every public function: from its declaration back to
# the first blank line, a comment (a group of declarations shares one).
for h in "$src"/include/kladder*.h; do
  awk -v file="$(basename "$h")" '
    /^[ \t]*$/ { commented = 0; next }
    /\*\// { commented = 1 }
    /^[ \t]*(\/\*|\*)/ { next }
    match($0, /kl_[a-z0-9_]+ *\(/) && $0 !~ /^[ \t]*(static|typedef|#)/ && $0 !~ /^[ \t]+/ {
      name = substr($0, RSTART, RLENGTH); sub(/ *\($/, "", name)
      if (!commented) print file ": " name
    }' "$h"
done | sort -u >"$tmp/bare"
awk -F': ' 'NR == FNR { want[$1]; next } ($2 in want)' "$tmp/declared" "$tmp/bare" >"$tmp/undocumented"
[ ! -s "$tmp/undocumented" ] ||
  fail "public functions without a doc comment: $(tr '\n' ';' <"$tmp/undocumented")"

lines=$(wc -l <"$src/include/kladder.h")
[ "$lines" -le 250 ] || fail "include/kladder.h has $lines lines, more than 250"

[ "$(grep -c '' "$src/tests/install/example.c")" -le 10 ] || fail "example.c is more than ten lines"
# shellcheck disable=SC2086 # LINK_FLAGS are words
"$cc" -std=c11 -Wall -Werror -I"$src/include" -I"$build/include" \
  "$src/tests/install/example.c" $link -L"$build" -lkladder \
  -Wl,-rpath,"$build" -o "$tmp/example" 2>"$tmp/build.log" ||
  fail "example.c does not build: $(cat "$tmp/build.log")"
out=$("$tmp/example" 2>&1) || fail "example.c: $out"
echo "example: $out"
echo "abi: $(wc -l <"$tmp/public") public functions ($public), $(wc -l <"$tmp/private") private, kladder.h $lines lines"
