# The `ripplekv` command-line program.
find_package(Boost 1.71 REQUIRED COMPONENTS program_options)
add_executable(ripplekv
  ${CMAKE_CURRENT_LIST_DIR}/main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands.cpp
  ${CMAKE_CURRENT_LIST_DIR}/malloc_policy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generate_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/allocate_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fidelity_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenize_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/methods_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/method_grid.cpp
)
if(RIPPLEKV_WITH_EVAL)  # the LongBench commands need eval/
  target_sources(ripplekv PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/longbench_command.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ruler_command.cpp
    ${CMAKE_CURRENT_LIST_DIR}/needle_command.cpp
    ${CMAKE_CURRENT_LIST_DIR}/longbench_score_command.cpp
    ${CMAKE_CURRENT_LIST_DIR}/longbench_merge_command.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sweep_command.cpp
    ${CMAKE_CURRENT_LIST_DIR}/table_command.cpp
  )
  target_compile_definitions(ripplekv PRIVATE RIPPLEKV_WITH_EVAL=1)
endif()
target_link_libraries(ripplekv PRIVATE ripplekv_lib Boost::program_options)
set_target_properties(ripplekv PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
