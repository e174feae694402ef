# cmake -DSOURCE_DIR=<dir> -DGIT_EXECUTABLE=<git> -DIN=<template> -DOUT=<header>
#       -P kladder-build.cmake
# Writes OUT from IN (configured by CMakeLists.txt with everything but the
# commit) with KL_BUILD_COMMIT set to `git describe --always --dirty
# --abbrev=12` of SOURCE_DIR, or "" when SOURCE_DIR is not the top of a git
# checkout or git is absent. Run on every build (the kladder-build-info
# target); configure_file leaves OUT untouched when its text is the same,
# so nothing recompiles unless the commit changed.
# KLADDER_BUILD_COMMIT in the build's environment names the commit where
# the tree's own .git would not tell it (a copy that carries a stale one).
set(KL_BUILD_COMMIT "")
if(DEFINED ENV{KLADDER_BUILD_COMMIT})
  set(KL_BUILD_COMMIT "$ENV{KLADDER_BUILD_COMMIT}")
  string(REPLACE "\\" "\\\\" KL_BUILD_COMMIT "${KL_BUILD_COMMIT}")
  string(REPLACE "\"" "\\\"" KL_BUILD_COMMIT "${KL_BUILD_COMMIT}")
elseif(GIT_EXECUTABLE AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_QUIET
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    # A C string literal: a tag could hold a backslash or a quote.
    string(REPLACE "\\" "\\\\" out "${out}")
    string(REPLACE "\"" "\\\"" out "${out}")
    set(KL_BUILD_COMMIT "${out}")
  endif()
endif()
configure_file("${IN}" "${OUT}" @ONLY)
