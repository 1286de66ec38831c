# cmake -DKVSIZE_EXE=<program> -DKVSIZE_EXPECTED=<file> -DKVSIZE_ACTUAL=<file> -P kvsize-compare-output.cmake
# Runs <program> (in the current directory), saves its stdout to <actual>, and passes if it exited with
# 0 and <actual> equals <expected>, line endings aside.
foreach(var IN ITEMS KVSIZE_EXE KVSIZE_EXPECTED KVSIZE_ACTUAL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "kvsize-compare-output: -D${var}=... is required")
  endif()
endforeach()

execute_process(COMMAND "${KVSIZE_EXE}"
  OUTPUT_FILE "${KVSIZE_ACTUAL}" ERROR_VARIABLE errors RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${KVSIZE_EXE} exited with ${result}; stderr:\n${errors}")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files --ignore-eol "${KVSIZE_EXPECTED}" "${KVSIZE_ACTUAL}"
  RESULT_VARIABLE different)
if(different)
  find_program(KVSIZE_DIFF diff)
  if(KVSIZE_DIFF)
    execute_process(COMMAND "${KVSIZE_DIFF}" -u "${KVSIZE_EXPECTED}" "${KVSIZE_ACTUAL}")  # to the test's output
  endif()
  message(FATAL_ERROR "The output of ${KVSIZE_EXE} differs from ${KVSIZE_EXPECTED} (see the diff above; "
    "the actual output is in ${KVSIZE_ACTUAL}: if the change is intended, copy it over the expected file).")
endif()
