# kvsize_read_fail_message(<X.fail.cpp> <out-var>)
# Sets <out-var> to the regex on the file's first line, `// MESSAGE[<regex>]` (the regex runs to the
# last `]` of the line), or stops with an error. Used at configure time (kvsize-testing.cmake) and at
# test time (kvsize-expect-compile-fail.cmake).
function(kvsize_read_fail_message source out_var)
  file(READ "${source}" head LIMIT 4096)
  string(FIND "${head}" "\n" end)
  string(SUBSTRING "${head}" 0 ${end} first_line)  # end == -1: the whole (one-line) text
  if(NOT first_line MATCHES "^// MESSAGE\\[(.+)\\][ \t\r]*$")
    message(FATAL_ERROR "${source}: the first line must be `// MESSAGE[<regex>]`, a regex (CMake syntax) "
      "for the expected compiler message; it is: `${first_line}`")
  endif()
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
