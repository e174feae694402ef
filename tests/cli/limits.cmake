# The host gates: bounds on a run, and the fuzzed command line
# (test_limits is unit/'s).
kl_cli_test(memory-limit-malformed 2 "KLADDER_MEMORY_LIMIT: size '12Q' is not a number"
  --env KLADDER_MEMORY_LIMIT=12Q run -w map)
kl_cli_test(memory-limit-refuses 2 "of host memory; .* under KLADDER_MEMORY_LIMIT"
  --env KLADDER_MEMORY_LIMIT=1M run -w map -b serial -n 1M)
kl_cli_test(memory-limit-shrinks 0 "map: n = 131072 instead of the default"
  --env KLADDER_MEMORY_LIMIT=2M run -w map -b serial --reps 1 --no-ceiling)
kl_cli_test(memory-limit-tiny 2
  "map: n=1 needs 8 bytes of host memory; 1 bytes are available under KLADDER_MEMORY_LIMIT"
  --env KLADDER_MEMORY_LIMIT=1 run -w map -b serial)
kl_cli_test(reps-too-many 2 "--reps '1000001' must be an integer from 1 to 1000000"
  run --reps 1000001)

# Mutated command lines: every exit code in 0-3, no signal, no hang, no
# sanitizer report (see tools/fuzz_cli.c). Two cases at a time.
add_test(NAME cli-fuzz COMMAND $<TARGET_FILE:fuzz_cli> ${KL})
set_tests_properties(cli-fuzz PROPERTIES PROCESSORS 2 TIMEOUT 600)

# gemm's check at the ends of the range: a tolerance that overflows checks
# nothing, so the elements under it are UNVERIFIABLE (exit 0, with a line
# saying how many; they once passed whatever they held, then failed
# though right); a wrong element beside them still fails; a subnormal
# alpha puts the results on the subnormal grid, where only the underflow
# term of the bound holds them (they failed, though right).
kl_cli_test(gemm-overflowing-bound-unverifiable 0
  "gemm serial-naive: UNVERIFIABLE, not failed: [0-9]+ of 64 not verifiable"
  --match "^gemm +serial-naive .*UNVERIFIABLE"
  run -w gemm -b serial -r serial-naive -t f64 -s 8x8x8 --alpha 1e308 --reps 1)
kl_cli_test(gemm-overflowing-bound-wrong-fails 1 "serial-naive: FAIL"
  --env KLADDER_INJECT_WRONG=serial-naive
  run -v -w gemm -b serial -r serial-naive -t f64 -s 8x8x8 --alpha 1 --reps 1)
kl_cli_test(cg-scale-unverifiable 0 "cg serial: UNVERIFIABLE, not failed: .*overflows f64"
  run -w cg -b serial --matrix ${CG_DATA}/huge-scale.mtx --reps 1)
kl_cli_test(gemm-subnormal-alpha 0 "gemm +serial-loop-order .*PASS"
  run -w gemm -b serial -t f32 -s 8x8x8 --alpha 1e-40 --reps 1)

# Every command's arguments, input files and outputs given badly, a table
# of cases (bad_args.sh): the exit code, one line, nothing changed, no
# hang. About two minutes on two cores (a 2 GB sparse file is read whole
# by several readers).
add_test(NAME cli-bad-args COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/bad_args.sh ${KL})
set_tests_properties(cli-bad-args PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
