# The `ripplekv` command-line program.
find_package(Boost 1.71 REQUIRED COMPONENTS program_options)
add_executable(ripplekv
  ${CMAKE_CURRENT_LIST_DIR}/main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generate_command.cpp
)
target_link_libraries(ripplekv PRIVATE ripplekv_lib Boost::program_options)
set_target_properties(ripplekv PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
