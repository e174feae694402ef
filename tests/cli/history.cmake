# The results history (history.sh): 4 processes appending
# 50 runs each, the import of results/, a planted slowdown that
# --check flags at its commit and not before, every bad input (exit 2, one
# line, the database unchanged). Skipped without python3 or SQLite.
add_test(NAME history COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/history.sh
  ${KL} ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/results)
set_tests_properties(history PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
kl_cli_test(history-help 0 "^usage: kladder history --db FILE" history --help)
if(KL_SQLITE_FOUND)
  kl_cli_test(history-no-db 2
    "^kladder: error: no history given \\(--db FILE\\) \\(see `kladder history --help`\\)$"
    history --check)
else()
  kl_cli_test(history-no-sqlite 2 "built without SQLite" history --check)
endif()
