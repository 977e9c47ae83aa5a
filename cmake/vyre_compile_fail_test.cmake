# vyre_compile_fail_test(NAME): test/compile_fail/NAME.cpp must NOT compile (DSL misuse caught by a
# static_assert). The file names the message it expects on a line `// expected-error: REGEX`; the
# CTest test "compile_fail/NAME" passes only when compiling fails AND the compiler output matches
# REGEX, so a file that fails for another reason (a typo, a missing header) fails the test.
# The file is compiled as an excluded OBJECT library with exactly the flags of a vyre program.
#
# This file is also the test-time script (cmake -P): it builds the target and judges the outcome.
if(CMAKE_SCRIPT_MODE_FILE)
  file(STRINGS "${SOURCE}" expect REGEX "^// expected-error: " LIMIT_COUNT 1)
  string(REGEX REPLACE "^// expected-error: *" "" expect "${expect}")
  if(expect STREQUAL "")
    message(FATAL_ERROR "${SOURCE}: no `// expected-error: REGEX` line naming the message it must produce")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}" --config "${CONFIG}"
    OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE} compiled, but it must not (expected an error matching \"${expect}\")")
  elseif(NOT out MATCHES "${expect}")
    message(FATAL_ERROR "${SOURCE} failed to compile, but not with an error matching \"${expect}\":\n${out}")
  endif()
  message(STATUS "${SOURCE} is rejected as expected: \"${CMAKE_MATCH_0}\"")
  return()
endif()

set(_vyre_compile_fail_script "${CMAKE_CURRENT_LIST_FILE}")

function(vyre_compile_fail_test name)
  set(source "${CMAKE_CURRENT_SOURCE_DIR}/compile_fail/${name}.cpp")
  set(target "compile_fail_${name}")
  add_library(${target} OBJECT EXCLUDE_FROM_ALL "${source}")
  set_target_properties(${target} PROPERTIES EXCLUDE_FROM_DEFAULT_BUILD TRUE)
  target_link_libraries(${target} PRIVATE vyre::vyre vyre_warnings)
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  add_test(NAME "compile_fail/${name}"
    COMMAND "${CMAKE_COMMAND}" -DSOURCE=${source} -DTARGET=${target} -DBUILD_DIR=${CMAKE_BINARY_DIR}
            -DCONFIG=$<CONFIG> -P "${_vyre_compile_fail_script}")
  # Two builds at once in one build tree can corrupt the build tool's logs: one at a time.
  set_tests_properties("compile_fail/${name}" PROPERTIES RESOURCE_LOCK vyre_build_tree LABELS compile_fail)
endfunction()
