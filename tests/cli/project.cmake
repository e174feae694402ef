# ---- make's set-up
# scripts/deps.sh, which `make` runs before it configures, on a PATH of
# stub commands (deps.sh: nothing is installed): all that is
# required here, nothing run; cmake missing without root or sudo, exit 2
# and one line naming `apt-get install -y cmake`; as root, apt-get update
# then the install of cmake alone. Under a second.
add_test(NAME deps COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/deps.sh
  ${PROJECT_SOURCE_DIR}/scripts/deps.sh)

# ---- packaging
# Install into a temporary prefix and build a program against it through
# pkg-config (shared and static) and find_package(kladder); see
# tests/install/check.sh. Host backends only. In a KL_SANITIZE build the installed
# libraries tell their users to link the sanitizers' runtimes (kladder.pc's
# Libs, the targets' link options), so the same check holds there. A few
# seconds.
add_test(NAME install COMMAND sh ${PROJECT_SOURCE_DIR}/tests/install/check.sh
  ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION}
  ${CMAKE_COMMAND} ${CMAKE_C_COMPILER} "${KL_GPU_MODULE_FILE}")
set_tests_properties(install PROPERTIES TIMEOUT 300)

# The Python package (tests/cli/python_package.sh): its wheel built from
# this source tree by scikit-build-core (pyproject.toml), installed into a
# fresh virtual environment in a temporary folder, and python/tests run
# there by pytest. Skips without python3, its venv, pip, or the packages
# it installs into the venv (numpy, scipy, pytest, scikit-build-core).
# A few minutes: it builds the library and the command again.
add_test(NAME python-package COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/python_package.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(python-package PROPERTIES SKIP_RETURN_CODE 77
  TIMEOUT 1500 COST 100)

# The Debian packages (tests/install/deb.sh): cpack -G DEB into a
# temporary folder, their files and control fields read with dpkg-deb;
# the GPU module in a package of its own. Skipped without dpkg-deb. About
# ten seconds (cpack builds the preinstall target first: nothing, after a
# build).
add_test(NAME deb-package COMMAND sh ${PROJECT_SOURCE_DIR}/tests/install/deb.sh
  ${PROJECT_BINARY_DIR} ${PROJECT_VERSION} ${CMAKE_CPACK_COMMAND}
  "${KL_MAN_PAGE}" "${KL_GPU_MODULE_FILE}")
set_tests_properties(deb-package PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# The ABI (tests/install/abi.sh): libkladder.so's exports against
# src/kladder.map, its public node against the installed headers' functions
# (each with a doc comment), the tree's own users' needs exported,
# kladder.h's length, and the entry-point example built and run.
# A sanitizer build's library needs its users linked with the sanitizers.
set(KL_ABI_LINK "")
if(KL_SANITIZE)
  set(KL_ABI_LINK "-fsanitize=address -fsanitize=undefined")
endif()
add_test(NAME abi COMMAND sh ${PROJECT_SOURCE_DIR}/tests/install/abi.sh
  ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_C_COMPILER}
  "${KL_ABI_LINK}")
set_tests_properties(abi PROPERTIES SKIP_RETURN_CODE 77)

# scripts/gpu-sanitize.sh without a GPU (sanitize_gate.sh): --plan over
# this build's case lists and the times table, --analyze (the summary and
# the kernel coverage check) over made-up logs.
add_test(NAME sanitize-gate COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/sanitize_gate.sh
  ${PROJECT_SOURCE_DIR}/scripts/gpu-sanitize.sh ${CMAKE_BINARY_DIR})

# scripts/gpu-bytes.sh without a GPU (bytes_gate.sh): --plan's rungs found
# in this build's `kladder list --json` (and a table of names that are not
# there refused), exit 2 and one line without ncu or a GPU, a whole run
# on stand-ins of nvidia-smi, ncu and kladder (and one whose ncu cannot
# load), and --analyze (the table, ncu's CSV read, the verdicts) over
# made-up runs. A few seconds; skipped without python3.
add_test(NAME bytes-gate COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/bytes_gate.sh
  ${PROJECT_SOURCE_DIR}/scripts/gpu-bytes.sh ${CMAKE_BINARY_DIR})
set_tests_properties(bytes-gate PROPERTIES SKIP_RETURN_CODE 77)

# The skips' allow-list (tests/skips.allow), which CI's fresh root checks
# every skip of `make test` against, and its checker.
add_test(NAME skips-allow-list COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/skips-allow.sh
  ${PROJECT_SOURCE_DIR}/scripts/check-skips.sh ${PROJECT_SOURCE_DIR}/tests/skips.allow)

# The performance page: docs/performance.md and README's summary are what
# `kladder report --markdown` makes of results/, which keeps its rules
# (MACHINE/WORKLOAD.json, 3 MB at most).
add_test(NAME performance-page COMMAND bash
  ${PROJECT_SOURCE_DIR}/scripts/performance.sh $<TARGET_FILE:kladder-cli> --check)

# No development residue in product text: no commit hash, date or issue
# number in src/, README.md, CHANGELOG.md or docs/ (residue.sh says
# its rules).
add_test(NAME residue COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/residue.sh
  ${PROJECT_SOURCE_DIR})
# A workload reads how its rungs run from its parameters (tunings), never
# from the environment.
add_test(NAME workloads-read-no-environment COMMAND sh -c
  "! grep -rn 'getenv(\"KLADDER_' '${PROJECT_SOURCE_DIR}/src/workloads'")
# The core includes nothing of the layers above it (backends, workloads,
# the command): they find each other through src/registry.h and .c.
add_test(NAME core-includes-no-layer-above COMMAND sh -c
  "! grep -rn '#include \"\\.\\./' '${PROJECT_SOURCE_DIR}/src/core'")
# The command names no field of a result outside the library's field
# table (src/core/fields.def): it reads and writes results through it.
add_test(NAME cli-names-no-field COMMAND sh
  ${CMAKE_CURRENT_SOURCE_DIR}/field_names.sh ${PROJECT_SOURCE_DIR})
# No measured figure in README.md or docs/ but in docs/performance.md (and
# README's summary quoted from it) and the workloads' LESSONS.md.
add_test(NAME figures COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/figures.sh
  ${PROJECT_SOURCE_DIR})
