#!/bin/sh
# deb.sh BUILD VERSION CPACK MAN_PAGE [MODULE]
# CTest's `deb-package`: the Debian packages of the build tree BUILD, made
# by CPack (cmake/packaging.cmake) into a temporary folder and read back
# with dpkg-deb. kladder_VERSION_ARCH.deb must hold the command, the shared
# library and its soname link, the static library, the headers, kladder.pc,
# the CMake package and (MAN_PAGE nonempty: the build made it) the man page,
# and name its dependencies; where the build has a GPU module (MODULE,
# libkladder-cuda.so), the module is in a package of its own,
# kladder-cuda_VERSION_ARCH.deb, which depends on kladder of the same
# version, and not in kladder's. No other package is made. The folder is
# removed at the end, and the install manifests CPack writes into BUILD
# are put back as they were. Skips where dpkg-deb is not here.
set -eu
build=$1 version=$2 cpack=$3 man=$4 module=${5:-}
command -v dpkg-deb >/dev/null || { echo "SKIP: no dpkg-deb here"; exit 77; }
command -v "$cpack" >/dev/null || { echo "SKIP: no cpack here ($cpack)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-deb.XXXXXX")
# cpack installs each component through BUILD's install script, which
# writes BUILD/install_manifest_COMPONENT.txt: those there before are kept.
mkdir "$tmp/manifests"
for f in "$build"/install_manifest_*.txt; do
  [ -f "$f" ] && cp "$f" "$tmp/manifests/"
done
cleanup() {
  for f in "$build"/install_manifest_*.txt; do
    [ -f "$f" ] && rm -f "$f"
  done
  for f in "$tmp"/manifests/*; do
    [ -f "$f" ] && cp "$f" "$build/"
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

fail() {
  echo "FAIL: $*"
  exit 1
}

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" \
  >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }

arch=$(dpkg-deb -f "$(ls "$tmp"/out/kladder_*.deb | head -1)" Architecture 2>/dev/null) ||
  { ls "$tmp/out"; fail "no kladder_*.deb made"; }
deb=$tmp/out/kladder_${version}_$arch.deb
[ -f "$deb" ] || { ls "$tmp/out"; fail "no kladder_${version}_$arch.deb"; }
made=$(cd "$tmp/out" && ls ./*.deb | sed 's|^\./||' | sort)
expected="kladder_${version}_$arch.deb"
gpu=
if [ -n "$module" ]; then
  gpu=$(echo "$module" | sed 's/^lib//; s/\.so$//')
  expected=$(printf '%s\n%s\n' "$expected" "${gpu}_${version}_$arch.deb" | sort)
fi
[ "$made" = "$expected" ] || fail "packages made: $made; expected: $expected"

# field DEB NAME: the control field, or nothing.
field() { dpkg-deb -f "$1" "$2" 2>/dev/null || true; }
# The paths in DEB, one a line ("./usr/bin/kladder"; a link "A -> B").
dpkg-deb -c "$deb" | awk '{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' \
  >"$tmp/files" || fail "dpkg-deb -c $deb"
has() { grep -Eq "^\./usr/$1\$" "$tmp/files" || fail "kladder's package lacks usr/$1"; }

[ "$(field "$deb" Package)" = kladder ] || fail "Package: $(field "$deb" Package)"
[ "$(field "$deb" Version)" = "$version" ] || fail "Version: $(field "$deb" Version)"
depends=$(field "$deb" Depends)
echo "$depends" | grep -Eq '(^|, )libc6( |,|$)' || fail "Depends lacks libc6: '$depends'"
[ -n "$(field "$deb" Description)" ] || fail "no Description"
[ -n "$(field "$deb" Maintainer)" ] || fail "no Maintainer"

major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
has 'bin/kladder'
lib='lib(/[a-z0-9_-]+)?'
has "$lib/libkladder\\.so\\.$version"
has "$lib/libkladder\\.so\\.$major\\.$minor -> libkladder\\.so\\.$version"
has "$lib/libkladder\\.so -> libkladder\\.so\\.$major\\.$minor"
has "$lib/libkladder\\.a"
has 'include/kladder\.h'
has 'include/kladder-version\.h'
has "$lib/pkgconfig/kladder\\.pc"
has "$lib/cmake/kladder/kladderConfig\\.cmake"
has "$lib/cmake/kladder/kladderConfigVersion\\.cmake"
if [ -n "$man" ]; then
  has 'share/man/man1/kladder\.1(\.gz)?'
fi
echo "ok: kladder_${version}_$arch.deb: $(wc -l <"$tmp/files") entries; Depends: $depends"

if [ -n "$module" ]; then
  grep -q "/$module\$" "$tmp/files" && fail "$module is in kladder's package"
  gdeb=$tmp/out/${gpu}_${version}_$arch.deb
  dpkg-deb -c "$gdeb" | grep -Eq " \./usr/$lib/$module\$" ||
    fail "$module is not in ${gpu}'s package"
  gdepends=$(field "$gdeb" Depends)
  echo "$gdepends" | grep -Fq "kladder (= $version)" ||
    fail "$gpu does not depend on kladder (= $version): '$gdepends'"
  echo "ok: ${gpu}_${version}_$arch.deb holds $module; Depends: $gdepends"
fi
