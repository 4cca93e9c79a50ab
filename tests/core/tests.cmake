ripplekv_add_test(test_core SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_kv_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_budget_math.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_compression.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_compression_reference.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_ripple.cpp
)

# The `ripplekv` program end to end (longbench on stories260K). Not "test_longbench...": the
# label would match `ctest -LE long`, which is a regular expression.
if(RIPPLEKV_WITH_EVAL)
  ripplekv_add_test(test_cli SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_longbench_cli.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cli_errors.cpp
  )
  target_compile_definitions(test_cli PRIVATE RIPPLEKV_BINARY="$<TARGET_FILE:ripplekv>")
  add_dependencies(test_cli ripplekv)
endif()

# Sweep files, run folders and paper tables (torch-free parts), then the sweep and table
# commands end to end (the demo sweep on stories260K).
if(RIPPLEKV_WITH_EVAL)
  ripplekv_add_test(test_experiments SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_experiments.cpp
  )
  target_compile_definitions(test_experiments PRIVATE RIPPLEKV_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  ripplekv_add_test(test_sweep_cli SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_sweep_cli.cpp
  )
  target_compile_definitions(test_sweep_cli PRIVATE RIPPLEKV_BINARY="$<TARGET_FILE:ripplekv>"
                                                    RIPPLEKV_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                                    RIPPLEKV_PYTHON_EXE="${RIPPLEKV_PYTHON}")
  add_dependencies(test_sweep_cli ripplekv)
endif()
