# The command line's grammar: GNU-style options through one parser
# (src/cli/args.c), and the results files checked before any rung runs.
# Included by cli/CMakeLists.txt after kl_cli_test is defined.
#
# Runs are one small map on the serial backend, no ceiling: a few
# milliseconds. A run's first progress line is "[1/N] ...": where it must
# not appear, no rung ran ('.' for the brackets: an open bracket in a CMake
# list would keep the rest of the list in one item). An argument '' is an
# empty one (see expect.sh).
set(quick -w map -b serial -n 1000 --reps 1 --warmup 0 --no-ceiling)
set(no_run --not "^.1/[0-9]+. " --not "PASS")

# Values: attached, apart, after '='; a short option's '=' is its value's.
kl_cli_test(short-value-attached 0 "^map +serial +serial +- +f32 +5 .*PASS"
  run -v -w map -b serial -n5 --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(short-value-equals 2 "size '=5' is not a number" ${no_run}
  run -w map -b serial -n=5)
kl_cli_test(long-value-equals 0 "^map +serial +serial +- +f32 +5 .*PASS"
  run -v -w map -b serial --size=5 --reps=1 --warmup=0 --no-ceiling)
kl_cli_test(short-options-clustered 0 "^map +serial +serial +- +f32 +7 .*PASS"
  --not "^.1/[0-9]+. " run -v -qn7 -w map -b serial --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(long-prefix 0 "^map +serial +serial +- +f32 +1000 .*PASS"
  run -v --work map --back=serial --si 1000 --rep 1 --warm 0 --no-c)
kl_cli_test(long-prefix-ambiguous 2
  "^kladder: error: option '--s' is ambiguous; possibilities: --size --solution --shape --scalars --seed --scaling \\(see `kladder run --help`\\)$"
  run -w map --s 5)
kl_cli_test(unknown-short-option 2 "^kladder: error: unknown option '-x' \\(see `kladder run --help`\\)$"
  --lines 1 run -w map -x)
kl_cli_test(long-option-with-unknown-value 2 "^kladder: error: unknown option '--frob' \\(see `kladder run --help`\\)$"
  run --frob=1)

# -- ends the options; run and list take no arguments.
kl_cli_test(dashdash-ends-options 0 "^map +serial .*PASS" run ${quick} --)
kl_cli_test(dashdash-then-argument 2
  "^kladder: error: unexpected argument '-n'; run takes options only \\(see `kladder run --help`\\)$"
  ${no_run} run ${quick} -- -n 5)
kl_cli_test(run-argument 2 "unexpected argument 'map'; run takes options only"
  ${no_run} run map ${quick})
kl_cli_test(list-argument 2 "unexpected argument 'map'; list takes options only"
  list map)

# No value may be empty; flags take none.
kl_cli_test(empty-workload 2 "^kladder: error: option '-w' needs a non-empty value \\(see `kladder run --help`\\)$"
  run -w '' -b serial)
kl_cli_test(empty-workload-equals 2 "option '--workload' needs a non-empty value"
  run --workload= -b serial)
kl_cli_test(empty-alpha 2 "option '--alpha' needs a non-empty value" ${no_run}
  run -w gemm -b serial -s 4x4x4 --reps 1 --alpha '')
kl_cli_test(empty-size 2 "option '--size' needs a non-empty value" run -w map --size=)
kl_cli_test(empty-csv 2 "option '--csv' needs a non-empty value" ${no_run}
  run ${quick} --csv '')
kl_cli_test(quiet-takes-no-value 2 "^kladder: error: option '--quiet' takes no value \\(see `kladder run --help`\\)$"
  ${no_run} run ${quick} --quiet=yes)
kl_cli_test(no-ceiling-takes-no-value 2 "option '--no-ceiling' takes no value"
  ${no_run} run -w map -b serial -n 1000 --reps 1 --no-ceiling=0)
kl_cli_test(list-json-takes-no-value 2 "option '--json' takes no value" list --json=1)

# -w, -b, -r and -p add up; a name given twice is selected once, a
# parameter given twice is an error.
kl_cli_test(workloads-add-up 0 "^map +serial " --match "^stream +serial-triad "
  run -w map -w stream -b serial -n 1000 --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(backends-add-up 0 "^map +serial +serial " --match "^map +openmp +openmp "
  run -w map -b serial -b openmp -n 1000 --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(rungs-add-up 0 "^stream +serial-copy " --match "^stream +serial-triad "
  --not "openmp"
  run -w stream -r serial-copy --rung serial-triad -n 1000 --reps 1 --no-ceiling)
kl_cli_test(workload-twice-runs-once 0 "^\\[1/1\\] map serial "
  run -w map -w map,map -b serial -b serial -n 1000 --reps 1 --no-ceiling)
kl_cli_test(param-twice 2 "^kladder: error: parameter 'n' given twice \\(-p\\) \\(see `kladder run --help`\\)$"
  ${no_run} run -w map -b serial -p n=5 -p n=6 --reps 1)
kl_cli_test(param-twice-in-one-list 2 "parameter 'n' given twice" ${no_run}
  run -w map -b serial -p n=5,n=6 --reps 1)
kl_cli_test(params-add-up 0 "^gemm +serial-naive .* 7x5x3 .*PASS"
  run -v -w gemm -r serial-naive -p m=7 -p n=5 --param k=3 --reps 1 --no-ceiling)

# Every other option takes one value, once.
kl_cli_test(size-twice 2
  "^kladder: error: option '-n' given twice; it takes one value \\(see `kladder run --help`\\)$" ${no_run}
  run ${quick} -n 5)
kl_cli_test(size-twice-short-and-long 2 "option '--size' given twice" ${no_run}
  run -w map -b serial -n 5 --size=6)
kl_cli_test(seed-twice 2 "option '--seed' given twice" run -w map --seed 1 --seed 2)
kl_cli_test(csv-twice 2 "option '--csv' given twice" run -w map --csv a --csv b)
kl_cli_test(scalar-twice 2
  "option '--scalars' sets scalar 1, which --alpha, --beta or --scalars set already"
  run -w gemm --alpha 2 --scalars 3,4)
kl_cli_test(scalars-apart 0 "^gemm +serial-naive .*PASS"
  run -w gemm -b serial -r serial-naive -s 4x4x4 --scalars ,0.5 --alpha 2
  --reps 1 --no-ceiling)

# A long argument is cut in messages, so the reason stays in sight.
kl_cli_test(long-option-cut 2
  "^kladder: error: unknown option '--a-very-long-option-name-that-goes-on-a\\.\\.\\.' \\(see `kladder run --help`\\)$"
  run --a-very-long-option-name-that-goes-on-and-on-and-on-for-a-while=1)
kl_cli_test(long-argument-cut 2 "unexpected argument 'x{40}\\.\\.\\.'; run takes"
  run xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)

# Results files: opened before any rung runs, written when the run
# completes (a failed check included), never left half-made.
kl_cli_test(csv-in-missing-dir 2
  "^kladder: error: cannot write results to 'missing/x.csv': its directory does not exist$"
  ${no_run} --leaves-nothing run ${quick} --csv missing/x.csv)
kl_cli_test(json-is-directory 2 "cannot write results to '\\.': it is a directory"
  ${no_run} --leaves-nothing run ${quick} --json .)
kl_cli_test(csv-full-device 2 "cannot write results to '/dev/full'"
  ${no_run} --if-exists /dev/full run ${quick} --csv /dev/full)
kl_cli_test(json-bad-csv-discarded 2 "cannot write results to 'missing/x.json'"
  ${no_run} --leaves-nothing run ${quick} --csv out.csv --json missing/x.json)
kl_cli_test(csv-json-same-file 2 "--csv and --json name the same file 'out'"
  ${no_run} --leaves-nothing run ${quick} --csv out --json out)
kl_cli_test(trace-in-missing-dir 2
  "^kladder: error: cannot write results to 'missing/t.json': its directory does not exist$"
  ${no_run} --leaves-nothing run ${quick} --trace missing/t.json)
kl_cli_test(trace-csv-same-file 2 "--csv and --trace name the same file 'out'"
  ${no_run} --leaves-nothing run ${quick} --csv out --trace out)
kl_cli_test(trace-twice 2 "option '--trace' given twice" run -w map --trace a
  --trace b)
# The pipeline ladders' own counts: a chunk or a stream count
# of zero or below is one line and exit 2, and nothing runs.
kl_cli_test(offload-chunk-zero 2
  "^kladder: error: offload: chunk: size '0' is zero; give a positive integer$"
  ${no_run} run -w offload -b serial -n 1000 -p chunk=0)
kl_cli_test(offload-chunk-negative 2
  "^kladder: error: offload: chunk: size '-5' is negative; give a positive integer$"
  ${no_run} run -w offload -b serial -n 1000 -p chunk=-5)
kl_cli_test(pipeline-streams-zero 2
  "^kladder: error: pipeline: streams = 0 is outside \\[1, 4\\]$"
  ${no_run} run -w pipeline -b serial -n 1000 -p streams=0)
kl_cli_test(pipeline-streams-negative 2
  "^kladder: error: pipeline: streams = -2 is outside \\[1, 4\\]$"
  ${no_run} run -w pipeline -b serial -n 1000 -p streams=-2)
kl_cli_test(pipeline-intervals-zero 2
  "^kladder: error: pipeline: intervals = 0 is outside \\[1, 64\\]$"
  ${no_run} run -w pipeline -b serial -n 1000 -p intervals=0)
kl_cli_test(pipeline-trace-unwritable 2
  "^kladder: error: cannot write results to 'missing/p.json': its directory does not exist$"
  ${no_run} --leaves-nothing run -w pipeline -b serial -n 1000 --trace missing/p.json)
kl_cli_test(no-trace-after-device-error 3 "injected runtime error"
  --env KLADDER_INJECT_ERROR=serial --leaves-nothing
  run ${quick} --trace out.json)
kl_cli_test(no-files-after-device-error 3 "injected runtime error"
  --env KLADDER_INJECT_ERROR=serial --leaves-nothing
  run ${quick} --csv out.csv --json out.json)
kl_cli_test(old-file-kept-after-device-error 3 "injected runtime error"
  --env KLADDER_INJECT_ERROR=openmp --keeps out.json
  run -w map -b serial,openmp -n 1000 --reps 1 --no-ceiling --json out.json)
# Each result names the rung the library's entry point runs for its
# problem on its backend (kl_dispatch; the tests run without wisdom, so the
# backend's library rung), and null for a workload without entry points.
kl_cli_test(json-dispatched 0 "^reduce +openmp-clause .*PASS"
  --file out.json "\"rung\": \"openmp-clause\".*\"dispatched\": \"openmp-partials\""
  run -w reduce -b openmp -r openmp-clause -n 1000 --reps 2 --json out.json)
kl_cli_test(json-dispatched-none 0 "^stream +serial-copy .*PASS"
  --file out.json "\"dispatched\": null"
  run -w stream -b serial -r serial-copy -n 1000 --reps 2 --json out.json)
kl_cli_test(files-after-failed-check 1 "^map +openmp .*FAIL"
  --env KLADDER_INJECT_WRONG=openmp --file out.csv "^map,openmp,openmp,.*,FAIL,"
  run -w map -b serial,openmp -n 1000 --reps 1 --no-ceiling --csv out.csv)
kl_cli_test(command-line-recorded 0 "^map +serial .*PASS"
  --file "it's.json" "\"command_line\": \"kladder run -w map .*--json 'it'.*s\\.json'\""
  run ${quick} --json "it's.json")
# --host-data: no effect on a host backend (the rung passes as without
# it), and the JSON's options say it was asked for.
kl_cli_test(host-data-json 0 "^reduce +serial .*PASS"
  --file out.json "\"options\": \\{.*\"host_data\": true"
  run -w reduce -b serial -n 1000 --host-data --json out.json)
kl_cli_test(host-data-takes-no-value 2 "option '--host-data' takes no value"
  ${no_run} run -w reduce -b serial -n 1000 --host-data=1)

# list --json: one document for programs; -w adds up there too.
kl_cli_test(list-json 0 "\"name\": \"serial-copy\""
  --json-stdout "d['version'] and any(b['name'] == 'serial' and b['available'] for b in d['backends']) and any(r['name'] == 'serial-copy' and r['ceiling'] and r['built'] for w in d['workloads'] for r in w['rungs']) and all(len([p for p in w['params'] if p['main_size']]) == 1 for w in d['workloads'])"
  list --json)
kl_cli_test(list-json-workload 0 "\"name\": \"gemm\""
  --json-stdout "[w['name'] for w in d['workloads']] == ['gemm'] and [p['default_text'] for p in d['workloads'][0]['params'] if p['name'] == 'm'] == ['n']"
  list -w gemm --json)
kl_cli_test(list-workloads-add-up 0 "^  gemm: " --match "^  map: " --not "^  stream: "
  list -w map --workload gemm)
kl_cli_test(list-unknown-option 2 "unknown option '--frob'" list --frob)

kl_cli_test(run-help-rules 0 "-w, -b, -r and -p may be repeated and add up"
  --match "may be given once" run --help)

# --energy where no counter can be read (no RAPL folder): a note, not an
# error; the exit code unchanged; the figures null in the JSON and empty
# in the CSV, never 0. test_energy.c measures them on fake counters.
kl_cli_test(energy-none-json 0 "note: no energy on serial: no RAPL"
  --env KLADDER_POWERCAP_ROOT=/nonexistent/kladder-powercap
  --file out.json "\"energy_source\": null, \"energy_j\": null, \"energy_w\": null, \"energy_pj\": null, \"energy_per\": null, \"energy_window_s\": null, \"energy_reps\": null, \"energy_updates\": null, \"idle_w\": null, \"sampled_w\": null, \"energy_mismatch\": null"
  run -w stream -b serial -n 4096 --reps 1 --energy --json out.json)
kl_cli_test(energy-none-csv 0 "^stream +serial-triad .*PASS"
  --env KLADDER_POWERCAP_ROOT=/nonexistent/kladder-powercap
  --file out.csv "^stream,serial-triad,.*,PASS,.*,\"\",,,,\"\",,,,,,$"
  run -w stream -b serial -n 4096 --reps 1 --energy --csv out.csv)
kl_cli_test(energy-csv-columns 0 "^stream +serial-triad .*PASS"
  --file out.csv "energy_source,energy_j,energy_w,energy_pj,energy_per,energy_window_s,energy_reps,energy_updates,idle_w,sampled_w,energy_mismatch$"
  run -w stream -b serial -n 4096 --reps 1 --csv out.csv)
kl_cli_test(energy-takes-no-value 2 "option '--energy' takes no value"
  ${no_run} run -w reduce -b serial -n 1000 --energy=1)

# A usage error is one line, the hint on it, for every command.
kl_cli_test(usage-one-line-top 2
  "^kladder: error: unknown command '--bogus'.* \\(see `kladder --help`\\)$"
  --lines 1 --bogus)
kl_cli_test(usage-one-line-explain 2
  "^kladder: error: unknown option '--bogus' \\(see `kladder explain --help`\\)$"
  --lines 1 explain --bogus)
kl_cli_test(usage-one-line-run 2
  "^kladder: error: unknown option '--bogus' \\(see `kladder run --help`\\)$"
  --lines 1 run --bogus)

# A size past the range is named as given, compared exactly (not through
# a double: 2^62 + 1 is not 2^62, 2^63 - 1 is not -2^63).
kl_cli_test(size-int64-max 2
  "^kladder: error: read: n = 9223372036854775807 is outside \\[1, 4611686018427387904\\]$"
  --lines 1 run -w read -b serial -n 9223372036854775807)
kl_cli_test(size-one-past-max 2
  "^kladder: error: read: n = 4611686018427387905 is outside \\[1, 4611686018427387904\\]$"
  --lines 1 run -w read -b serial -n 4611686018427387905)
kl_cli_test(param-one-past-max 2
  "^kladder: error: read: n = 4611686018427387905 is outside \\[1, 4611686018427387904\\]$"
  --lines 1 run -w read -b serial -p n=4611686018427387905)
