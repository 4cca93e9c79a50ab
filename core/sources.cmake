# Sources of core/ (see the top-level CMakeLists.txt).
list(APPEND RIPPLEKV_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ops/ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/kv_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hooks/hooks.cpp
)
