# Sources of core/ (see the top-level CMakeLists.txt).
list(APPEND RIPPLEKV_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/compress/budget_math.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/policy_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/option_schema.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/policy_catalog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/ripple_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/budget_mapper.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/sensitivity_profile.cpp
)
list(APPEND RIPPLEKV_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/compress/token_selector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/selectors/snapkv_selector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/selectors/simple_selectors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/selectors/h2o_selector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/allocators/uniform_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/allocators/pyramid_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/allocators/profile_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/allocators/cake_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/allocators/squeeze_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/selectors/cake_selector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/compression.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/observation_share.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress/method_presets.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/ripple_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/prompt_ripple_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/prompt_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/perturbation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/kl_divergence.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/sensitivity_profiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ripple/profile_runner.cpp
)
