# cmake -DKVSIZE_EXIT_CODE=<n> [-DKVSIZE_STDOUT_REGEX=<regex>] [-DKVSIZE_STDERR_REGEX=<regex>]
#       [-DKVSIZE_STDERR_LINES=<lines>] [-DKVSIZE_ABSENT=<path>] -P kvsize-check-run.cmake -- <program> [<arg>...]
# Runs <program> and passes when all of these hold:
#   it exits with exactly <n>;
#   stdout matches KVSIZE_STDOUT_REGEX (CMake syntax), or is empty if none is given;
#   stderr is <lines> whole lines (default 1: one clear message) matching KVSIZE_STDERR_REGEX, or is
#   empty if none is given;
#   KVSIZE_ABSENT, if given, does not exist afterwards (a failed run must not leave a file behind).
# The command comes after `--`, so that its arguments may hold anything but a newline.
if(NOT DEFINED KVSIZE_EXIT_CODE)
  message(FATAL_ERROR "kvsize-check-run: -DKVSIZE_EXIT_CODE=... is required")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/kvsize-script-arguments.cmake")
kvsize_script_arguments(command)

if(DEFINED KVSIZE_ABSENT)
  file(REMOVE "${KVSIZE_ABSENT}")
endif()
execute_process(COMMAND ${command} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE result)

set(problems "")
if(NOT result STREQUAL "${KVSIZE_EXIT_CODE}")
  string(APPEND problems "\n  exit status ${result}, expected ${KVSIZE_EXIT_CODE}")
endif()
if(DEFINED KVSIZE_STDOUT_REGEX)
  if(NOT out MATCHES "${KVSIZE_STDOUT_REGEX}")
    string(APPEND problems "\n  stdout does not match the regex `${KVSIZE_STDOUT_REGEX}`")
  endif()
elseif(NOT out STREQUAL "")
  string(APPEND problems "\n  stdout is not empty")
endif()
if(DEFINED KVSIZE_STDERR_REGEX)
  if(NOT DEFINED KVSIZE_STDERR_LINES)
    set(KVSIZE_STDERR_LINES 1)
  endif()
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT err MATCHES "\n$" OR NOT lines EQUAL KVSIZE_STDERR_LINES)
    string(APPEND problems "\n  stderr is not ${KVSIZE_STDERR_LINES} whole line(s)")
  endif()
  if(NOT err MATCHES "${KVSIZE_STDERR_REGEX}")
    string(APPEND problems "\n  stderr does not match the regex `${KVSIZE_STDERR_REGEX}`")
  endif()
elseif(NOT err STREQUAL "")
  string(APPEND problems "\n  stderr is not empty")
endif()
if(DEFINED KVSIZE_ABSENT AND EXISTS "${KVSIZE_ABSENT}")
  string(APPEND problems "\n  ${KVSIZE_ABSENT} exists afterwards")
endif()
list(JOIN command " " shown)
if(problems)
  message(FATAL_ERROR "${shown}:${problems}\nstdout was:\n${out}\nstderr was:\n${err}")
endif()
message(STATUS "${shown}: exit ${result} as expected")
