#!/bin/sh
# need.sh TOOL... -- COMMAND [ARGS...]: runs COMMAND where every TOOL is on
# the PATH; otherwise says which is missing on a "SKIP:" line and exits 77
# (CTest's skip), so that a test that needs an optional tool (python3)
# skips where it is absent instead of failing.
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  command -v "$1" >/dev/null 2>&1 ||
    { echo "SKIP: no $1 here (an optional package)"; exit 77; }
  shift
done
[ "${1-}" = -- ] || { echo "need.sh: no -- before the command" >&2; exit 2; }
shift
exec "$@"
