ripplekv_add_test(test_models SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_stories260k.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_hf_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_bad_input.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_bpe_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_tokenizer_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_real_models.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_kv_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_ops_hooks.cpp
)
