# cmake -DKVSIZE_PACKAGE_PREFIX=<staged install> -DPKG_CONFIG_EXECUTABLE=<pkg-config> -DKVSIZE_CXX=<compiler>
#       [-DKVSIZE_CXX_FLAGS=<flags>] [-DKVSIZE_LINKER_FLAGS=<flags>] -DKVSIZE_WORK_DIR=<dir>
#       -DKVSIZE_CONFIG=<Qwen__Qwen2.5-7B.config.json> -P plain-compiler.cmake
# Consumer (d, plain): what a Makefile user does. Each consumer is compiled and linked by one compiler
# command with nothing but `pkg-config --cflags --libs <module>` from the staged install (no -std of its
# own: the .pc files must bring C++20, the include paths and the libraries), then run:
#   kvsize      ../consumer.cpp    the core
#   kvsize-hf   hf_consumer.cpp    reads a config.json (needs nlohmann_json.pc)
#   kvsize-fmt  fmt_consumer.cpp   prints with fmt (needs fmt.pc and its library)
foreach(var IN ITEMS KVSIZE_PACKAGE_PREFIX PKG_CONFIG_EXECUTABLE KVSIZE_CXX KVSIZE_WORK_DIR KVSIZE_CONFIG)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "plain-compiler: -D${var}=... is required")
  endif()
endforeach()

set(ENV{PKG_CONFIG_PATH} "${KVSIZE_PACKAGE_PREFIX}/share/pkgconfig")
file(MAKE_DIRECTORY "${KVSIZE_WORK_DIR}")
separate_arguments(cxx_flags UNIX_COMMAND "${KVSIZE_CXX_FLAGS}")
separate_arguments(linker_flags UNIX_COMMAND "${KVSIZE_LINKER_FLAGS}")

# consume(<module> <source> <regex for its output> [<argument for the program>])
function(consume module source expected)
  execute_process(COMMAND "${PKG_CONFIG_EXECUTABLE}" --cflags --libs "${module}"
    OUTPUT_VARIABLE flags ERROR_VARIABLE errors RESULT_VARIABLE result OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs ${module} failed:\n${errors}")
  endif()
  if(module STREQUAL "kvsize" AND NOT flags MATCHES "(^| )-std=c\\+\\+20( |$)")
    message(FATAL_ERROR "kvsize.pc does not carry -std=c++20: `${flags}`")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(program "${KVSIZE_WORK_DIR}/${module}-consumer")
  set(compile "${KVSIZE_CXX}" ${cxx_flags} "${CMAKE_CURRENT_LIST_DIR}/${source}" -o "${program}" ${flags}
    ${linker_flags})
  list(JOIN compile " " shown)
  message(STATUS "${module}: ${shown}")
  execute_process(COMMAND ${compile} OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${module}: the consumer does not build with pkg-config's flags alone:\n${output}")
  endif()
  execute_process(COMMAND "${program}" ${ARGN} OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
  if(NOT result EQUAL 0 OR NOT output MATCHES "${expected}")
    message(FATAL_ERROR "${module}: ${program} exited with ${result}, printing `${output}` (expected `${expected}`)"
      "\n${errors}")
  endif()
  message(STATUS "${module}: ${output}")
endfunction()

consume(kvsize ../consumer.cpp "^[0-9]+\\.[0-9]+\\.[0-9]+\n$")
consume(kvsize-hf hf_consumer.cpp "^qwen2: 57344 B of KV per token\n$" "${KVSIZE_CONFIG}")  # 2 x 28 x 4 x 128 x 2 B
consume(kvsize-fmt fmt_consumer.cpp "^kvsize [0-9.]+: 28672 B = 28 KiB of KV per token\n$")  # 2 x 28 x 2 x 128 x 2 B
