#!/bin/sh
# check.sh BUILD SOURCE VERSION CMAKE CC [MODULE]
# CTest's `install`: installs the build tree BUILD into a fresh temporary
# prefix and builds tests/install/consumer.c against it as a program
# outside the tree would: with `pkg-config --cflags --libs kladder` (the
# shared library), with `pkg-config --static` (the static library), and
# through find_package(kladder) (tests/install/CMakeLists.txt: the targets
# kladder::kladder and kladder::kladder_static). Each program must run and
# print the version, the workload count and a passing serial map. MODULE,
# where the build has a GPU module (libkladder-cuda.so), must be installed
# beside libkladder.so, and the installed command must load it. The
# prefix is removed at the end, and BUILD's install_manifest.txt (which
# `make uninstall` reads) is put back as it was.
set -eu
build=$1 source=$2 version=$3 cmake=$4 cc=$5 module=${6:-}
here=$source/tests/install
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-install.XXXXXX")
manifest=$build/install_manifest.txt
saved=
if [ -f "$manifest" ]; then
  saved=$tmp/install_manifest.txt
  cp "$manifest" "$saved"
fi
cleanup() {
  if [ -n "$saved" ]; then cp "$saved" "$manifest"; else rm -f "$manifest"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

fail() {
  echo "FAIL: $*"
  exit 1
}
# quiet LOG COMMAND...: run it, its output to LOG, shown when it fails.
quiet() {
  log=$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log"; fail "$*"; }
}
# expect NAME PROGRAM: it runs and prints what consumer.c prints on success.
expect() {
  name=$1
  out=$("$2" 2>&1) || { printf '%s\n' "$out"; fail "$name: exit $?"; }
  printf '%s\n' "$out" | grep -q "^kladder $version (" ||
    { printf '%s\n' "$out"; fail "$name: not version $version"; }
  printf '%s\n' "$out" | grep -Eq "^workloads [1-9][0-9]*$" ||
    { printf '%s\n' "$out"; fail "$name: no workloads"; }
  printf '%s\n' "$out" | grep -q "^map serial n=1000: OK PASS$" ||
    { printf '%s\n' "$out"; fail "$name: the serial map did not pass"; }
  echo "ok: $name"
}
# needs PROGRAM LIBRARY: whether PROGRAM's dynamic section names LIBRARY.
needs() {
  readelf -d "$1" | grep -q "NEEDED.*\[$2"
}

prefix=$tmp/prefix
quiet "$tmp/install.log" "$cmake" --install "$build" --prefix "$prefix"

# What was installed.
pc=$(find "$prefix" -name kladder.pc)
[ -n "$pc" ] || fail "no kladder.pc under the prefix"
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
for f in bin/kladder include/kladder.h include/kladder-version.h; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done
# The man page: installed where man looks, and read without a warning
# where man and groff are here.
page=$(find "$prefix" -path '*/man1/kladder.1')
[ -n "$page" ] || fail "no man1/kladder.1 under the prefix"
grep -q '^\.TH KLADDER 1 ' "$page" || fail "kladder.1 is not a man page"
if command -v groff >/dev/null 2>&1; then
  warned=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warned" ] || fail "groff warns on kladder.1: $warned"
fi
# A man that formats no page at all (a minimized system's stand-in, or
# one without nroff) shows not even the page's title: its checks skip.
shown=
if command -v man >/dev/null 2>&1; then
  bs=$(printf '\b')
  # Overstrikes (bold as X backspace X) taken out.
  shown=$(MANPAGER=cat MANWIDTH=80 man -l "$page" 2>/dev/null |
    sed "s/.$bs//g" || true)
  case $shown in
  *KLADDER*) ;;
  *) echo "note: man here formats no page (no nroff, or a stand-in): man's checks skipped"
     shown= ;;
  esac
fi
if [ -n "$shown" ]; then
  printf '%s\n' "$shown" | grep -q "^SYNOPSIS" ||
    fail "man -l kladder.1 shows no SYNOPSIS"
  MANPATH="$(dirname "$(dirname "$page")")" MANPAGER=cat man kladder \
    2>/dev/null | grep -q "kladder run" || fail "man kladder does not find it"
fi
for f in libkladder.a libkladder.so "libkladder.so.${version%.*}" \
  "libkladder.so.$version" cmake/kladder/kladderConfig.cmake \
  cmake/kladder/kladderConfigVersion.cmake cmake/kladder/kladderTargets.cmake; do
  [ -e "$libdir/$f" ] || fail "$libdir/$f not installed"
done
[ "$(readlink "$libdir/libkladder.so")" = "libkladder.so.${version%.*}" ] ||
  fail "libkladder.so does not point at libkladder.so.${version%.*}"
[ -z "$(find "$prefix" -name kladder-build.h)" ] || fail "kladder-build.h installed"
# The user's API only: no model header beside kladder.h, and no model
# struct declared in it (kl_param_info, kl_backend_info and the other info
# structs are public; kl_param, kl_backend and the rest are not).
incdir=$prefix/include
for f in model.h internal.h harness.h; do
  [ -z "$(find "$prefix" -name "$f")" ] || fail "$f installed"
done
for f in "$incdir"/*.h; do
  case ${f##*/} in
  kladder.h | kladder-*.h) ;;
  *) fail "${f#"$prefix"/} installed: not a public header" ;;
  esac
done
model=$(grep -nE 'kl_(workload|rung|param|backend)[[:space:]]*\{|kl_(plan|args|reps|buffer_spec)([^_a-zA-Z0-9]|$)' \
  "$incdir"/kladder.h "$incdir"/kladder-*.h || true)
[ -z "$model" ] || { printf '%s\n' "$model"; fail "an installed header declares the model"; }
"$prefix/bin/kladder" --version | grep -q "^kladder $version$" ||
  fail "the installed command does not say kladder $version"
echo "ok: installed files, the user's API only, bin/kladder --version"
if [ -n "$module" ]; then
  [ -f "$libdir/$module" ] || fail "$libdir/$module not installed"
  line=$("$prefix/bin/kladder" list | grep -E '^  (cuda|hip) ') ||
    fail "the installed command lists no GPU backend"
  case $line in
  *"not loaded"*) fail "the installed command does not load $module: $line" ;;
  esac
  echo "ok: $module installed beside libkladder.so and loaded"
fi

have_readelf=
command -v readelf >/dev/null 2>&1 && have_readelf=1

if command -v pkg-config >/dev/null 2>&1; then
  export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  [ "$(pkg-config --modversion kladder)" = "$version" ] ||
    fail "pkg-config --modversion kladder is not $version"
  # Shared: the library found at run time through the rpath.
  # shellcheck disable=SC2046
  quiet "$tmp/cc.log" "$cc" -o "$tmp/pc-shared" "$here/consumer.c" \
    $(pkg-config --cflags --libs kladder) "-Wl,-rpath,$libdir"
  [ -z "$have_readelf" ] || needs "$tmp/pc-shared" "libkladder.so.${version%.*}" ||
    fail "pkg-config shared: the program does not load libkladder.so"
  expect "pkg-config, shared library" "$tmp/pc-shared"
  # Static: libkladder.so sits beside libkladder.a, and -lkladder would
  # take it; -l:libkladder.a names the archive.
  libs=$(pkg-config --static --libs kladder |
    sed 's/\(^\| \)-lkladder\( \|$\)/\1-l:libkladder.a\2/')
  # shellcheck disable=SC2046,SC2086
  quiet "$tmp/cc.log" "$cc" -o "$tmp/pc-static" "$here/consumer.c" \
    $(pkg-config --cflags kladder) $libs
  [ -z "$have_readelf" ] || ! needs "$tmp/pc-static" libkladder ||
    fail "pkg-config --static: the program loads libkladder.so"
  expect "pkg-config --static, static library" "$tmp/pc-static"
else
  echo "skipped: the pkg-config builds (no pkg-config here)"
fi

# find_package(kladder): kladder::kladder and kladder::kladder_static.
quiet "$tmp/cmake.log" "$cmake" -S "$here" -B "$tmp/consumer" \
  "-DCMAKE_PREFIX_PATH=$prefix" "-DCMAKE_C_COMPILER=$cc" -DCMAKE_BUILD_TYPE=Release
quiet "$tmp/cmake.log" "$cmake" --build "$tmp/consumer"
[ -z "$have_readelf" ] || needs "$tmp/consumer/consumer" "libkladder.so.${version%.*}" ||
  fail "find_package: kladder::kladder is not the shared library"
[ -z "$have_readelf" ] || ! needs "$tmp/consumer/consumer-static" libkladder ||
  fail "find_package: kladder::kladder_static loads libkladder.so"
expect "find_package, kladder::kladder" "$tmp/consumer/consumer"
expect "find_package, kladder::kladder_static" "$tmp/consumer/consumer-static"
