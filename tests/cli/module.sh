#!/bin/sh
# module.sh KLADDER LIBRARY MAXRSS LIMIT_KIB SERIAL_SUM [MODULE]
# CTest's `starts-without-gpu-libraries`: the library starts with the GPU
# libraries hidden. KLADDER is the command, LIBRARY libkladder.so, MAXRSS
# tests/tools/maxrss.c, LIMIT_KIB the most `kladder --version` and SERIAL_SUM
# (tests/tools/serial_sum.c) may take (0: not checked), MODULE the GPU module
# (libkladder-cuda.so, libkladder-hip.so) where the build has one.
#  - neither libkladder.so nor the command names a GPU runtime or vendor
#    library in its dynamic section (readelf -d);
#  - `kladder --version` peaks under LIMIT_KIB resident, and so does a
#    program that sums four doubles on a serial context, loading no GPU
#    library;
#  - with the module hidden (KLADDER_MODULE_DIR an empty folder), and with
#    a module that dlopen refuses, a serial run passes, `kladder list`
#    says the GPU backend is not here because of the module, in one line
#    (cut to 100 columns), and `kladder list --all` and a run on the GPU
#    backend say why in full;
#  - with the module where the build put it, beside libkladder.so, it
#    loads (whether a device answers or not).
set -eu
kladder=$1 library=$2 maxrss=$3 limit_kib=$4 serial_sum=$5 module=${6:-}
gpu_libraries='lib(cudart|cuda|cublas|cublasLt|curand|cusparse|cufft|nvJitLink|nvrtc|amdhip64|hipblas|hiprand|hipsparse|rocblas|rocrand|rocsparse|hsa-runtime64)[.]'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-module.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

if command -v readelf >/dev/null 2>&1; then
  for f in "$library" "$kladder"; do
    found=$(readelf -d "$f" | grep NEEDED | grep -E "$gpu_libraries" || true)
    [ -z "$found" ] || { printf '%s\n' "$found"; fail "$f needs a GPU library"; }
  done
  echo "ok: no GPU library NEEDED by ${library##*/} or ${kladder##*/}"
else
  echo "skipped: the dynamic sections (no readelf here)"
fi

# peak NAME PROGRAM ARGS...: it runs, and peaks under the limit.
peak() {
  name=$1
  shift
  out=$("$maxrss" "$@") || { printf '%s\n' "$out"; fail "$name: exit $?"; }
  kib=$(printf '%s\n' "$out" | sed -n 's/^maxrss //p')
  [ -n "$kib" ] || { printf '%s\n' "$out"; fail "$name: no maxrss"; }
  [ "$limit_kib" = 0 ] || [ "$kib" -lt "$limit_kib" ] ||
    fail "$name peaked at $kib KiB, not under $limit_kib KiB"
  echo "ok: $name peaked at $kib KiB resident"
}
peak "kladder --version" "$kladder" --version
peak "a serial sum of four doubles (serial_sum)" "$serial_sum"

[ -n "$module" ] || { echo "ok: no GPU module in this build"; exit 0; }
name=${module##*/}
[ -f "$(dirname "$library")/$name" ] ||
  fail "$name is not beside ${library##*/}"

# A run that names only host backends loads no GPU module (the loader's
# own record of what it opens, LD_DEBUG=files) and peaks under 30 MiB
# resident with a million doubles (8 MB) to sum.
serial_run="$kladder run -w reduce -n 1M -b serial -q"
LD_DEBUG=files LD_DEBUG_OUTPUT=$tmp/ld $serial_run >"$tmp/run" 2>&1 ||
  { cat "$tmp/run"; fail "the serial run: exit $?"; }
! grep -q "file=.*$name" "$tmp"/ld* ||
  fail "a run with -b serial loaded $name"
echo "ok: a run with -b serial does not load $name"
if [ "$limit_kib" != 0 ]; then
  limit_kib=30720
  peak "a serial reduce of 1M doubles" $serial_run # peak sets name
  name=${module##*/}
fi

# gpu_line: the GPU backend's line of `kladder list`.
gpu_line() {
  "$kladder" list >"$tmp/list" 2>&1 || { cat "$tmp/list" >&2; fail "kladder list: exit $?"; }
  line=$(grep -E '^  (cuda|hip) ' "$tmp/list") || { cat "$tmp/list" >&2; fail "no GPU backend listed"; }
  printf '%s\n' "$line"
}
# hidden WHAT PATTERN: with KLADDER_MODULE_DIR set, the GPU backend is not
# here for the reason PATTERN, and a serial run passes. list's line names
# the module (the reason may be cut there); --all gives the reason whole,
# wrapped, a long path broken anywhere (its lines joined here and matched
# without spaces).
hidden() {
  line=$(gpu_line)
  printf '%s\n' "$line" | grep -Eq "^  (cuda|hip) +not here +module " ||
    { printf '%s\n' "$line"; fail "$1: the GPU backend's line does not say why"; }
  "$kladder" list --all >"$tmp/all" 2>&1 || fail "$1: kladder list --all: exit $?"
  want=$(printf '%s' "(cuda|hip)nothere.*module.*$name notloaded:.*$2" | tr -d ' ')
  awk '/^  (cuda|hip) / { on = 1; printf "%s", $0; next }
       on && /^   / { printf "%s", $0; next }
       on { exit }' "$tmp/all" | tr -d ' ' | grep -Eq "$want" ||
    { cat "$tmp/all"; fail "$1: kladder list --all does not say why"; }
  "$kladder" run -w map -b serial -n 1000 --reps 1 >"$tmp/run" 2>&1 ||
    { cat "$tmp/run"; fail "$1: the serial run: exit $?"; }
  grep -Eq "map +serial .*PASS" "$tmp/run" || { cat "$tmp/run"; fail "$1: the serial run did not pass"; }
  # A run that names no backend says why the GPU's rows are missing.
  "$kladder" run -w read -n 1000 --reps 1 >"$tmp/default" 2>&1 ||
    { cat "$tmp/default"; fail "$1: a run naming no backend: exit $?"; }
  tr -d '\n ' <"$tmp/default" | grep -Eq "note:(cuda|hip)isnothere:module" ||
    { cat "$tmp/default"; fail "$1: a run naming no backend does not say the GPU backend is missing"; }
  code=0
  backend=$(printf '%s\n' "$line" | awk '{print $1}')
  "$kladder" run -w map -b "$backend" -n 1000 >"$tmp/gpu" 2>&1 || code=$?
  [ $code = 2 ] && grep -Eq "not available here: module .*$name not loaded: .*$2" "$tmp/gpu" ||
    { cat "$tmp/gpu"; fail "$1: a run on the GPU backend: exit $code, not 2 with the reason"; }
  echo "ok: $1: $(printf '%s\n' "$line" | sed 's/^  *//')"
}

mkdir "$tmp/empty"
KLADDER_MODULE_DIR=$tmp/empty hidden "module hidden" "No such file"
mkdir "$tmp/broken"
echo "not a shared object" >"$tmp/broken/$name"
KLADDER_MODULE_DIR=$tmp/broken hidden "module refused by dlopen" "."

line=$(gpu_line)
if printf '%s\n' "$line" | grep -q "not loaded"; then
  printf '%s\n' "$line"
  fail "the module beside ${library##*/} did not load"
fi
echo "ok: the module beside ${library##*/} loads: $(printf '%s\n' "$line" | sed 's/^  *//')"
