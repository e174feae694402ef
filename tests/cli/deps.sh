#!/bin/sh
# deps.sh DEPS_SCRIPT
# CTest's `deps`: scripts/deps.sh, the check that `make` runs before it
# configures, on a PATH of stub commands in a temporary folder (nothing
# is installed: apt-get and sudo are stubs that write down how they were
# called, and "install" a package by writing a stub command or file).
#  - all that is required here: exit 0, no apt-get, and the optional
#    packages absent named on one line;
#  - cmake missing, not root, no sudo: exit 2 before any apt-get, one line
#    naming `apt-get install -y cmake`; with a sudo that asks for a
#    password, `sudo apt-get install -y cmake`; without apt-get, the
#    package manager;
#  - cmake missing as root: apt-get update, then apt-get install of cmake
#    alone (no optional package), exit 0; where the install leaves it
#    missing, exit 2 and one line;
#  - not root with a sudo that needs no password: the same through sudo;
#  - --optional as root: the optional Debian packages installed too.
set -eu
deps=$1
sh=$(command -v sh)
chmod=$(command -v chmod)
mkdir=$(command -v mkdir)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-deps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
  echo "FAIL: $*" >&2
  for f in out err log; do
    [ ! -s "$tmp/$f" ] || { echo "--- $f:"; cat "$tmp/$f"; } >&2
  done
  exit 1
}

bin=$tmp/bin sys=$tmp/sys log=$tmp/log

# stub NAME BODY: an executable NAME in $bin running BODY.
stub() {
  printf '#!%s\n%s\n' "$sh" "$2" >"$bin/$1"
  "$chmod" +x "$bin/$1"
}

# A fresh folder of stubs: the required commands but those named.
fresh() {
  rm -rf "$bin" "$sys" "$log"
  mkdir -p "$bin" "$sys/usr/lib/x86_64-linux-gnu" \
    "$sys/usr/lib/gcc/x86_64-linux-gnu/12/accel/nvptx-none"
  for cmd in gcc g++ make cmake; do
    case " $* " in *" $cmd "*) continue ;; esac
    # shellcheck disable=SC2016
    stub "$cmd" '[ "${1-}" != -dumpversion ] || echo 12'
  done
  # apt-get: writes its arguments down; `install` makes a stub of each
  # command named and the file of each optional library, unless
  # KL_STUB_INSTALLS_NOTHING is set.
  stub apt-get "echo \"apt-get \$*\" >>'$log'
[ \"\$1\" = install ] && [ -z \"\${KL_STUB_INSTALLS_NOTHING-}\" ] || exit 0
for p; do
  case \$p in
  gcc|g++|make|cmake|pkg-config|python3|chromium)
    printf '#!$sh\\n' >'$bin'/\$p; '$chmod' +x '$bin'/\$p ;;
  openmpi-bin)
    printf '#!$sh\\n' >'$bin'/mpiexec; '$chmod' +x '$bin'/mpiexec ;;
  iproute2)
    printf '#!$sh\\n' >'$bin'/ip; '$chmod' +x '$bin'/ip ;;
  libopenblas-dev) : >'$sys/usr/lib/x86_64-linux-gnu/libopenblas.so' ;;
  opencl-headers) '$mkdir' -p '$sys/usr/include/CL'; : >'$sys/usr/include/CL/cl.h' ;;
  libsqlite3-dev) '$mkdir' -p '$sys/usr/include'; : >'$sys/usr/include/sqlite3.h' ;;
  gcc-12-offload-nvptx)
    : >'$sys/usr/lib/gcc/x86_64-linux-gnu/12/accel/nvptx-none/mkoffload' ;;
  esac
done"
}

# deps UID [ARGS...]: the script under the stubs' PATH alone; sets code.
nothing=
deps() {
  uid=$1
  shift
  code=0
  env -i PATH="$bin" KL_DEPS_UID="$uid" KL_DEPS_APT="$bin/apt-get" \
    KL_DEPS_SYSROOT="$sys" ${nothing:+KL_STUB_INSTALLS_NOTHING=1} \
    "$sh" "$deps" "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
}

lines() { [ -s "$1" ] && wc -l <"$1" | tr -d ' ' || echo 0; }

# All that is required here: nothing installed, root or not.
for uid in 0 1000; do
  fresh
  deps $uid
  [ $code = 0 ] || fail "all required here (uid $uid): exit $code, not 0"
  [ ! -e "$log" ] || fail "all required here (uid $uid): apt-get was called"
  [ ! -s "$tmp/err" ] || fail "all required here (uid $uid): wrote to stderr"
  grep -q '^kladder: optional, not installed: libopenblas-dev (.*gcc-12-offload-nvptx (.*pkg-config (.*python3 (.*libopenmpi-dev and openmpi-bin (.*iproute2 (.*opencl-headers, ocl-icd-opencl-dev and pocl-opencl-icd (.*libsqlite3-dev (.*chromium (.*nvcc (' "$tmp/out" ||
    fail "all required here: no line naming the optional packages absent"
  [ "$(lines "$tmp/out")" = 1 ] || fail "all required here: more than one line"
done
echo "ok: all required here: exit 0, no apt-get, the optional ones named"

# cmake missing, not root, no sudo: exit 2, one line, nothing run.
fresh cmake
deps 1000
[ $code = 2 ] || fail "cmake missing, not root: exit $code, not 2"
[ ! -e "$log" ] || fail "cmake missing, not root: apt-get was called"
grep -q '^kladder: missing .*: cmake; .*apt-get update && apt-get install -y cmake' "$tmp/err" ||
  fail "cmake missing, not root: the line does not name apt-get install -y cmake"
if [ "$(lines "$tmp/err")" != 1 ] || [ -s "$tmp/out" ]; then
  fail "cmake missing, not root: not one line"
fi
echo "ok: cmake missing, not root, no sudo: exit 2, one line naming apt-get install -y cmake"

# A sudo that asks for a password (-n fails): the command names sudo.
fresh cmake
stub sudo "echo \"sudo \$*\" >>'$log'; exit 1"
deps 1000
[ $code = 2 ] || fail "cmake missing, sudo asks for a password: exit $code, not 2"
grep -q 'sudo apt-get install -y cmake' "$tmp/err" ||
  fail "cmake missing, sudo asks for a password: the line does not name sudo apt-get"
! grep -q '^apt-get' "$log" || fail "cmake missing, sudo asks for a password: apt-get ran"
echo "ok: cmake missing, sudo needs a password: exit 2, the line names sudo apt-get"

# No apt-get: the system's package manager.
fresh cmake
rm "$bin/apt-get"
deps 0
[ $code = 2 ] || fail "cmake missing, no apt-get: exit $code, not 2"
grep -q "package manager (Debian: apt-get update && apt-get install -y cmake)" "$tmp/err" ||
  fail "cmake missing, no apt-get: the line does not say so"
echo "ok: cmake missing, no apt-get: exit 2"

# cmake missing as root: update, then install of cmake alone.
fresh cmake
deps 0
[ $code = 0 ] || fail "cmake missing as root: exit $code, not 0"
printf '%s\n' "apt-get update -qq" \
  "apt-get install -y -qq --no-install-recommends cmake" >"$tmp/expect"
cmp -s "$log" "$tmp/expect" || { cat "$tmp/expect" >&2; fail "cmake missing as root: apt-get not called as above"; }
grep -q '^kladder: installing what the build requires: cmake (apt-get)$' "$tmp/out" ||
  fail "cmake missing as root: no line saying what is installed"
echo "ok: cmake missing as root: apt-get update, then apt-get install cmake"

# The install leaves it missing: exit 2, one line.
fresh cmake
nothing=1
deps 0
nothing=
[ $code = 2 ] || fail "apt-get installs nothing: exit $code, not 2"
grep -q '^kladder: apt-get did not install cmake; .*apt-get install -y cmake$' "$tmp/err" ||
  fail "apt-get installs nothing: no line naming cmake"
[ "$(lines "$tmp/err")" = 1 ] || fail "apt-get installs nothing: not one line"
echo "ok: apt-get installs nothing: exit 2, one line"

# Not root, a sudo that needs no password: through it.
fresh g++ cmake
stub sudo "echo \"sudo \$*\" >>'$log'; [ \"\$1\" = -n ] && shift
[ \"\$*\" = true ] && exit 0
[ \"\$1\" = env ] && shift; export \"\$1\"; shift; exec \"\$@\""
deps 1000
[ $code = 0 ] || fail "g++ and cmake missing, sudo: exit $code, not 0"
printf '%s\n' "sudo -n true" \
  "sudo -n env DEBIAN_FRONTEND=noninteractive $bin/apt-get update -qq" \
  "apt-get update -qq" \
  "sudo -n env DEBIAN_FRONTEND=noninteractive $bin/apt-get install -y -qq --no-install-recommends g++ cmake" \
  "apt-get install -y -qq --no-install-recommends g++ cmake" >"$tmp/expect"
cmp -s "$log" "$tmp/expect" || { cat "$tmp/expect" >&2; fail "g++ and cmake missing, sudo: not called as above"; }
echo "ok: not root, sudo without a password: sudo apt-get install g++ cmake"

# --optional as root: the optional Debian packages too, nvcc named only.
fresh
deps 0 --optional
[ $code = 0 ] || fail "--optional: exit $code, not 0"
printf '%s\n' "apt-get update -qq" \
  "apt-get install -y -qq --no-install-recommends libopenblas-dev gcc-12-offload-nvptx pkg-config python3 python3-venv libopenmpi-dev openmpi-bin iproute2 opencl-headers ocl-icd-opencl-dev pocl-opencl-icd libsqlite3-dev chromium" >"$tmp/expect"
cmp -s "$log" "$tmp/expect" || { cat "$tmp/expect" >&2; fail "--optional: apt-get not called as above"; }
grep -q '^kladder: optional, not installed: nvcc (the CUDA backend' "$tmp/out" ||
  fail "--optional: nvcc not named as absent"
echo "ok: --optional as root: the optional Debian packages installed"
