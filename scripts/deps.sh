#!/bin/sh
# What the build needs, checked before `make` configures (the Makefile runs
# this first). Required: gcc, g++, make and cmake. Where one is missing it
# is installed by its Debian package name with apt-get (`apt-get update`
# first): as root, or through sudo where sudo works without a password.
# Where it cannot be (not root and no such sudo, or no apt-get), one line
# names the command that would install them and the exit code is 2,
# before anything is built.
# Optional (absent, they only leave out what needs them): one line names
# those not here and what each adds. Installed only when asked for:
#   sh scripts/deps.sh --optional     (make deps OPTIONAL=1)
# installs the optional Debian packages that are absent; nvcc is named
# only (CUDA comes from non-free or NVIDIA's repository:
# docs/install.md).
# Exit: 0 when everything required is here (installed now or before); 2
# when something required (or, with --optional, asked for) is missing and
# was not installed.
# When all that is required is here this runs no apt-get and no package
# query: `command -v` and a few file tests.
# For tests/cli/deps.sh: KL_DEPS_UID stands for `id -u`, KL_DEPS_APT for the
# apt-get command, KL_DEPS_SYSROOT is put before the paths of the file
# tests (OpenBLAS, GCC's offload compiler, /usr/local/cuda).

optional=
for arg; do
  case $arg in
  --optional) optional=1 ;;
  -h | --help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) echo "deps.sh: unknown argument '$arg' (--optional or nothing)" >&2; exit 2 ;;
  esac
done

root=${KL_DEPS_SYSROOT-}
apt=${KL_DEPS_APT:-apt-get}

have() { command -v "$1" >/dev/null 2>&1; }
# True when one of the paths (globs, expanded by the caller) exists.
exists() {
  for f; do [ -e "$f" ] && return 0; done
  return 1
}

# Sets missing (required, by package) and absent / absent_pkgs (optional:
# what each adds, and the Debian packages of those apt-get can install).
check() {
  missing=
  for cmd in gcc g++ make cmake; do
    have "$cmd" || missing="$missing $cmd"
  done
  missing=${missing# }

  absent='' absent_pkgs=''
  if ! exists "$root"/usr/lib/*/libopenblas.so "$root"/usr/lib/libopenblas.so \
    "$root"/usr/lib64/libopenblas.so; then
    absent="$absent, libopenblas-dev (gemm's OpenBLAS rung and reference)"
    absent_pkgs="$absent_pkgs libopenblas-dev"
  fi
  if have gcc && ! exists "$root"/usr/lib/gcc/*/*/accel/nvptx-none/mkoffload \
    "$root"/usr/libexec/gcc/*/*/accel/nvptx-none/mkoffload; then
    v=$(gcc -dumpversion 2>/dev/null)
    v=${v%%.*}
    absent="$absent, gcc-$v-offload-nvptx (OpenACC regions compiled for NVIDIA GPUs)"
    absent_pkgs="$absent_pkgs gcc-$v-offload-nvptx"
  fi
  for cmd in pkg-config python3; do
    if ! have $cmd; then
      case $cmd in
      pkg-config) absent="$absent, pkg-config (the install test's pkg-config builds)" ;;
      python3) absent="$absent, python3 (the tests that read JSON and traces; gemm's cuda-rescheduled, whose kernels it reschedules at build time)" ;;
      esac
      absent_pkgs="$absent_pkgs $cmd"
    fi
  done
  if ! have python3 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    absent="$absent, python3-venv (the Python package's wheel tested in a fresh virtual environment)"
    absent_pkgs="$absent_pkgs python3-venv"
  fi
  if ! have mpiexec; then
    absent="$absent, libopenmpi-dev and openmpi-bin (kladder run under mpirun)"
    absent_pkgs="$absent_pkgs libopenmpi-dev openmpi-bin"
  fi
  if ! have ip; then
    absent="$absent, iproute2 (the MPI test over two hosts made of network namespaces)"
    absent_pkgs="$absent_pkgs iproute2"
  fi
  if ! exists "$root"/usr/include/CL/cl.h; then
    absent="$absent, opencl-headers, ocl-icd-opencl-dev and pocl-opencl-icd (the OpenCL backend, run on this CPU by PoCL)"
    absent_pkgs="$absent_pkgs opencl-headers ocl-icd-opencl-dev pocl-opencl-icd"
  fi
  if ! exists "$root"/usr/include/sqlite3.h; then
    absent="$absent, libsqlite3-dev (the results history: run --db, kladder history)"
    absent_pkgs="$absent_pkgs libsqlite3-dev"
  fi
  if ! have chromium && ! have chromium-browser; then
    absent="$absent, chromium (the report checked in a headless browser)"
    absent_pkgs="$absent_pkgs chromium"
  fi
  if ! have nvcc && ! [ -x "$root"/usr/local/cuda/bin/nvcc ]; then
    absent="$absent, nvcc (the CUDA backend: docs/install.md)"
  fi
  absent=${absent#, }
  absent_pkgs=${absent_pkgs# }
}

note_optional() {
  [ -z "$absent" ] && return
  if [ -n "$absent_pkgs" ]; then
    echo "kladder: optional, not installed: $absent; \`make deps OPTIONAL=1\` installs the Debian packages"
  else
    echo "kladder: optional, not installed: $absent"
  fi
}

# The names still to install: the required ones missing, and with
# --optional the optional Debian packages absent.
wanted() {
  check
  want=$missing
  [ -z "$optional" ] || want="$want $absent_pkgs"
  # shellcheck disable=SC2086,SC2116
  want=$(echo $want)  # one space between names
}

wanted
if [ -z "$want" ]; then
  note_optional
  exit 0
fi

what="what the build requires"
[ -z "$optional" ] || what="what was asked for"
# How to install: as root, or through sudo where it needs no password.
export DEBIAN_FRONTEND=noninteractive
run=none
if have "$apt"; then
  uid=${KL_DEPS_UID:-$(id -u)}
  if [ "$uid" = 0 ]; then
    run=
  elif have sudo && sudo -n true >/dev/null 2>&1; then
    run="sudo -n env DEBIAN_FRONTEND=noninteractive"
  fi
fi
if [ "$run" = none ]; then
  if ! have "$apt"; then
    echo "kladder: missing $what: $want; install with this system's package manager (Debian: apt-get update && apt-get install -y $want)" >&2
  elif have sudo; then
    echo "kladder: missing $what: $want; run: sudo apt-get update && sudo apt-get install -y $want" >&2
  else
    echo "kladder: missing $what: $want; as root, run: apt-get update && apt-get install -y $want" >&2
  fi
  exit 2
fi

# A second round only where the first brought a new name (with
# --optional: GCC's offload compiler is named after gcc's version, known
# once gcc is installed).
tried=
while [ -n "$want" ] && [ "$want" != "$tried" ]; do
  echo "kladder: installing $what: $want (${run:+sudo }apt-get)"
  # apt-get's and dpkg's progress to /dev/null, their errors shown. A
  # failed update (one repository out of reach) does not stop the install:
  # what is here afterwards decides.
  # shellcheck disable=SC2086
  $run "$apt" update -qq >/dev/null
  # shellcheck disable=SC2086
  $run "$apt" install -y -qq --no-install-recommends $want >/dev/null
  tried=$want
  wanted
done
if [ -n "$want" ]; then
  echo "kladder: apt-get did not install $want; as root, run: apt-get update && apt-get install -y $want" >&2
  exit 2
fi
note_optional
exit 0
