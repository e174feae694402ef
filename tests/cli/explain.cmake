# `kladder explain` at 80 columns, its numbers with --results the file's,
# the host-clock rung caught (explain.py); every mistake exit 2.
add_test(NAME explain COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/need.sh python3 --
  python3 ${CMAKE_CURRENT_SOURCE_DIR}/explain.py ${KL})
set_tests_properties(explain PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
kl_cli_test(explain-no-workload 2 "^kladder: error: explain needs a workload"
  explain)
kl_cli_test(explain-unknown 2 "^kladder: error: unknown workload" explain
  -w nosuch)
kl_cli_test(explain-no-rung 2 "^kladder: error: no rung of map matches" explain
  -w map -r nosuch)
kl_cli_test(explain-bad-option 2 "^kladder: error: unknown option '--nosuch'"
  explain -w map --nosuch)
kl_cli_test(explain-bad-results 2 "^kladder: error: /no/such.json: cannot read"
  explain -w map --results /no/such.json)
