# list fits a terminal: a line a backend, a line a workload with its rungs
# counted on each backend, the way to the detail, within 100 columns and
# 40 lines; -w and --all in full, wrapped to 100 columns (map's
# parameters and rungs; cg's check, over 200 characters).
kl_cli_test(list 0 "^  map +y = a\\*x\\^2 \\+ b\\*x \\+ c over float arrays +[0-9]"
  --match "^  serial +available +plain C11"
  --match "^  workload +summary +serial openmp "
  --match "^.kladder list -w W.: W's parameters and rungs. .kladder list --all."
  --not "^.{101}" --lines 40 list)
kl_cli_test(list-workload-full 0 "^    parameters \\(-p NAME=VALUE\\):$"
  --match "^      n +elements of x and y. default 268435456. from 1 to "
  --match "^    serial +serial +ready +one loop on one core \\[library\\]$"
  --match "^  cg: conjugate gradient" --match "^    check: true residual"
  --not "^.{101}" list -w map,cg)
kl_cli_test(list-all-fits 0 "^    cuda-best +(cuda|hip) " --match "^  gemm: "
  --not "^.{101}" list --all)

# `list -w` leaves out the rungs of absent backends unless --all.
kl_cli_test(list-absent-rungs 0 "rungs? of backends not here: .kladder list --all." --lacks cuda
  --not "^    cuda-best " list -w reduce)
# The brief list counts them in parentheses: reduce's GPU rungs.
kl_cli_test(list-absent-counted 0
  "^  reduce +sum, min or max of an array +[0-9].* \\([0-9]+\\)"
  --match "^  cuda +not here " --lacks cuda list)
kl_cli_test(list-all 0 "^    cuda-best +cuda " list --all)
# The distributed workloads' NCCL rungs are listed in every build (not
# built where NCCL is not found), their summaries wrapped under them.
kl_cli_test(list-dist-nccl 0 "^    cuda-nccl +(cuda|hip) "
  --match "^ {47}.*ncclAllReduce" list --all -w reduce-dist)
kl_cli_test(list-dist-nccl-halo 0 "^    cuda-nccl +(cuda|hip) "
  --match "ncclSend" list --all -w laplacian-dist)
kl_cli_test(list-dist-nccl-cg 0 "^    cuda-nccl +(cuda|hip) "
  --match "ncclSend" --match "ncclAllReduce" list --all -w cg-dist)
kl_cli_test(list-help 0 "^usage: kladder list " list --help)
# The results' fields, a line each, from the library's one description.
kl_cli_test(list-fields 0 "^median_s +seconds +s +median_s +-$"
  --match "^percent_ceiling +number +% +percent_ceiling +-$"
  --match "^gpu_power_limit_w +number +W +- +machine$"
  --match "^trace +events +- +- +-$" list --fields)
kl_cli_test(list-fields-alone 2 "--fields takes no other option" list --fields --json)
