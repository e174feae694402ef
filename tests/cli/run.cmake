# The command's first words: help, version, a command that is not one.
kl_cli_test(help 0 "kladder run" --help)
kl_cli_test(run-help 0 "--workload" run --help)
kl_cli_test(version 0 "kladder [0-9]" --version)
kl_cli_test(no-command 2 "usage: kladder")
kl_cli_test(unknown-command 2 "unknown command 'frobnicate'; valid: list, run" frobnicate)

# Parameters: listed per workload, set by -p for any workload.
kl_cli_test(list-workload 0 "lda +leading dimension of A; default m" list -w gemm)
kl_cli_test(list-workload-unknown 2 "unknown workload 'nope'" list -w nope)
kl_cli_test(param-shape 0 "gemm +serial-naive .*7x5x3 .*PASS"
  run -v -w gemm -b serial -p m=7,n=5,k=3 -p beta=0.5 --reps 1)
kl_cli_test(param-op 0 "reduce +openmp-partials +openmp +max .*PASS"
  run -v -w reduce -b openmp -p op=max,n=1000 --reps 1)
kl_cli_test(param-unknown 2 "workload map has no parameter frob; valid: n"
  run -w map -p frob=1)
kl_cli_test(param-malformed 2 "is not NAME=VALUE" run -w map -p n)
# gemm's tile choices are tunings: a choice it does not have is refused,
# one it has is accepted by rungs that do not read it.
kl_cli_test(param-tuning-choice 2 "unknown dmma_tile '32x32' for gemm; valid: auto, 128x128, 128x64, 64x128, 64x64"
  run -w gemm -b serial -n 64 -p dmma_tile=32x32 --reps 1)
kl_cli_test(param-tuning-unread 0 "gemm +serial-loop-order .*PASS"
  run -w gemm -r serial-loop-order -n 64 -p dmma_tile=64x64,pipelined_tile=256x128 --reps 1)
kl_cli_test(param-range 2 "alpha = .1e999. is beyond the range of a double"
  run -w gemm -p alpha=1e999)
kl_cli_test(unknown-option 2 "unknown option '--frob'" run --frob)
kl_cli_test(missing-value 2 "needs a value" run -n)
kl_cli_test(size-zero 2 "is zero" run -w map -n 0)
kl_cli_test(size-negative 2 "is negative" run -w map -n -5)
kl_cli_test(size-not-numeric 2 "is not a number" run -w map -n abc)
kl_cli_test(size-bad-suffix 2 "is not a number" run -w map -n 12Q)
kl_cli_test(size-overflow 2 "too large" run -w map -n 99999999999999999999999)
kl_cli_test(size-suffix-overflow 2 "too large" run -w map -n 9999999999999G)
kl_cli_test(size-beyond-host 2 "of host memory" run -w map -b serial -n 4096G)
kl_cli_test(size-beyond-device 2 "the device has" --needs cuda run -w map -b cuda -n 64G)
kl_cli_test(unknown-workload 2 "unknown workload 'nope'; valid: stream, transfer, read, map" run -w nope)
kl_cli_test(unknown-backend 2 "unknown backend 'tpu'; valid: serial, openmp, cuda" run -b tpu)
kl_cli_test(unknown-rung 2 "unknown rung 'fastest'; valid: map: serial openmp" run -w map -r fastest)
kl_cli_test(unknown-type 2 "unknown type 'f16'; valid: f32, f64" run -t f16)
kl_cli_test(op-not-offered 2 "workload map has no op max" run -w map --op max)
kl_cli_test(type-not-offered 2 "workload map has no type f64" run -w map -t f64)
kl_cli_test(type-u32-not-offered 2 "workload map has no type u32" run -w map -t u32)
kl_cli_test(unknown-type-lists-all 2 "valid: f32, f64, i32, i64, u8, u32, u64$" run -t u16)
kl_cli_test(reps-zero 2 "--reps '0' must be" run --reps 0)
kl_cli_test(warmup-negative 2 "--warmup '-1' must be" run --warmup -1)
kl_cli_test(seed-bad 2 "--seed 'x' must be" run --seed x)
kl_cli_test(empty-list 2 "bad workload list" run -w map,,stream)
kl_cli_test(cuda-absent 2 "backend 'cuda' is not available here" --lacks cuda run -b cuda)
kl_cli_test(run-pass 0 "map +serial .*PASS" run -w map -b serial -n 1000003 --reps 3 --warmup 1)
kl_cli_test(run-stream-f32 0 "stream +openmp-triad .*PASS" run -w stream -b openmp -t f32 -n 1000 --reps 2)
kl_cli_test(check-failure-exit-1 1 "map +openmp .*FAIL"
  --env KLADDER_INJECT_WRONG=openmp run -w map -b serial,openmp -n 1000)
kl_cli_test(device-error-exit-3 3 "injected runtime error"
  --env KLADDER_INJECT_ERROR=serial run -w map -b serial -n 1000)
kl_cli_test(racy-rung-caught 0 "reduce +cuda-racy .*WRONG\\(expected\\)"
  --needs cuda run -w reduce -r serial,cuda-racy,cuda-best -n 1000003 --reps 2)
# map's host-clock rungs (seed 000 §3.1.6): right answers at rates far
# above the copy, which the harness labels impossible and, for these
# known-wrong rungs, counts as caught (exit 0). OpenCL at 128M elements
# (about 4.4 GB resident on PoCL): the host clock times the launch alone
# (8-9 us through NVIDIA's OpenCL), so the size must make the work take
# more than 10x that at the copy's rate, the factor the harness calls
# impossible; at 32M an H200's 114 us a run read 9.7x the copy.
kl_cli_test(host-clock-caught-cuda 0
  "map +cuda-host-clock .*WRONG\\(expected\\)" --needs cuda run -w map
  -r cuda-thread,cuda-host-clock -n 64M --reps 3)
kl_cli_test(host-clock-caught-opencl 0
  "map +opencl-host-clock .*WRONG\\(expected\\)" --needs opencl run -w map
  -b opencl -r opencl-thread,opencl-host-clock -n 128M --reps 3)
kl_cli_test(reduce-unknown-op 2 "unknown op 'product' for reduce; valid: sum, min, max"
  run -w reduce --op product)
kl_cli_test(reduce-unknown-inputs 2 "unknown input pattern 'zeros' for reduce"
  run -w reduce --inputs zeros)
kl_cli_test(reduce-i32-sum-limit 2 "exact in int64 only up to 2\\^32"
  run -w reduce -b serial -t i32 -n 5G)
kl_cli_test(csv-json 0 "wrote both"
  --outputs run -w map,stream -b serial -n 4096 --reps 2)

# The trace (--trace): parsed, one track's events never overlapping, and
# each rung's overlap the one the CSV reports; the host rungs of cg trace
# their kernels, pipeline's their intervals, map's and offload's rungs one
# event a run.
add_test(NAME trace-host-rungs COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/trace.sh ${KL}
  ${CMAKE_CURRENT_SOURCE_DIR}/check_trace.py
  -w cg,map,pipeline,offload -b serial,openmp -p n=10 --reps 3 --warmup 1)
set_tests_properties(trace-host-rungs PROPERTIES SKIP_RETURN_CODE 77)

# Selection by pattern: globs and exclusions in -w, -b and -r;
# a pattern that matches nothing is an error.
kl_cli_test(pattern-rungs 0 "^reduce +openmp-partials .*PASS" --not "openmp-clause"
  run -w reduce -b openmp -r "openmp-*,!openmp-clause" -n 1000 --reps 1)
kl_cli_test(pattern-workloads 0 "^stream +serial-copy" --not "^map "
  run -w "st*" -b serial -n 1000 --reps 1)
kl_cli_test(pattern-backend-excluded 0 "^map +serial .*PASS" --not "^map +openmp"
  run -w map -b "!openmp,!openacc" -n 1000 --reps 1)
kl_cli_test(pattern-backend-devices 0 "^map +serial .*PASS"
  run -w map -b "serial:*" -n 1000 --reps 1)
kl_cli_test(pattern-rung-no-match 2 "^kladder: error: rung pattern 'zz\\*' matches no rung"
  run -w reduce -r "zz*")
kl_cli_test(pattern-backend-no-match 2 "^kladder: error: backend pattern 'nope\\*' matches no backend"
  run -w map -b "nope*")
kl_cli_test(pattern-exclusion-no-match 2 "workload pattern '!nope' matches no workload"
  run -w "!nope")
kl_cli_test(pattern-list 0 "^  cg: " --not "^  map: " list -w "c*")

# A rung that cannot serve the problem stands aside with a note; the run
# goes on, and exits 0. Alone, its refusal is the run's (exit 2).
kl_cli_test(rung-stands-aside 0 "^note: map openmp stands aside: .*KLADDER_INJECT_ASIDE"
  --not "ERROR" --env KLADDER_INJECT_ASIDE=openmp
  run -w map -b serial,openmp -n 1000 --reps 1)
kl_cli_test(rung-aside-alone 2 "cannot serve this problem"
  --env KLADDER_INJECT_ASIDE=openmp run -w map -b openmp -n 1000 --reps 1)

# The table: brief by default, every line within 100 columns,
# a heading per problem and the ceilings apart; -v the wide one.
kl_cli_test(table-brief 0 "^map: f32, n=100003$" --match "^ceilings, each also timed"
  --match "^map +serial +serial .*PASS" --match "^reduce: f64 sum, n=100003$"
  --not "^.{101}" run -w map,reduce -b serial -n 100003 --reps 1)
kl_cli_test(table-wide 0 "^map +serial +serial +- +f32 +100003 .*PASS"
  run -v -w map -b serial -n 100003 --reps 1)

# Results to standard output: `--csv -`, `--json -`, the table
# then on standard error.
kl_cli_test(csv-to-stdout 0 "^workload,rung,backend,.*interrupted" --match "^map,serial,serial,"
  run -w map -b serial -n 1000 --reps 1 --csv -)
kl_cli_test(json-to-stdout 0 "" --json-stdout "[r['rung'] for r in d['results']] == ['serial-copy', 'serial']"
  run -w map -b serial -n 1000 --reps 1 --json -)

# Messages: one line each, naming what is wrong.
kl_cli_test(csv-directory-takes-no-file 2 "its directory takes no new file"
  run -w map -b serial --csv /proc/kladder-test.csv)
kl_cli_test(trace-in-proc 2 "'/proc/version': its directory takes no new file"
  run -w map -b serial --trace /proc/version)
kl_cli_test(matrix-and-input-one-option 2 "options '--matrix' and '-i' are one option, given twice"
  run -w cg --matrix a.mtx -i b.mtx)
kl_cli_test(newline-in-name 2 "^kladder: error: unknown workload 'a\\\\x0ab'"
  run -w "a
b")

# The warm-up and timed runs that --max-time left are the ones reported.
kl_cli_test(max-time-cuts-warmup 0 "" --json-stdout "d['results'][0]['warmup_runs'] < 2 and d['results'][0]['timed_runs'] < 5"
  run -w gemm -b serial -r serial-naive -n 300 --max-time 0.05 --reps 5 --json - --no-ceiling)
# A checked run that alone takes the whole --max-time is the one timed run,
# and the results and the text say so.
kl_cli_test(max-time-checked-run 0 "" --json-stdout "d['results'][0]['checked_timed'] == 1 and d['results'][0]['timed_runs'] == 1 and d['results'][0]['warmup_runs'] == 0"
  run -w gemm -b serial -r serial-naive -n 200 --max-time 0.000001 --json - --no-ceiling)
kl_cli_test(max-time-checked-run-said 0 "serial-naive: timed once, by its checked run, which alone took longer than 1e-06 s"
  run -w gemm -b serial -r serial-naive -n 200 --max-time 0.000001 --no-ceiling)
# Timed by noise (the default): the results say why the runs stopped (any
# of the three reasons noise timing has: on a loaded machine a run this
# short can reach the repetition cap first), with the median's interval
# around the median, and the options the precision
# instead of a count; --reps a fixed count and no precision; a rung that
# cannot reach the precision within --max-time says so under the table.
kl_cli_test(noise-fields 0 "" --json-stdout "(r := d['results'][0])['stop'] in ('converged', 'max-time', 'max-reps') and r['timed_runs'] >= 6 and r['median_low_s'] <= r['median_s'] <= r['median_high_s'] and d['options']['reps'] is None and d['options']['precision'] == 0.02"
  run -w map -b serial -n 100000 --precision 2% --no-ceiling --json -)
kl_cli_test(noise-fixed-reps 0 "" --json-stdout "(r := d['results'][0])['stop'] == 'reps' and r['timed_runs'] == 3 and r['median_low_s'] is None and d['options']['reps'] == 3 and d['options']['precision'] is None"
  run -w map -b serial -n 100000 --reps 3 --no-ceiling --json -)
kl_cli_test(noise-max-time-said 0 "map serial: stopped at 0.005 s \\(--max-time\\) after [0-9]+ timed runs, its median within \\+/-"
  run -w map -b serial -n 100000 --precision 0.000001 --max-time 0.005 --no-ceiling)
# Where each rung's time went: its setup and its timing, both measured,
# the timing at least its timed runs' sum (the checked run timed as the
# one timed run is setup's).
kl_cli_test(setup-timing-fields 0 "" --json-stdout "all(r['setup_s'] > 0 and r['timing_s'] >= sum(r['times_s']) for r in d['results'])"
  run -w stream -b serial -n 100000 --json - -q)
# The rungs of one problem on one device are measured together, their
# timed runs in rounds; alone, a rung is its own group; a fixed count is
# one batch.
kl_cli_test(interleaved-ladder 0 "" --json-stdout "len(d['results']) == 2 and all(r['interleaved'] == 2 and r['rounds'] >= 1 for r in d['results'])"
  run -w stream -b serial -n 100000 --no-ceiling --json - -q)
kl_cli_test(interleaved-alone 0 "" --json-stdout "[r['interleaved'] for r in d['results']] == [1]"
  run -w stream -b serial -r serial-triad -n 100000 --no-ceiling --json - -q)
# Interleaved rungs with one ceiling job share its prepared buffers, each
# timing its own runs of it: every rung has its ceiling's rate.
kl_cli_test(interleaved-shared-ceiling 0 "" --json-stdout "len(r := [x for x in d['results'] if not x['ceiling_only']]) == 3 and all(x['interleaved'] == 3 and x['ceiling'] > 0 and x['percent_ceiling'] > 0 for x in r)"
  run -w laplacian -b openmp -n 48 --max-time 0.05 --json - -q)
kl_cli_test(interleaved-fixed-one-round 0 "" --json-stdout "all(r['rounds'] == 1 and r['timed_runs'] == 4 for r in d['results'])"
  run -w stream -b serial -n 100000 --reps 4 --json - -q)
# --cache cold: the options and every result say so (cold 1 where the
# host's cache size is known); warm is the default; anything else is
# refused.
kl_cli_test(cache-cold-said 0 "" --json-stdout "d['options']['cache'] == 'cold' and all(r['cold'] in (0, 1) for r in d['results'])"
  run -w map -b serial -n 10000 --reps 3 --cache cold --json - -q)
kl_cli_test(cache-warm-default 0 "" --json-stdout "d['options']['cache'] == 'warm' and all(r['cold'] == 0 for r in d['results'])"
  run -w map -b serial -n 10000 --reps 3 --json - -q)
kl_cli_test(cache-bad 2 "--cache 'lukewarm' must be cold or warm"
  run -w map --cache lukewarm)
# The launch floor: OpenMP's parallel region timed once, each of its
# results carrying it and a line naming those near it; serial has none.
kl_cli_test(launch-floor-field 0 "" --json-stdout "all((r['launch_floor_s'] or 0) > 0 if r['backend'] == 'openmp' else r['launch_floor_s'] is None for r in d['results'])"
  --needs openmp run -w map -b serial,openmp -n 1000 --reps 20 --json - -q)
kl_cli_test(launch-floor-said 0 "^launch floor, openmp: an empty launch takes [0-9.]+ (us|ms) between events"
  --needs openmp run -w map -b openmp -n 1000 --reps 20 -q)
kl_cli_test(noise-precision-bad 2 "--precision '150%' must be above 0 and below 1"
  run -w map --precision 150%)
# A memory-bound problem whose buffers fit in the device's last-level
# cache is said to run from it, in the results and under the table; a
# compute-bound one never is.
kl_cli_test(in-cache-said 0 "^in cache, [0-9]+ results?: the buffers \\(at most [0-9.e+]+ MB\\) fit in the device's last-level cache"
  run -w reduce -b serial -n 64K --reps 2 --no-ceiling)
kl_cli_test(in-cache-field 0 "" --json-stdout "d['results'][0]['in_cache'] == 1"
  run -w reduce -b serial -n 64K --reps 2 --no-ceiling --json -)
# The machine's disclosure: the CPU's frequency policy and clock, each a
# value or null (a virtual machine may expose neither).
kl_cli_test(machine-cpu-clock 0 "" --json-stdout "'cpu_governor' in d['machine'] and (d['machine']['cpu_mhz'] is None or d['machine']['cpu_mhz'] > 0)"
  run -w reduce -b serial -n 1K --reps 2 --no-ceiling --json -)
kl_cli_test(in-cache-compute-bound 0 "" --json-stdout "d['results'][0]['in_cache'] == 0"
  run -w gemm -b serial -r serial-naive -n 64 --reps 2 --no-ceiling --json -)

# A quick default: without a size each workload runs at its quick size
# (host: integrate 10^7 points; the memory-bound workloads' grow past the
# last-level cache: test_model), --full at the seeds' (laplacian 256^3 on
# the host); OpenACC without a device is left out of a run that names no
# backend, with a note, and runs where named.
kl_cli_test(quick-default-size 0 "^integrate: f64, n=10000000$"
  run -w integrate -b serial --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(full-default-size 0 "^laplacian: f64, 256x256x256$"
  run -w laplacian -b serial --full --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(default-leaves-out-openacc 0 "openacc is not in a run that names no backend"
  --needs openacc --lacks cuda --not "^map +openacc " run -w map -n 1000 --reps 1)
kl_cli_test(openacc-runs-where-named 0 "^map +openacc +openacc .*PASS"
  --needs openacc run -w map -b openacc -n 1000 --reps 1)

# Ctrl-C and SIGTERM: the finished rungs printed and written,
# exit 130 and 143; a second signal quits at once, leaving nothing.
add_test(NAME cli-signals COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signals.sh ${KL})
