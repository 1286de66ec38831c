# What an embedding project (add_subdirectory, FetchContent) may rely on; included by those consumers.
if(NOT TARGET kvsize)
  message(FATAL_ERROR "kvsize was not added from its source tree (no target `kvsize`)")
endif()
foreach(target IN ITEMS kvsize_tests kvsize_cli kvsize_warnings)
  if(TARGET ${target})
    message(FATAL_ERROR "kvsize, embedded, created its developer target ${target}")
  endif()
endforeach()
# Warning guard: the embedding project sees kvsize's headers as system headers.
get_target_property(system_dirs kvsize::kvsize INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
if(NOT system_dirs)
  message(FATAL_ERROR "kvsize, embedded, does not mark its include directory SYSTEM")
endif()
