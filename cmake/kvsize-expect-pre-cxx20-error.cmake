# cmake -DKVSIZE_CXX=<compiler> [-DKVSIZE_CXX_FLAGS=<flags>] -DKVSIZE_SOURCE_DIR=<kvsize source dir>
#       -DKVSIZE_WORK_DIR=<dir> -P kvsize-expect-pre-cxx20-error.cmake -- include/kvsize/<header>...
# For each public header given: a file holding only `#include <kvsize/<header>>`, compiled with
# -std=c++17 (a GCC-style compiler), must fail with exactly two diagnostics, both from
# <kvsize/detail/require_cxx20.hpp>: its #error naming the C++20 requirement, and the missing header
# that ends the compile. Any other error or warning means code ran before the check. The twin: the
# same command line with -std=c++20 compiles <kvsize/kvsize.hpp>, so the failures come from the
# language mode alone.
foreach(var IN ITEMS KVSIZE_CXX KVSIZE_SOURCE_DIR KVSIZE_WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "kvsize-expect-pre-cxx20-error: -D${var}=... is required")
  endif()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/kvsize-script-arguments.cmake")
kvsize_script_arguments(headers)

separate_arguments(cxx_flags UNIX_COMMAND "${KVSIZE_CXX_FLAGS}")
set(compile "${KVSIZE_CXX}" ${cxx_flags} -fsyntax-only "-I${KVSIZE_SOURCE_DIR}/include")
file(MAKE_DIRECTORY "${KVSIZE_WORK_DIR}")

# compile(<header> <-std=...> <out: exit status> <out: diagnostics>)
function(compile header standard result_var output_var)
  string(MAKE_C_IDENTIFIER "${header}" stem)
  string(MAKE_C_IDENTIFIER "${standard}" mode)
  set(source "${KVSIZE_WORK_DIR}/${stem}${mode}.cpp")
  file(WRITE "${source}" "#include <${header}>\n")
  execute_process(COMMAND ${compile} "${standard}" "${source}"
    OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE result)
  set(${result_var} "${result}" PARENT_SCOPE)
  set(${output_var} "${output}" PARENT_SCOPE)
endfunction()

compile(kvsize/kvsize.hpp -std=c++20 result output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "The twin does not compile: <kvsize/kvsize.hpp> with -std=c++20:\n${output}")
endif()

set(expected_error "kvsize needs C\\+\\+20 \\(__cplusplus >= 202002L\\): compile with -std=c\\+\\+20")
set(expected_stop "C\\+\\+20 or later is required: see the #error above")
set(failures "")
foreach(header IN LISTS headers)
  string(REGEX REPLACE "^include/" "" header "${header}")
  compile("${header}" -std=c++17 result output)
  # The diagnostic lines, e.g. `.../require_cxx20.hpp:11:2: error: #error "kvsize needs ..."`.
  string(REGEX MATCHALL "[^\n]*: (fatal error|error|warning): [^\n]*" diagnostics "${output}")
  list(LENGTH diagnostics count)
  set(ok FALSE)
  if(NOT result EQUAL 0 AND count EQUAL 2)
    list(GET diagnostics 0 first)
    list(GET diagnostics 1 second)
    if(first MATCHES "require_cxx20\\.hpp:[0-9]+:[0-9]+: error: .*${expected_error}"
       AND second MATCHES "require_cxx20\\.hpp:[0-9]+:[0-9]+: fatal error: .*${expected_stop}")
      set(ok TRUE)
    endif()
  endif()
  if(ok)
    message(STATUS "<${header}> with -std=c++17: stops at the #error")
  else()
    string(APPEND failures "\n<${header}> with -std=c++17 (exit ${result}), ${count} diagnostics:\n${output}")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "Expected exactly the #error of <kvsize/detail/require_cxx20.hpp> and the stop after it:"
    "${failures}")
endif()
