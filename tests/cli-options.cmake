# The command line's grammar (issue 10): GNU-style options through
# getopt_long, and the results files checked before any rung runs.
# Included by tests/CMakeLists.txt after kl_cli_test is defined.
