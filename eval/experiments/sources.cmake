# Sources of eval/experiments/ (see the top-level CMakeLists.txt): sweep files and their grids,
# run folders, result tables. Torch-free, but they read LongBench run folders, so they come
# with eval/.
if(RIPPLEKV_WITH_EVAL)
  list(APPEND RIPPLEKV_PLAIN_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/ini_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/run_kinds.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sweep_grid.cpp
    ${CMAKE_CURRENT_LIST_DIR}/bootstrap.cpp
    ${CMAKE_CURRENT_LIST_DIR}/result_table.cpp
    ${CMAKE_CURRENT_LIST_DIR}/published_results.cpp
    ${CMAKE_CURRENT_LIST_DIR}/run_results.cpp
    ${CMAKE_CURRENT_LIST_DIR}/paper_tables.cpp
    ${CMAKE_CURRENT_LIST_DIR}/paired_comparison.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pooled_runs.cpp
  )
endif()
