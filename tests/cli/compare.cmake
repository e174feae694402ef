# `kladder compare`: results files matched result by result, each pair
# with its time ratio, share-of-ceiling ratio, Mann-Whitney U test, the
# interval of the ratio and verdict. Included by cli/CMakeLists.txt after
# kl_cli_test is
# defined.
#
# The verdicts come from the fixtures of data/compare: base.json, a real
# host run (reduce and map, serial and OpenMP, 64K, 7 timed runs), and
# files make.py derives from it (one rung's times scaled, a rung dropped,
# a check failed, ...), so that they are fixed.
set(CMP ${KL_TEST_DATA}/compare)

kl_cli_test(compare-identical 0 "^7 pairs: 0 slower, 0 faster, 0 machine, 7 same, 0 failed"
  --not "(slower|faster|failed)$" compare ${CMP}/base.json ${CMP}/base.json)
kl_cli_test(compare-slower 1
  "^reduce +openmp-partials +openmp +4\\.84 us +7\\.26 us +1\\.50x +0\\.67x +1\\.4[0-9]-1\\.5[0-9] +slower$"
  --match "^7 pairs: 1 slower, 0 faster, 0 machine, 6 same" --match "^kladder: a regression"
  compare ${CMP}/base.json ${CMP}/slower.json)
# A 3% change measured over 7 runs a side: within a 10% threshold; at 5%
# its wider interval reaches the threshold (it may be that large): slower.
kl_cli_test(compare-within-threshold 0
  "^reduce +openmp-partials +openmp .* 1\\.03x .* same$" --not "slower$"
  compare --threshold 0.10 ${CMP}/base.json ${CMP}/within.json)
kl_cli_test(compare-may-reach-threshold 1
  "^reduce +openmp-partials +openmp .* 1\\.03x .* slower$"
  compare --threshold 0.05 ${CMP}/base.json ${CMP}/within.json)
kl_cli_test(compare-beyond-threshold 1 "^reduce +openmp-partials +openmp .* 1\\.03x .* slower$"
  compare --threshold 0.01 ${CMP}/base.json ${CMP}/within.json)
kl_cli_test(compare-faster 0 "^reduce +openmp-clause +openmp .* 0\\.50x +2\\.00x .* faster$"
  --match "1 faster, 0 machine, 6 same" compare ${CMP}/base.json ${CMP}/faster.json)
kl_cli_test(compare-swapped 1 "^reduce +openmp-clause +openmp .* 2\\.00x +0\\.50x .* slower$"
  compare ${CMP}/faster.json ${CMP}/base.json)
kl_cli_test(compare-unmatched 0 "^only in BASE: map openmp openmp f32 n=65536$"
  --match "^only in NEW: reduce openmp-newer openmp f64 sum n=65536 inputs=random$"
  --match "^6 pairs: .*. 1 only in BASE, 1 only in NEW$"
  compare ${CMP}/base.json ${CMP}/unmatched.json)
kl_cli_test(compare-new-failure 1 "^reduce +openmp-clause +openmp +5\\.00 us +- .* failed$"
  --match "^failed: reduce openmp-clause openmp f64 sum n=65536 inputs=random: BASE PASS, NEW"
  --match "BASE PASS, NEW FAIL \\(a new"
  compare ${CMP}/base.json ${CMP}/failure.json)
kl_cli_test(compare-old-failure 0 "^failed: reduce openmp-clause .*: BASE FAIL, NEW PASS$"
  --not "a new failure" compare ${CMP}/failure.json ${CMP}/base.json)
kl_cli_test(compare-aside 0 "^reduce +openmp-clause +openmp .* aside$"
  --match "BASE PASS, NEW ASIDE$" compare ${CMP}/base.json ${CMP}/aside.json)
kl_cli_test(compare-few-reps 1 "^reduce +openmp-partials +openmp .* 1\\.50x .* few reps +slower$"
  --match "^few reps: fewer than 3 timed runs on a side"
  compare ${CMP}/base.json ${CMP}/few-reps.json)
kl_cli_test(compare-two-devices 1 "^reduce +openmp-partials #2 +openmp:1 .* 1\\.50x .* slower$"
  --match "^reduce +openmp-partials +openmp .* 1\\.00x .* same$"
  --match "^note: reduce openmp-partials openmp f64 sum n=65536 inputs=random occurs 2 times in BASE and 2 in"
  compare ${CMP}/two-devices.json ${CMP}/two-devices-slower.json)
kl_cli_test(compare-format-2 0 "^7 pairs: 0 slower, 0 faster, 0 machine, 7 same" --not "warning"
  compare ${CMP}/base.json ${CMP}/format-2.json)
kl_cli_test(compare-ceilings-marked 0 "^ceilings, compared as the rungs are:$"
  --match "^stream +serial-copy +serial .* same$"
  compare ${CMP}/base.json ${CMP}/base.json)
kl_cli_test(compare-table-width 1 "slower$" --not "^.{101}"
  compare ${CMP}/two-devices.json ${CMP}/two-devices-slower.json)
kl_cli_test(compare-json-stdout 0 ""
  --json-stdout "d['format'] == 'kladder-compare-1' and d['summary']['same'] == 7 and all(p['test'] in ('exact', 'normal') for p in d['pairs']) and all(p['ratio_interval'][0] <= p['ratio_estimate'] <= p['ratio_interval'][1] for p in d['pairs'])"
  compare --json - --threshold 0.10 ${CMP}/base.json ${CMP}/within.json)
kl_cli_test(compare-help 0 "^usage: kladder compare \\[options\\] BASE\\.json NEW\\.json$"
  --match "^exit codes: 0 nothing slower \\(machine is not\\), 1 a pair slower" compare --help)
kl_cli_test(compare-listed 0 "^  compare BASE\\.json NEW\\.json$" --help)

# A machine that moved: the rung and the ceiling timed beside it both 8%
# slower (make.py's machine.json): machine, not slower, exit 0.
kl_cli_test(compare-machine 0 "^reduce +openmp-partials +openmp .* 1\\.08x .* machine$"
  --match "^7 pairs: 0 slower, 0 faster, 1 machine" compare ${CMP}/base.json ${CMP}/machine.json)

# Bad input and outputs: one line, exit 2, nothing written (compare.sh);
# the U test against a reference of its own (compare_stats.py); the
# verdicts' quality on simulated timers (compare_quality.sh).
add_test(NAME cli-compare-files COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/compare.sh
  ${KL} ${CMP})
add_test(NAME cli-compare-stats COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/need.sh python3 -- python3
  ${CMAKE_CURRENT_SOURCE_DIR}/compare_stats.py ${KL})
add_test(NAME cli-compare-quality COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/compare_quality.sh ${KL})
set_tests_properties(cli-compare-files cli-compare-stats PROPERTIES
  SKIP_RETURN_CODE 77)

# --field: one numeric field of the results, read through the library,
# each pair's BASE, NEW, their ratio and whether it moved beyond the
# threshold; exit 1 where one did.
kl_cli_test(compare-field-same 0 "^7 pairs: 0 higher, 0 lower, 7 same, 0 not measured \\(percent_ceiling"
  compare --field percent_ceiling ${CMP}/base.json ${CMP}/base.json)
kl_cli_test(compare-field-moved 1
  "^reduce +openmp-partials +openmp +[0-9.e-]+ +[0-9.e-]+ +1\\.500x +higher$"
  --match "^7 pairs: 1 higher, 0 lower, 6 same"
  compare --field median_s ${CMP}/base.json ${CMP}/slower.json)
kl_cli_test(compare-field-unknown 2 "--field 'nosuch': no such field"
  compare --field nosuch ${CMP}/base.json ${CMP}/base.json)
kl_cli_test(compare-field-text 2 "--field 'rung': not a number"
  compare --field rung ${CMP}/base.json ${CMP}/base.json)
kl_cli_test(compare-field-alone 2 "--field shows its table alone"
  compare --field median_s --json - ${CMP}/base.json ${CMP}/base.json)
