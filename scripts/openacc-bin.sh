#!/usr/bin/env bash
# Gathers what scripts/gpu-openacc.sh runs on a machine without GCC's
# offload compiler: the programs of a build with OpenACC offload (BUILD,
# default build), with libkladder.so and the GPU module, and the OpenACC
# runtime (libgomp and its nvptx plugin) of the GCC that built them, into
# DEST (default build-acc-bin).
# Usage: bash scripts/openacc-bin.sh [BUILD] [DEST]
set -euo pipefail
build=${1:-build}
dest=${2:-build-acc-bin}
mkdir -p "$dest"
cp "$build/kladder" "$build/tests/test_rungs" "$build/tests/test_api" "$dest/"
# The command links libkladder.so (its links kept), which loads the GPU
# module beside it.
cp -P "$build"/libkladder.so* "$dest/"
[ ! -e "$build/libkladder-cuda.so" ] || cp "$build/libkladder-cuda.so" "$dest/"
for lib in libgomp.so.1 libgomp-plugin-nvptx.so.1; do
  cp -L "$(gcc -print-file-name=$lib)" "$dest/$lib"
done
strip "$dest/kladder" "$dest/test_rungs" "$dest/test_api"
du -sh "$dest"
