# Sourced by mpi.sh and mpi-dist.sh, with kladder and mpiexec set: a
# temporary $dir, Open MPI's settings for root and for more ranks than
# cores, fail, and ranks P ARGS... (kladder run under P ranks, under a
# timeout that fails rather than hangs; $code and $dir/out.txt).
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
# In the sanitizer build: no leak report. Open MPI's components are
# dlopened and closed by MPI_Finalize, so what they keep shows with
# unknown frames that no suppression can name (116 kB in 3337 blocks);
# every other ASan and UBSan check stays on.
[ -z "${ASAN_OPTIONS-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fail() {
  echo "FAIL: $*"
  [ -f "$dir/out.txt" ] && tail -15 "$dir/out.txt"
  exit 1
}
ranks() {
  p=$1
  shift
  timeout 120 "$mpiexec" -n "$p" "$kladder" run "$@" >"$dir/out.txt" 2>&1
  code=$?
  [ "$code" = 124 ] && fail "$p ranks: no end in 120 s (a hang): $*"
}
