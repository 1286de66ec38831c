# kvsize_add_model(<target> NAME <identifier> CONFIG <config.json> [NAMESPACE <ns>] [DISPLAY_NAME <text>])
#
# At build time, turns a Hugging Face config.json into the header `kvsize_models/<identifier>.hpp`
# for <target>:
#   inline constexpr kvsize::model_spec <identifier>{...};     the model, constexpr
#   inline constexpr std::string_view <identifier>_name;       DISPLAY_NAME, or the file name with
#                                                              "__" read as "/" (Qwen/Qwen2.5-7B)
#   inline constexpr std::uint64_t <identifier>_parameters;    dense Llama/Qwen2/Mistral models only
# in namespace <ns> if given. The header is written by kvsize::codegen (tools/kvsize-codegen) into
# <current binary dir>/kvsize_models/<target>/, which is added to <target>'s include path, and is
# written again whenever the config file or kvsize::codegen changes. <target> also gets
# kvsize::kvsize. CONFIG is relative to the current source directory.
#
# Available after find_package(kvsize CONFIG) (installed with the package) and after
# add_subdirectory / FetchContent of kvsize's source tree, wherever kvsize::codegen exists (it
# needs nlohmann_json when kvsize is built).
include_guard(GLOBAL)

function(kvsize_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME;CONFIG;NAMESPACE;DISPLAY_NAME" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kvsize_add_model: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kvsize_add_model: ${target} is not a target")
  endif()
  if(NOT arg_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "kvsize_add_model: NAME must be a C++ identifier, got `${arg_NAME}`")
  endif()
  if(arg_NAMESPACE AND NOT arg_NAMESPACE MATCHES "^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$")
    message(FATAL_ERROR "kvsize_add_model: NAMESPACE must be identifiers joined by ::, got `${arg_NAMESPACE}`")
  endif()
  if(NOT arg_CONFIG)
    message(FATAL_ERROR "kvsize_add_model: CONFIG <config.json> is required")
  endif()
  if(NOT TARGET kvsize::codegen)
    message(FATAL_ERROR "kvsize_add_model: kvsize::codegen does not exist: kvsize was built without "
      "nlohmann_json >= 3.11 (or with -DKVSIZE_BUILD_CODEGEN=OFF), and the generator needs it")
  endif()
  cmake_path(ABSOLUTE_PATH arg_CONFIG BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE config)
  if(NOT EXISTS "${config}")
    message(FATAL_ERROR "kvsize_add_model: ${config} does not exist")
  endif()

  set(include_dir "${CMAKE_CURRENT_BINARY_DIR}/kvsize_models/${target}")
  set(header "${include_dir}/kvsize_models/${arg_NAME}.hpp")
  set(options --name "${arg_NAME}")
  if(arg_NAMESPACE)
    list(APPEND options --namespace "${arg_NAMESPACE}")
  endif()
  if(arg_DISPLAY_NAME)
    list(APPEND options --display-name "${arg_DISPLAY_NAME}")
  endif()
  # The header's directory is made by the command itself, every time it runs: Ninja creates an
  # output's directory, but the Makefile generators (CMake's default on Unix) and others do not, and
  # a directory made once at configure time is gone after a `rm -r` of part of the build tree.
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${include_dir}/kvsize_models"
    COMMAND kvsize::codegen ${options} --output "${header}" "${config}"
    DEPENDS "${config}" kvsize::codegen
    COMMENT "kvsize: generating kvsize_models/${arg_NAME}.hpp from ${arg_CONFIG}"
    VERBATIM)

  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  else()
    set(scope PRIVATE)
  endif()
  # A source of the target, so that building the target first (re)generates the header.
  target_sources(${target} ${scope} "${header}")
  target_include_directories(${target} ${scope} "${include_dir}")
  target_link_libraries(${target} ${scope} kvsize::kvsize)
endfunction()
