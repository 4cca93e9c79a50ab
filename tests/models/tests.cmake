ripplekv_add_test(test_models SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/llama/test_stories260k.cpp
  ${CMAKE_CURRENT_LIST_DIR}/llama/test_hf_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/test_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/test_bad_input.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/test_opened_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/test_bpe_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/test_tokenizer_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/llama/test_real_models.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/test_kv_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_linear.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hooks/test_hooks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generation/test_batched_decode.cpp
)
