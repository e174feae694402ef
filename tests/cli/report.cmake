# The HTML report: drawn from a host run, checked against its
# results files and in a headless Chromium (skipped without one; CI
# installs it); and every bad input one line, exit 2, nothing written.
add_test(NAME report-in-browser COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/report.sh ${KL} ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(report-in-browser PROPERTIES SKIP_RETURN_CODE 77
  TIMEOUT 300)
# kladder run --energy's results (test_energy, unit/) drawn: energy beside
# the rate, the energy roofline, every number on the page the file's
# (check_report.py).
add_test(NAME energy-report COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/energy-report.sh $<TARGET_FILE:kladder-cli>
  ${KL_ENERGY_JSON})
set_tests_properties(energy-report PROPERTIES FIXTURES_REQUIRED energy-results
  SKIP_RETURN_CODE 77)
kl_cli_test(report-missing 2
  "^kladder: error: /no/such.json: cannot read: No such file or directory$"
  --leaves-nothing report /no/such.json -o out.html)
kl_cli_test(report-empty 2 "^kladder: error: .*/empty.json: empty: no JSON"
  --leaves-nothing report ${REPORT_DATA}/empty.json -o out.html)
kl_cli_test(report-truncated 2
  "^kladder: error: .*/truncated.json:2:40: expected a member name in quotes, found the end of the file$"
  --leaves-nothing report ${REPORT_DATA}/truncated.json -o out.html)
kl_cli_test(report-malformed 2
  "^kladder: error: .*/malformed.json:2:16: expected a value, found ','$"
  --leaves-nothing report ${REPORT_DATA}/malformed.json -o out.html)
kl_cli_test(report-foreign 2
  "^kladder: error: .*/foreign.json: not a kladder results file"
  --leaves-nothing report ${REPORT_DATA}/foreign.json -o out.html)
kl_cli_test(report-array 2
  "^kladder: error: .*/array.json: not a kladder results file"
  --leaves-nothing report ${REPORT_DATA}/array.json -o out.html)
kl_cli_test(report-no-results 2
  "^kladder: error: .*/no-results.json: no results in it \\(.results. is empty\\)$"
  --leaves-nothing report ${REPORT_DATA}/no-results.json -o out.html)
kl_cli_test(report-directory 2 "^kladder: error: .*/report: a directory"
  --leaves-nothing report ${REPORT_DATA} -o out.html)
kl_cli_test(report-newer-format 0
  "warning: .*/newer.json: format kladder-results-9 is newer"
  --file out.html "id=\"w-map\"" report ${REPORT_DATA}/newer.json -o out.html)
kl_cli_test(report-output-is-input 2 "would overwrite the results file it reads"
  --keeps in.json report in.json -o in.json)
# The performance page: a machine is a file's folder ("report" here), a
# named machine with no file and a named backend with no run read "not
# measured"; the best rung of a backend is a cell.
kl_cli_test(report-markdown 0 "^\\| hip \\| not measured \\| not measured \\|$"
  report --markdown --machines report,none --backends hip
  ${REPORT_DATA}/newer.json -o -)
kl_cli_test(report-markdown-stdout 0
  "^\\| openmp \\| openmp: [0-9.]+ GB/s, [0-9]+% of ceiling \\| not measured \\|$"
  --match "^\\| map, f32 \\| [0-9.]+ GB/s \\| - \\|$"
  report --markdown --machines report,none ${REPORT_DATA}/newer.json -o -)
kl_cli_test(report-markdown-machines 0 "\\| report \\| no GPU \\| AMD EPYC, 2 threads \\| 0.2.0 \\|"
  report --markdown ${REPORT_DATA}/newer.json -o -)
kl_cli_test(report-markdown-other-machine 2
  "^kladder: error: .*/newer.json: machine 'report' is not among --machines$"
  --leaves-nothing report --markdown --machines h100 ${REPORT_DATA}/newer.json
  -o page.md)
kl_cli_test(report-markdown-foreign 2 "foreign.json: not a kladder results file"
  --leaves-nothing report --markdown ${REPORT_DATA}/foreign.json -o page.md)
kl_cli_test(report-markdown-db 2 "--db goes with the HTML report"
  report --markdown --db x.db ${REPORT_DATA}/newer.json -o page.md)
kl_cli_test(report-machines-alone 2 "--machines and --backends go with --markdown"
  report --machines a ${REPORT_DATA}/newer.json -o page.html)
kl_cli_test(report-markdown-output-is-input 2 "would overwrite the results file it reads"
  --keeps in.json report --markdown in.json -o in.json)
kl_cli_test(report-output-directory 2
  "^kladder: error: cannot write the report to /tmp: a directory$"
  report ${REPORT_DATA}/newer.json -o /tmp)
kl_cli_test(report-output-missing-folder 2
  "^kladder: error: cannot write '/no/such/dir/r.html': its directory does not exist"
  report ${REPORT_DATA}/newer.json -o /no/such/dir/r.html)
kl_cli_test(report-no-output 2 "no output given" report ${REPORT_DATA}/newer.json)
kl_cli_test(report-no-input 2 "no results file given" report -o out.html)
kl_cli_test(report-unknown-option 2 "unknown option '--frob'"
  report --frob ${REPORT_DATA}/newer.json -o out.html)
kl_cli_test(report-help 0 "^usage: kladder report RESULTS.json" report --help)
# A sweep whose results name the rung the library dispatches:
# a ring on that rung's point at each size, and the table beside the
# fastest rung measured (data/report/dispatch.json: reduce on serial and
# openmp at 1000 and 4000, kladder run's own file).
kl_cli_test(report-dispatch 0
  "circle class=\"dispatched\".*the library runs openmp-partials at n = 4000"
  report ${REPORT_DATA}/dispatch.json -o -)
kl_cli_test(report-dispatch-table 0
  "<td class=\"n\">1000</td><td>openmp</td><td>openmp-(clause|partials)</td>"
  report ${REPORT_DATA}/dispatch.json -o -)
# A distributed workload's file (data/report/scaling.json: laplacian-dist
# over two ranks on OpenMP, kladder run's own file): the scaling table,
# each rung's efficiency against rank 0 alone and its phases' shares; none
# for a file of one rank; every number on the page the file's.
kl_cli_test(report-scaling 0
  "<td>openmp-overlap</td><td class=\"n\">2</td><td>1x1x2</td><td>weak</td>.*data-k=\"efficiency\"[^>]*>0.615</td><td class=\"n\" data-c=\"[0-9.]+\" data-f=\"pct\">19.0%</td>"
  report ${REPORT_DATA}/scaling.json -o -)
kl_cli_test(report-scaling-none 0 "<table class=\"rungs\">"
  --not "rungs scaling" report ${REPORT_DATA}/dispatch.json -o -)
add_test(NAME report-scaling-numbers COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/need.sh python3 -- sh -c
  "\"$0\" report \"$1\" -o \"$2\" && python3 \"$3\" \"$2\" \"$1\""
  $<TARGET_FILE:kladder-cli> ${REPORT_DATA}/scaling.json
  ${CMAKE_CURRENT_BINARY_DIR}/scaling.html
  ${CMAKE_CURRENT_SOURCE_DIR}/check_report.py)
set_tests_properties(report-scaling-numbers PROPERTIES SKIP_RETURN_CODE 77)
kl_cli_test(run-html 0 "^map +serial .*PASS"
  --file out.html "<p id=\"selfcheck\">" run -w map -b serial -n 1000
  --reps 2 --html out.html)
kl_cli_test(run-html-directory 2
  "^kladder: error: cannot write the report to '/tmp': a directory$"
  --leaves-nothing run -w map -b serial -n 1000 --html /tmp)
kl_cli_test(run-html-same-as-json 2 "--json and --html name the same file"
  run -w map -b serial -n 1000 --json r.x --html r.x)

# Whole-file outputs (report -o, --markdown -o, run --html, tune -o)
# written as the results files are: a link to a device or a pipe written
# through, never replaced; a file replaced whole; nothing left beside.
add_test(NAME cli-outputs-in-place COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/outputs.sh ${KL})
# It waits for its own background readers: a bound well short of the
# suite's keeps a wait that goes wrong from costing the whole run.
set_tests_properties(cli-outputs-in-place PROPERTIES TIMEOUT 300)

# Readers of results and wisdom files refuse a pipe that no process
# writes to at once (compare, report, explain --results, tune --check).
add_test(NAME cli-pipes-not-waited-for COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/pipes.sh ${KL})
set_tests_properties(cli-pipes-not-waited-for PROPERTIES SKIP_RETURN_CODE 77
  TIMEOUT 200)

# The readers of results files against a table of bad ones (missing, a
# directory, empty, cut, not results, format 0, no results, a non-object,
# a NUL in a name, a negative, infinite or textual time, a success with no
# time, a pipe with no writer) and outputs that cannot be written: exit 2,
# one line, nothing written, every command alike.
add_test(NAME cli-bad-inputs COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/bad_inputs.sh ${KL})
set_tests_properties(cli-bad-inputs PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
