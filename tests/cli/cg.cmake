# cg: a matrix file (symmetric and general storage) solved and checked;
# bad files and bad combinations are one line and exit 2.
kl_cli_test(cg-matrix-symmetric 0 "cg +serial .*PASS" run -w cg -b serial
  --matrix ${CG_DATA}/small.mtx --reps 1)
kl_cli_test(cg-matrix-general 0 "cg +openmp .*PASS" run -w cg -b openmp
  --input ${CG_DATA}/general.mtx --reps 1)
kl_cli_test(cg-matrix-truncated 2 "truncated" run -w cg
  --matrix ${CG_DATA}/bad-truncated.mtx)
kl_cli_test(cg-matrix-unsymmetric 2 "not symmetric" run -w cg
  --matrix ${CG_DATA}/bad-unsymmetric.mtx)
kl_cli_test(cg-matrix-indefinite 2 "not positive definite" run -w cg
  --matrix ${CG_DATA}/bad-indefinite.mtx)
kl_cli_test(cg-matrix-header 2 "no Matrix Market header" run -w cg
  --matrix ${CG_DATA}/bad-no-header.mtx)
kl_cli_test(cg-matrix-missing 2 "cannot read input file" run -w cg
  --matrix ${CG_DATA}/no-such-file.mtx)
kl_cli_test(cg-matrix-and-size 2 "not both" run -w cg -n 5
  --matrix ${CG_DATA}/small.mtx)
kl_cli_test(cg-stencil-none 2 "give --matrix FILE" run -w cg -p stencil=none)
kl_cli_test(cg-nnz-given 2 "nnz follows from the stencil" run -w cg -n 3
  -p nnz=5)
kl_cli_test(cg-grid-too-large 2 "n <= 1290" run -w cg -b serial -n 2000)
kl_cli_test(cg-tol-range 2 "tol" run -w cg -n 3 -p tol=1e-20)
kl_cli_test(cg-fixed-count 0 "cg serial: 100 iterations" run -v -w cg -b serial
  -n 5 -p mode=fixed,maxit=100 --reps 1)

# cg on hard matrices (cg_hard.sh): generated SPD matrices of condition
# 1e2 to 1e8, every rung here that takes a matrix to its tolerance.
add_test(NAME cli-cg-hard-matrices COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/cg_hard.sh ${KL} $<TARGET_FILE:spd_gen>)
set_tests_properties(cli-cg-hard-matrices PROPERTIES TIMEOUT 900 COST 130)

# A row longer than opencl-stream's chunk of staged nonzeros (cg_long_row.sh).
add_test(NAME cli-cg-long-row COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/cg_long_row.sh ${KL})
set_tests_properties(cli-cg-long-row PROPERTIES SKIP_RETURN_CODE 77)

# The sliced rungs (cuda-sell, opencl-sell) on matrices of their own: one
# within their padding, which they solve, and one past it, for which they
# stand aside (cg_sell_matrix.sh).
add_test(NAME cli-cg-sell-matrix COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/cg_sell_matrix.sh ${KL})
set_tests_properties(cli-cg-sell-matrix PROPERTIES SKIP_RETURN_CODE 77)

# cg for a user's own system: b from a Matrix Market array file
# (--rhs), the solution written as one (--solution) by the first rung
# whose check passed, compared with the known x of small.mtx x =
# rhs-small.mtx (cg_solution.sh); both in symmetric and general storage.
add_test(NAME cli-cg-rhs-solution COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/cg_solution.sh ${KL} ${CG_DATA}/small.mtx
  ${CG_DATA}/rhs-small.mtx ${CG_DATA}/rhs-small-x.mtx
  -b serial,openmp --reps 1)
add_test(NAME cli-cg-rhs-solution-general COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/cg_solution.sh ${KL} ${CG_DATA}/general.mtx
  ${CG_DATA}/rhs-small.mtx ${CG_DATA}/rhs-small-x.mtx
  -b openmp -p tol=1e-14 --reps 1 --no-ceiling)
# The results name b's file beside the matrix's.
kl_cli_test(cg-rhs-in-results 0 "^cg +serial .*PASS"
  --file out.csv "^cg,serial,serial,\"\",,small\.mtx.rhs=rhs-small\.mtx,f64,5,"
  run -w cg -b serial --matrix ${CG_DATA}/small.mtx
  --rhs ${CG_DATA}/rhs-small.mtx --reps 1 --no-ceiling --csv out.csv)
kl_cli_test(cg-files-listed 0 "^    file:  --rhs FILE \\(read\\) b in place of A x"
  --match "^    file:  --solution FILE \\(written\\) x, as a Matrix Market"
  list -w cg)
# Every mistake one line and exit 2, before any rung runs: b without a
# matrix file, or for another workload; a b that is missing, of other rows,
# not an array file, or not finite; a solution path that cannot be written
# or that the run reads.
kl_cli_test(cg-rhs-without-matrix 2
  "^kladder: error: cg: a right-hand side file \\(--rhs\\) goes with a matrix file"
  ${no_run} run -w cg -b serial --rhs ${CG_DATA}/rhs-small.mtx)
kl_cli_test(cg-solution-without-matrix 2
  "^kladder: error: cg: a solution file \\(--solution\\) goes with a matrix file"
  ${no_run} --leaves-nothing run -w cg -b serial -n 3 --solution x.mtx)
kl_cli_test(cg-rhs-other-workload 2
  "^kladder: error: workload map takes no rhs file \\(--rhs\\)$"
  ${no_run} run -w map --rhs ${CG_DATA}/rhs-small.mtx)
kl_cli_test(cg-solution-other-workload 2
  "^kladder: error: workload histogram takes no solution file \\(--solution\\)$"
  ${no_run} --leaves-nothing run -w histogram --input ${CG_DATA}/small.mtx
  --solution x.mtx)
kl_cli_test(cg-rhs-missing 2
  "^kladder: error: cannot read input file 'no-such-b\\.mtx': No such file"
  ${no_run} run -w cg --matrix ${CG_DATA}/small.mtx --rhs no-such-b.mtx)
kl_cli_test(cg-rhs-rows 2
  "^kladder: error: right-hand side file '.*', line 3: 5 rows, but the matrix has 3$"
  ${no_run} run -w cg --matrix ${CG_DATA}/integer.mtx
  --rhs ${CG_DATA}/rhs-small.mtx)
kl_cli_test(cg-rhs-not-array 2
  "line 1: format 'coordinate' is a sparse matrix; a vector is an 'array' file"
  ${no_run} run -w cg --matrix ${CG_DATA}/small.mtx --rhs ${CG_DATA}/small.mtx)
kl_cli_test(cg-rhs-not-finite 2 "line 6: value 'NaN' is not finite$"
  ${no_run} run -w cg --matrix ${CG_DATA}/small.mtx
  --rhs ${CG_DATA}/bad-rhs-nan.mtx)
kl_cli_test(cg-solution-no-directory 2
  "^kladder: error: cannot write the solution file 'missing/x\\.mtx': its directory does not exist$"
  ${no_run} --leaves-nothing run -w cg --matrix ${CG_DATA}/small.mtx
  --solution missing/x.mtx)
kl_cli_test(cg-solution-directory 2
  "^kladder: error: cannot write the solution file '\\.': it is a directory$"
  ${no_run} run -w cg --matrix ${CG_DATA}/small.mtx --solution .)
kl_cli_test(cg-solution-is-csv 2 "--csv and --solution name the same file 'x\\.mtx'"
  ${no_run} --leaves-nothing run -w cg --matrix ${CG_DATA}/small.mtx
  --solution x.mtx --csv x.mtx)
kl_cli_test(cg-solution-is-matrix 2
  "^kladder: error: cg: the solution file '.*' is the input file too"
  ${no_run} run -w cg --matrix ${CG_DATA}/small.mtx
  --solution ${CG_DATA}/small.mtx)
# No rung passed (maxit too small for tol): exit 1, a note, and a file
# already at the path left as it was; a device error (exit 3) leaves none.
kl_cli_test(cg-solution-none-passed 1
  "^note: .*cg: no rung passed its check, so the solution file 'x\\.mtx' was not written\\.$"
  --match "^cg +serial .*FAIL" --keeps x.mtx
  run -w cg -b serial --matrix ${CG_DATA}/small.mtx
  --rhs ${CG_DATA}/rhs-small.mtx -p maxit=2 --solution x.mtx --reps 1)
kl_cli_test(cg-solution-device-error 3 "injected runtime error"
  --env KLADDER_INJECT_ERROR=serial --leaves-nothing
  run -w cg -b serial --matrix ${CG_DATA}/small.mtx --solution x.mtx
  --reps 1)
