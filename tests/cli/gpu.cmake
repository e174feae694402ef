# Cases that once failed scripts/gpu-sanitize.sh, under memcheck on every
# GPU machine (skipped elsewhere): the DMMA rung read 8 bytes past the end
# of A and B, allocated at exactly ld * (cols - 1) + rows elements.
# Not in the KL_SANITIZE build: compute-sanitizer injects its own library
# ahead of ASan's runtime, which ASan refuses ("ASan runtime does not come
# first"), so the two cannot watch one program.
if(NOT KL_SANITIZE)
  add_test(NAME gpu-memcheck-gemm-edges COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/gpu_memcheck.sh ${KL} run -q -b cuda -w gemm
    -s 67x45x33 --ld 70,50,69 --beta 0.5 --reps 1 --warmup 0)
  set_tests_properties(gpu-memcheck-gemm-edges PROPERTIES SKIP_RETURN_CODE 77)
endif()

# The GPU module.
# The library starts with the GPU libraries hidden: libkladder.so and the
# command name none of them, `kladder --version` and a serial sum of four
# doubles through libkladder.so (tools/serial_sum.c, which also finds no GPU
# library loaded) peak under 20 MiB resident (not measured under the
# sanitizers), and with the module hidden
# or refused a serial run passes and `kladder list` says why the GPU
# backend is not here; the module beside libkladder.so loads (module.sh).
set(KL_RSS_LIMIT_KIB 20480)
if(KL_SANITIZE)
  set(KL_RSS_LIMIT_KIB 0)
endif()
set(KL_MODULE_ARG "")
if(KL_GPU_MODULE_BUILT)
  set(KL_MODULE_ARG $<TARGET_FILE:kladder-gpu>)
endif()
add_test(NAME starts-without-gpu-libraries COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/module.sh ${KL} $<TARGET_FILE:kladder-shared>
  $<TARGET_FILE:maxrss> ${KL_RSS_LIMIT_KIB} $<TARGET_FILE:serial_sum>
  ${KL_MODULE_ARG})

# The OpenCL backend's bad cases (opencl.sh): no platform, a device
# without doubles, a kernel that fails to build. Skipped without a device.
if(KL_OPENCL_FOUND)
  add_test(NAME cli-opencl COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/opencl.sh
    $<TARGET_FILE:kladder-cli>)
  set_tests_properties(cli-opencl PROPERTIES SKIP_RETURN_CODE 77)
endif()

# The sanitizer gate's launch log (tools/launch_log.c, built there with
# its stand-in runtime and probe): its test needs no GPU: the runtime
# registers a module's kernels when it loads (`kladder list` loads
# libkladder-cuda.so; test_rungs has libkladder.a's), and a stand-in
# runtime (tools/fake_cudart.c) takes a probe's launches
# (tools/launch_log_probe.c). Not in an ASan build, whose runtime must be
# the first library preloaded.
if(KL_GPU_LANG STREQUAL "CUDA" AND NOT KL_SANITIZE)
  add_test(NAME launch-log COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/launch_log.sh $<TARGET_FILE:kl_launch_log>
    $<TARGET_FILE:kladder-cli> $<TARGET_FILE:test_rungs>
    $<TARGET_FILE:launch_log_probe>)
else()
  add_test(NAME launch-log COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/launch_log.sh none)
endif()
set_tests_properties(launch-log PROPERTIES SKIP_RETURN_CODE 77)
