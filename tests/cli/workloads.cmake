# gemm: shapes, leading dimensions and scalars from the command line.
kl_cli_test(gemm-odd-shape 0 "gemm +openmp-blocked +openmp +- +f64 +129x257x65 .*PASS"
  run -v -w gemm -b serial,openmp -s 129x257x65 --ld 131,67,130 --alpha -1.5
  --beta 0.75 --reps 2)
kl_cli_test(gemm-square-n 0 "gemm +serial-naive .*100x100x100 .*PASS"
  run -v -w gemm -b serial -n 100 -t f32 --reps 1)
kl_cli_test(gemm-wrong-caught 1 "gemm +openmp-blocked .*FAIL"
  --env KLADDER_INJECT_WRONG=openmp-blocked run -w gemm -b openmp -n 64)
kl_cli_test(gemm-extent-zero 2 "shape '0x5x5': extent 1 is not a positive"
  run -w gemm -s 0x5x5)
kl_cli_test(gemm-extent-negative 2 "extent 2 is not a positive"
  run -w gemm -s 5x-5x5)
kl_cli_test(gemm-shape-malformed 2 "is not MxNxK" run -w gemm -s 1x2x3x4x5)
kl_cli_test(gemm-lead-too-small 2 "lda = 50 is smaller than the rows of its matrix \\(100\\)"
  run -w gemm -b serial -s 100x100x100 --ld 50)
kl_cli_test(gemm-lead-zero 2 "leading dimension 3 in '100,100,0' is not a positive"
  run -w gemm --ld 100,100,0)
kl_cli_test(gemm-alpha-nan 2 "scalar 'nan' in 'nan' is not a finite number"
  run -w gemm --alpha nan)
kl_cli_test(gemm-beyond-host 2 "of host memory"
  run -w gemm -b serial -s 3000000x3000000x2)
kl_cli_test(gemm-beyond-device 2 "the device has"
  --needs cuda run -w gemm -b cuda -s 300000x300000x2)
kl_cli_test(gemm-extent-overflow 2 "m = 9999999999999 is outside \\[1, 1099511627776\\]"
  run -w gemm -b serial -s 9999999999999x1x1)
kl_cli_test(shape-not-offered 2 "map has no shape" run -w map -s 5x5)
kl_cli_test(gemm-too-many-extents 2 "gemm takes at most 3 extents$"
  run -w gemm -s 1x2x3x4)
kl_cli_test(gemm-size-names-shape 2 "gemm: shape 400000000000x1x1 needs"
  run -w gemm -b serial -s 400000000000x1x1)
kl_cli_test(param-given-twice 2
  "gemm: n given twice, as 100 and as 5 \\(by -p and by an option"
  run -w gemm -n 100 -p n=5)
kl_cli_test(param-given-twice-same 0 "gemm +serial-naive .*7x5x3 .*PASS"
  run -v -w gemm -b serial -r serial-naive -s 7x5x3 -p n=5 --reps 1)
kl_cli_test(gemm-subnormal-alpha-accepted 0 "gemm +serial-naive .*PASS"
  run -w gemm -b serial -r serial-naive -s 4x4x4 --alpha 1e-320 --reps 1)
kl_cli_test(long-size-keeps-reason 2 "size '9{48}\\.\\.\\.' is too large$"
  run -w map -n 99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999)
# Sizes per workload: a run of several workloads skips, with a
# note, those that cannot take the options and runs the rest; alone, such
# a workload is an error (type-not-offered above).
kl_cli_test(size-skips-what-cannot-fit 0
  "^note: skipped laplacian: shape 1048576x1048576x1048576 needs .* skipped gemm: shape 1048576x1048576x1048576 needs"
  run -n 1M -b serial --reps 1 --warmup 0)
kl_cli_test(type-skips-what-lacks-it 0
  "^note: map: skipped, it has no type i32"
  run -w map,reduce -b serial -t i32 -n 1000 --reps 1)
kl_cli_test(nothing-left-to-run 2 "nothing to run: stream: skipped, it has no type i32. map: skipped"
  run -w map,stream -b serial -t i32 -n 1000 --reps 1)
# Ceilings over as much memory as the rungs they serve: map's 1000 f32
# elements in x and y (8000 bytes) against a copy in stream's plan of
# 3 x 334 doubles.
kl_cli_test(ceiling-matches-working-set 0
  "stream +serial-copy +serial +- +f64 +334 "
  run -v -w map -b serial -n 1000 --reps 1)
kl_cli_test(ceiling-missing-said-why 0
  "%ceil -, integrate serial: no vendor rung for this backend in this build"
  run -w integrate -b serial -n 1000 --reps 1)
kl_cli_test(ceiling-skipped-said-why 0
  "%ceil -, map serial: ceilings not measured \\(--no-ceiling\\)"
  run -w map -b serial -n 1000 --reps 1 --no-ceiling)
kl_cli_test(scalars-not-offered 2 "reduce has no scalars" run -w reduce --alpha 2)

# reduce: a NaN in the input is the result of min and max; int32
# has no NaN, so its plan refuses the pattern (exit 2, KL_UNAVAILABLE).
# Exit 0: every rung's check passed. No ceiling: it would take seconds.
kl_cli_test(reduce-nan-max 0 "reduce +openmp-partials +openmp +max .*PASS"
  run -v -w reduce -b serial,openmp --op max --inputs nan-middle -n 1000 --reps 1
  --no-ceiling)
kl_cli_test(reduce-nan-i32-refused 2
  "input pattern 'nan-first' needs a floating-point type \\(i32 has no NaN or infinity\\)"
  run -w reduce -b serial -t i32 --inputs nan-first)

# histogram: byte patterns, and the bytes of any file, whole or
# in chunks where it does not fit in memory (here a 16 KiB
# KLADDER_MEMORY_LIMIT and docs/design.md); every mistake one line and exit 2.
# test_input (above) compares the counts of a file with a count of its own.
kl_cli_test(histogram-skewed 0 "^histogram +openmp-blocks +openmp +- +u8 +100003 .*PASS"
  run -v -w histogram -b serial,openmp --inputs skewed -n 100003 --reps 1 --no-ceiling)
kl_cli_test(histogram-all-same-255 0 "^histogram +openmp-blocks .*PASS" --not "FAIL"
  run -w histogram -b serial,openmp --inputs all-same -p value=255 -n 1000
  --reps 1 --no-ceiling)
kl_cli_test(histogram-file 0 "^histogram +openmp-blocks +openmp +- +u8 +11 .*PASS"
  --not "FAIL" --write in.txt "hello world"
  --file out.csv "^histogram,serial,serial,\"\",,in\\.txt,u8,11,"
  run -v -w histogram -b serial,openmp --input in.txt --reps 1 --csv out.csv)
kl_cli_test(histogram-file-chunks 0
  "^note: histogram: input file 'design\\.md' \\(n = [0-9]+\\) runs in [0-9]+ chunks of [0-9]+, to fit in host memory"
  --match "^histogram +openmp-blocks .*PASS" --not "FAIL"
  --env KLADDER_MEMORY_LIMIT=16K
  run -w histogram -b serial,openmp --input ${PROJECT_SOURCE_DIR}/docs/design.md --reps 2)
kl_cli_test(histogram-input-missing 2
  "^kladder: error: cannot read input file 'missing\\.bin': No such file or directory$"
  ${no_run} run -w histogram --input missing.bin)
kl_cli_test(histogram-input-directory 2
  "^kladder: error: input file '\\.' is a directory$" ${no_run}
  run -w histogram --input .)
kl_cli_test(histogram-input-empty 2
  "^kladder: error: input file 'empty\\.bin' is empty$" ${no_run}
  --write empty.bin '' run -w histogram --input empty.bin)
# A file whose size is not its content's (/proc says 0, /sys 4096): refused
# saying so, not called empty nor read short.
kl_cli_test(histogram-input-proc 2
  "^kladder: error: input file '/proc/self/status' holds [0-9]+ bytes where its size says 0 \\(a file of /proc or /sys\\)"
  ${no_run} --if-exists /proc/self/status --lines 1
  run -w histogram -b serial --input /proc/self/status)
kl_cli_test(histogram-input-sys 2
  "^kladder: error: input file '/sys/kernel/mm/transparent_hugepage/enabled' holds [0-9]+ bytes where its size says [0-9]+"
  ${no_run} --if-exists /sys/kernel/mm/transparent_hugepage/enabled --lines 1
  run -w histogram -b serial --input /sys/kernel/mm/transparent_hugepage/enabled)
kl_cli_test(histogram-input-and-size 2
  "^kladder: error: histogram: n is the size of the input file; give --input or the size"
  ${no_run} --write in.txt x run -w histogram --input in.txt -n 5)
kl_cli_test(histogram-input-and-inputs 2
  "histogram: an input file has no input pattern; give --input or --inputs"
  ${no_run} --write in.txt x run -w histogram -i in.txt --inputs skewed)
kl_cli_test(histogram-type 2 "^kladder: error: workload histogram has no type f32$"
  ${no_run} run -w histogram -t f32)
kl_cli_test(histogram-size-zero 2 "size '0' is zero" ${no_run}
  run -w histogram -n 0)
kl_cli_test(histogram-value-range 2
  "^kladder: error: histogram: value = 256 is outside \\[0, 255\\]$" ${no_run}
  run -w histogram -p value=256)
kl_cli_test(histogram-unknown-inputs 2
  "unknown input pattern 'zeros' for histogram; valid: random, all-same, skewed$"
  ${no_run} run -w histogram --inputs zeros)
# laplacian: a grid from -s, spacings from -p; every mistake
# one line and exit 2.
kl_cli_test(laplacian-shape 0 "^laplacian +openmp +openmp +- +f32 +33x17x9 .*PASS"
  --not "FAIL" run -v -w laplacian -b serial,openmp -t f32 -s 33x17x9
  -p hx=0.5,hy=2,hz=0.25 --reps 1 --no-ceiling)
kl_cli_test(laplacian-no-interior 0 "^laplacian +serial +serial +- +f64 +2x5x7 .*PASS"
  run -v -w laplacian -b serial -s 2x5x7 --reps 1 --no-ceiling)
kl_cli_test(laplacian-extent-zero 2 "^kladder: error: shape '0x5x5': extent 1 is not a positive integer$"
  ${no_run} run -w laplacian -s 0x5x5)
kl_cli_test(laplacian-extent-negative 2 "^kladder: error: laplacian: nx: size '-3' is negative"
  ${no_run} run -w laplacian -p nx=-3)
kl_cli_test(laplacian-spacing-zero 2
  "^kladder: error: laplacian: spacing hx = 0 must be finite and nonzero$"
  ${no_run} run -w laplacian -b serial -p hx=0)
kl_cli_test(laplacian-spacing-inf 2 "^kladder: error: laplacian: hx = 'inf' is not a finite number$"
  ${no_run} run -w laplacian -p hx=inf)
kl_cli_test(laplacian-spacing-nan 2 "^kladder: error: laplacian: hz = 'nan' is not a finite number$"
  ${no_run} run -w laplacian -p hz=nan)
kl_cli_test(laplacian-spacing-range 2
  "^kladder: error: laplacian: spacing hy = 1e-30 gives 1/hy\\^2 = 1e\\+60, outside the range of f32$"
  ${no_run} run -w laplacian -b serial -t f32 -p hy=1e-30)
kl_cli_test(laplacian-beyond-host 2
  "^kladder: error: laplacian: shape 100000x100000x1000 needs [0-9.]+ GiB of host memory"
  ${no_run} run -w laplacian -b serial -s 100000x100000x1000)
# laplacian (core v3): m, the points per thread along y, is a tuning of the
# tiled rungs (-p m=); the 20 rungs of the old sweep name what replaced
# them. The rung's name is checked before the backend, so that a machine
# without a GPU still tells a retired name from a valid one.
kl_cli_test(laplacian-rung-retired 2
  "^kladder: error: laplacian rung 'cuda-tiled-m4' is no more: it is cuda-tiled with -p m=4$"
  ${no_run} run -w laplacian -r cuda-tiled-m4)
kl_cli_test(laplacian-rung-retired-any-workload 2
  "^kladder: error: laplacian rung 'cuda-streaming-m16' is no more: it is cuda-streaming with -p m=16$"
  ${no_run} run -r cuda-streaming-m16)
kl_cli_test(laplacian-m-not-offered 2
  "^kladder: error: laplacian: m = 3 is not 1, 2, 4, 8 or 16 \\(the points per thread along y of the tiled kernels\\)$"
  ${no_run} run -w laplacian -b serial -p m=3)
kl_cli_test(laplacian-m-range 2 "^kladder: error: laplacian: m = 32 is outside \\[1, 16\\]$"
  ${no_run} run -w laplacian -b serial -p m=32)
kl_cli_test(laplacian-tiled-cuda-absent 2
  "^kladder: error: rung 'cuda-tiled' (needs backend 'cuda', which is not available here|is not built into this library)"
  --lacks cuda ${no_run} run -w laplacian -r cuda-tiled -p m=4)
# A tuning shows in the results only for the rungs that read it (the
# parameters are joined by ';', which '.' matches here: CMake would cut
# the pattern at a ';').
kl_cli_test(laplacian-m-hidden-for-serial 0 "^laplacian +serial .*PASS"
  --file out.csv "^laplacian,serial,.*,\"ny=5.nz=5.hx=1.hy=1.hz=1\","
  run -w laplacian -b serial -s 5x5x5 -p m=8 --reps 1 --no-ceiling --csv out.csv)
kl_cli_test(laplacian-tiled-m 0 "^laplacian +cuda-tiled .*PASS"
  --needs cuda --not "FAIL"
  --file out.csv "^laplacian,cuda-tiled,.*,\"ny=21.nz=9.hx=1.hy=1.hz=1.m=16\","
  run -w laplacian -r cuda-kernel1,cuda-tiled -s 33x21x9 -p m=16 --reps 1
  --no-ceiling --csv out.csv)
kl_cli_test(input-not-taken 2 "^kladder: error: workload map takes no input file \\(--input\\)$"
  ${no_run} --write in.txt x run -w map --input in.txt)
kl_cli_test(input-skips-what-lacks-it 0 "^note: map: skipped, it takes no input file"
  --match "^histogram +serial .* 1 .*PASS" --write in.txt x
  run -v -w histogram,map -b serial --input in.txt --reps 1 --no-ceiling)
kl_cli_test(list-histogram-input 0 "^    input: -i, --input FILE counts the bytes"
  list -w histogram)
kl_cli_test(run-help-input 0 "-i, --input FILE" run --help)
