# Sourced by the GPU scripts: build/ where it holds no build yet, with
# -lineinfo (the same build serves scripts/gpu-sanitize.sh build); the log
# in $out/cmake.log, its last lines and exit 1 on failure.
# KL_GPU_CMAKE_EXTRA: more cmake options (the OpenCL headers' folder).
if [ ! -x build/tests/test_rungs ]; then
  t0=$(date +%s)
  # shellcheck disable=SC2086 # KL_GPU_CMAKE_EXTRA: words of cmake options
  cmake -S . -B build -DKL_WERROR=ON -DCMAKE_CUDA_FLAGS=-lineinfo \
    ${KL_GPU_CMAKE_EXTRA-} \
    >"$out/cmake.log" 2>&1 &&
    cmake --build build -j "$(nproc)" >>"$out/cmake.log" 2>&1 ||
    { tail -30 "$out/cmake.log"; exit 1; }
  echo "== built in $(( $(date +%s) - t0 )) s"
fi
