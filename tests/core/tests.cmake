ripplekv_add_test(test_core SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/compress/test_budget_math.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/test_compression.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/test_compression_reference.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/test_ripple.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/test_prompt_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/test_calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/test_policy_catalog.cpp
)
target_compile_definitions(test_core PRIVATE RIPPLEKV_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
