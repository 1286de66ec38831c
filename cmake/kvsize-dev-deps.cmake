# Dependencies of kvsize's own tests and examples: never of the library targets.
#
# By default they come from find_package (Debian 12: `bash .ci/install-deps`). With -DKVSIZE_FETCH_DEPS=ON,
# an online machine with only a compiler downloads whatever find_package does not find: each declaration
# below carries FIND_PACKAGE_ARGS, so an installed package still wins. The pinned tags are the versions
# the project is tested with (Debian 12 + bookworm-backports).
include_guard(GLOBAL)

if(KVSIZE_FETCH_DEPS)
  include(FetchContent)
  set(_kvsize_fetch_system "")
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.25)
    set(_kvsize_fetch_system SYSTEM)  # their headers must not trip our -Werror
  endif()
  # Fetched dependencies install alongside kvsize, so that kvsize's export sets can refer to them.
  set(CMAKE_POLICY_DEFAULT_CMP0077 NEW)
  set(JSON_Install ON)
  set(FMT_INSTALL ON)
  FetchContent_Declare(nlohmann_json ${_kvsize_fetch_system}
    GIT_REPOSITORY https://github.com/nlohmann/json.git GIT_TAG v3.11.2 GIT_SHALLOW TRUE
    FIND_PACKAGE_ARGS 3.11 CONFIG)
  FetchContent_Declare(fmt ${_kvsize_fetch_system}
    GIT_REPOSITORY https://github.com/fmtlib/fmt.git GIT_TAG 9.1.0 GIT_SHALLOW TRUE
    FIND_PACKAGE_ARGS 9 CONFIG)
  FetchContent_Declare(Catch2 ${_kvsize_fetch_system}
    GIT_REPOSITORY https://github.com/catchorg/Catch2.git GIT_TAG v3.7.1 GIT_SHALLOW TRUE
    FIND_PACKAGE_ARGS 3 CONFIG)
  FetchContent_Declare(CLI11 ${_kvsize_fetch_system}
    GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git GIT_TAG v2.1.2 GIT_SHALLOW TRUE
    FIND_PACKAGE_ARGS 2 CONFIG)
endif()

# kvsize_dev_dependency(<package> <min-version> <target>)
# Makes <target> available for a test or example, or stops with a message saying what to install.
# A macro, not a function: find_package's variables (Catch2 extends CMAKE_MODULE_PATH) must reach
# the caller.
macro(kvsize_dev_dependency _kvsize_pkg _kvsize_version _kvsize_target)
  if(NOT TARGET ${_kvsize_target})
    if(KVSIZE_FETCH_DEPS)
      FetchContent_MakeAvailable(${_kvsize_pkg})
      string(TOLOWER "${_kvsize_pkg}" _kvsize_lower)
      if(_kvsize_pkg STREQUAL "Catch2" AND ${_kvsize_lower}_SOURCE_DIR)
        list(APPEND CMAKE_MODULE_PATH "${${_kvsize_lower}_SOURCE_DIR}/extras")  # Catch.cmake
      endif()
    else()
      find_package(${_kvsize_pkg} ${_kvsize_version} CONFIG QUIET)
    endif()
  endif()
  if(NOT TARGET ${_kvsize_target})
    message(FATAL_ERROR
      "kvsize: ${_kvsize_pkg} >= ${_kvsize_version} (target ${_kvsize_target}) is needed by the tests or examples "
      "but was not found. Install it (Debian 12: `bash .ci/install-deps`), point CMAKE_PREFIX_PATH at it, "
      "configure with -DKVSIZE_FETCH_DEPS=ON to download it, or turn the tests and examples off with "
      "-DKVSIZE_BUILD_TESTS=OFF -DKVSIZE_BUILD_EXAMPLES=OFF.")
  endif()
endmacro()
