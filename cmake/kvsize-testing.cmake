# Test helpers for kvsize's own tests and examples (not installed). Included by the top-level
# CMakeLists.txt, so KVSIZE_CMAKE_DIR reaches the subdirectories that call these functions.
include_guard(GLOBAL)

set(KVSIZE_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
include("${KVSIZE_CMAKE_DIR}/kvsize-fail-message.cmake")

# kvsize_add_compile_fail(<dir/X.fail.cpp> [LINK <target>...])
#
# "This must NOT compile, and for this reason." The file's FIRST line is `// MESSAGE[<regex>]`; the
# test passes only if building the file fails AND the compiler's output matches <regex> (CMake regex
# syntax, as PASS_REGULAR_EXPRESSION). A file that compiles fails the test. The regex is read when the
# test runs, so editing it needs no reconfigure.
#
# Every X.fail.cpp must have a twin X.pass.cpp beside it (configuring stops if it is missing), which
# the caller compiles in the normal build: it shows the failure comes from the one defect, not from a
# broken include or a typo.
#
# Each X.fail.cpp is an EXCLUDE_FROM_ALL object target kvsize_compile_fail_X, and the CTest test
# compile_fail.X runs `cmake --build <build dir> --target kvsize_compile_fail_X`. These tests hold
# the RESOURCE_LOCK kvsize_build_tree, so that `ctest -j` never runs two builds in one tree at once.
function(kvsize_add_compile_fail source)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LINK")
  get_filename_component(source "${source}" ABSOLUTE)
  get_filename_component(dir "${source}" DIRECTORY)
  get_filename_component(file "${source}" NAME)
  if(NOT file MATCHES "^(.+)\\.fail\\.cpp$")
    message(FATAL_ERROR "kvsize_add_compile_fail: ${source}: the name must end in .fail.cpp")
  endif()
  set(stem "${CMAKE_MATCH_1}")

  kvsize_read_fail_message("${source}" message)  # fails early on a missing MESSAGE line
  set(twin "${dir}/${stem}.pass.cpp")
  if(NOT EXISTS "${twin}")
    message(FATAL_ERROR "kvsize_add_compile_fail: ${source} has no compiling twin ${twin}. "
      "Write one that differs only in the defect, so the failure is known to come from it.")
  endif()

  set(target "kvsize_compile_fail_${stem}")
  add_library(${target} OBJECT EXCLUDE_FROM_ALL "${source}")
  target_link_libraries(${target} PRIVATE ${arg_LINK})

  add_test(NAME "compile_fail.${stem}"
    COMMAND "${CMAKE_COMMAND}"
      "-DKVSIZE_BUILD_DIR=${CMAKE_BINARY_DIR}" "-DKVSIZE_TARGET=${target}"
      "-DKVSIZE_CONFIG=$<CONFIG>" "-DKVSIZE_SOURCE=${source}"
      -P "${KVSIZE_CMAKE_DIR}/kvsize-expect-compile-fail.cmake")
  set_tests_properties("compile_fail.${stem}" PROPERTIES
    LABELS compile_fail RESOURCE_LOCK kvsize_build_tree)
endfunction()

# kvsize_add_output_test(<name> <target> <expected-file> [WORKING_DIRECTORY <dir>])
# A CTest test that runs <target> and passes if it exits with 0 and its stdout equals <expected-file>
# (line endings aside).
function(kvsize_add_output_test name target expected)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "WORKING_DIRECTORY" "")
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  endif()
  add_test(NAME "${name}"
    COMMAND "${CMAKE_COMMAND}"
      "-DKVSIZE_EXE=$<TARGET_FILE:${target}>" "-DKVSIZE_EXPECTED=${expected}"
      "-DKVSIZE_ACTUAL=${CMAKE_CURRENT_BINARY_DIR}/${name}.actual"
      -P "${KVSIZE_CMAKE_DIR}/kvsize-compare-output.cmake"
    WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}")
endfunction()
