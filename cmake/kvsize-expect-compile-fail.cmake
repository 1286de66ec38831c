# cmake -DKVSIZE_BUILD_DIR=<dir> -DKVSIZE_TARGET=<target> -DKVSIZE_SOURCE=<X.fail.cpp> [-DKVSIZE_CONFIG=<cfg>]
#       -P kvsize-expect-compile-fail.cmake
# Passes when building <target> FAILS and the output matches the regex on the source's first line,
# `// MESSAGE[<regex>]`. See kvsize_add_compile_fail() in kvsize-testing.cmake.
foreach(var IN ITEMS KVSIZE_BUILD_DIR KVSIZE_TARGET KVSIZE_SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "kvsize-expect-compile-fail: -D${var}=... is required")
  endif()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/kvsize-fail-message.cmake")
kvsize_read_fail_message("${KVSIZE_SOURCE}" expected)

set(config_args "")
if(KVSIZE_CONFIG)
  set(config_args --config "${KVSIZE_CONFIG}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --build "${KVSIZE_BUILD_DIR}" --target "${KVSIZE_TARGET}" ${config_args}
  OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE result)

if(result EQUAL 0)
  message(FATAL_ERROR "${KVSIZE_SOURCE} compiled, but it must not.\n${output}")
endif()
if(NOT output MATCHES "${expected}")
  message(FATAL_ERROR "${KVSIZE_SOURCE} failed to compile as it should, but not with the expected "
    "message: no match for the regex `${expected}` in:\n${output}")
endif()
message(STATUS "${KVSIZE_SOURCE}: does not compile, with a message matching `${expected}`")
