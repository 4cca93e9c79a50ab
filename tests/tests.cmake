# Test executables, one per area; tests/ mirrors core/, models/ and eval/.
if(RIPPLEKV_WITH_EVAL)
  include(${CMAKE_CURRENT_SOURCE_DIR}/eval/tests.cmake OPTIONAL)
endif()
if(RIPPLEKV_WITH_TORCH)
  include(${CMAKE_CURRENT_SOURCE_DIR}/core/tests.cmake OPTIONAL)
  include(${CMAKE_CURRENT_SOURCE_DIR}/models/tests.cmake OPTIONAL)
endif()
