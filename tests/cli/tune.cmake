# `kladder tune` writes a wisdom file that `tune --check` accepts and the
# library reads (test_wisdom, unit/, reads one).
# The file: its header, a best line from size 0 on either backend (at 64
# bytes serial is faster on a quiet host, but under ASan in CI openmp's
# atomic rung once was), serial's one pick line.
kl_cli_test(tune-writes-wisdom 0 "^pick d0 histogram u8 0 serial serial$"
  --match "^best d[01] histogram u8 0 (serial serial|openmp openmp-[a-z-]+)$"
  --file w.txt "^kladder-wisdom 2$" tune -w histogram -b serial,openmp
  -n 64,4K --reps 2 -q -o w.txt)
# best and pick lines for reduce on two host backends (the file is also
# printed; no device backend, so no run with the copies of host data).
kl_cli_test(tune-best-and-pick 0 "^pick d1 reduce f64 0 openmp openmp-"
  --match "^best d[01] reduce f64 0 (serial|openmp) "
  --file w.txt "^pick d0 reduce f64 0 serial "
  tune -w reduce -b serial,openmp -n 1000,100000 --reps 2 -q -o w.txt)
kl_cli_test(tune-check-missing 1 "no wisdom file at /no/such/wisdom"
  tune --check /no/such/wisdom)
kl_cli_test(tune-check-foreign 1 "not a wisdom file"
  --write w.txt "something else" tune --check w.txt)
kl_cli_test(tune-unknown-workload 2 "unknown workload 'nope'" tune -w nope)
kl_cli_test(tune-bad-reps 2 "--reps '0' must be 1 to 1000" tune --reps 0)
kl_cli_test(tune-unknown-backend 2 "unknown backend 'frob'" tune -b serial,frob)
kl_cli_test(tune-help 0 "^usage: kladder tune" tune --help)
# laplacian's tunings (m, planes) are read by its CUDA rungs alone: on
# the host backends tune sweeps nothing and writes no tuned line, its
# picks as before. A -p of a tuning is fixed, a list refused.
kl_cli_test(tune-laplacian-host 0 "^pick d0 laplacian f64 0 serial serial$"
  --not "^tuned " tune -w laplacian -b serial -n 8,16 --reps 1 -q
  -p m=2 -o w.txt)
kl_cli_test(tune-fixed-list 2 "tune takes NAME=VALUE items, each one value"
  tune -w laplacian -p m=2,4 -o w.txt)
kl_cli_test(tune-fixed-unknown 2 "no workload tuned has a parameter 'frob'"
  tune -w laplacian -p frob=1 -o w.txt)
# -t: only the types named (the file holds those alone); a name that is no
# type is bad usage.
kl_cli_test(tune-type 0 "^pick d0 reduce i32 0 serial serial$"
  --not "^pick d0 reduce f(32|64) " tune -w reduce -b serial -t i32
  -n 1000 --reps 1 -q -o w.txt)
kl_cli_test(tune-unknown-type 2 "unknown type 'f65'" tune -t f32,f65)
