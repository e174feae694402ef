# Sweeps: -n and -p take a list or a range, each point a
# problem of its own: a row per point in the table (a heading each), the
# CSV and the JSON, its ceiling measured at its size. Every mistake is one
# line and exit 2, before anything runs.
set(sweep -w map -b serial --reps 1 --warmup 0)
kl_cli_test(sweep-size-list 0 "^map,serial,serial,\"\",,,f32,1024,"
  --match "^map,serial,serial,\"\",,,f32,4096," --match "^map,serial,serial,\"\",,,f32,16384,"
  --match "^map: f32, n=1024$" --match "^map: f32, n=16384$"
  --match "^stream,serial-copy,serial,\"ceiling\",,,f64,5462,"
  run ${sweep} -n 1K,4K,16K --csv -)
kl_cli_test(sweep-size-range 0 ""
  --json-stdout "[r['n'] for r in d['results'] if r['workload'] == 'map'] == [1024, 4096, 16384] and len([r for r in d['results'] if r['rung'] == 'serial-copy']) == 3"
  run ${sweep} -n 1K..16K:x4 --json -)
kl_cli_test(sweep-size-range-step 0 ""
  --json-stdout "[r['n'] for r in d['results']] == [1000, 3000, 5000, 6000]"
  run ${sweep} --no-ceiling -n 1000..5000:+2000,6000 --json -)
kl_cli_test(sweep-param-list 0 "^laplacian: f64, 8x8x8$" --match "^laplacian: f64, 16x16x16$"
  --match "^laplacian +serial +serial .*PASS"
  run -w laplacian -b serial -r serial -p nx=8,16 --reps 1 --warmup 0)
# Two lists: the cross product, the last list varying fastest; a real's
# range is not rounded, and a heading names the parameter swept.
kl_cli_test(sweep-cross-product 0 ""
  --json-stdout "[(r['n'], r['params'].split(chr(59))[2]) for r in d['results']] == [(4, 'hx=0.5'), (4, 'hx=1'), (4, 'hx=2'), (8, 'hx=0.5'), (8, 'hx=1'), (8, 'hx=2')]"
  run -w laplacian -b serial -r serial -n 4,8 -p hx=0.5..2:x2 --reps 1
  --warmup 0 --no-ceiling --json -)
kl_cli_test(sweep-heading-names-param 0 "^laplacian: f64, 4x4x4, hx=0.5$"
  --match "^laplacian: f64, 4x4x4, hx=2$"
  run -w laplacian -b serial -r serial -p nx=4,hx=0.5,2 --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(sweep-choice-list 0 "^reduce: f64 sum, n=1000$" --match "^reduce: f64 max, n=1000$"
  run -w reduce -b serial -r serial -n 1000 -p op=sum,max --reps 1 --warmup 0 --no-ceiling)
kl_cli_test(sweep-runs-down 2
  "^kladder: error: size range '16K\\.\\.1K:x4' runs down: 16K is above 1K$"
  ${no_run} run ${sweep} -n 16K..1K:x4)
kl_cli_test(sweep-factor-one 2
  "^kladder: error: size range '1K\\.\\.16K:x1': the factor must be above 1$"
  ${no_run} run ${sweep} -n 1K..16K:x1)
kl_cli_test(sweep-no-step 2 "^kladder: error: size range '1K\\.\\.16K' needs a step"
  ${no_run} run ${sweep} -n 1K..16K)
kl_cli_test(sweep-empty-item 2 "^kladder: error: size list '1K,,4K' has an empty item$"
  ${no_run} run ${sweep} -n 1K,,4K)
kl_cli_test(sweep-trailing-comma 2 "^kladder: error: size list '1K,' has an empty item$"
  ${no_run} run ${sweep} -n 1K,)
kl_cli_test(sweep-twice 2 "^kladder: error: size list '1K,1024' has 1024 twice"
  ${no_run} run ${sweep} -n 1K,1024)
kl_cli_test(sweep-too-many-sizes 2
  "^kladder: error: size list '1\\.\\.100:\\+1' has more than 64 values"
  ${no_run} run ${sweep} -n 1..100:+1)
kl_cli_test(sweep-too-many-points 2
  "^kladder: error: laplacian: a sweep of more than 64 points \\(8 sizes x 9 values of hx\\); sweep fewer values$"
  ${no_run} run -w laplacian -b serial -n 8..64:+8 -p hx=1..9:+1)
kl_cli_test(sweep-param-empty-item 2
  "^kladder: error: laplacian: nx list '8,,16' has an empty item$"
  ${no_run} run -w laplacian -b serial -p nx=8,,16)
kl_cli_test(sweep-param-out-of-range 2
  "^kladder: error: pipeline: streams = 8 is outside \\[1, 4\\]$"
  ${no_run} run -w pipeline -b serial -n 1000 -p streams=1..8:x2)
kl_cli_test(sweep-size-out-of-range 2 "^kladder: error: cg: grid 2000\\^3 .*n <= 1290"
  ${no_run} run -w cg -b serial -n 4,2000)
kl_cli_test(sweep-choice-range 2 "^kladder: error: reduce: op takes no range"
  ${no_run} run -w reduce -b serial -p op=sum..max:x2)
kl_cli_test(sweep-list-continues-one-p 2
  "^kladder: error: parameter '16' is not NAME=VALUE: each -p starts with one \\(see `kladder run --help`\\)$"
  ${no_run} run -w laplacian -b serial -p nx=8 -p 16)
