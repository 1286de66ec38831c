# cmake -DKVSIZE_BUILD_DIR=<build dir> -DKVSIZE_PREFIX=<dir> -P kvsize-stage-install.cmake
# Installs the build into a fresh <dir> (emptied first, so no file from an earlier install lingers):
# the setup step of the find_package and pkg-config package tests.
foreach(var IN ITEMS KVSIZE_BUILD_DIR KVSIZE_PREFIX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "kvsize-stage-install: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${KVSIZE_PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${KVSIZE_BUILD_DIR}" --prefix "${KVSIZE_PREFIX}"
  COMMAND_ERROR_IS_FATAL ANY)
