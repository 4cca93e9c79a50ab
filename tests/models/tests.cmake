ripplekv_add_test(test_models SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_stories260k.cpp
)
