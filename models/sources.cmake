# Sources of models/ (see the top-level CMakeLists.txt).
list(APPEND RIPPLEKV_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/config/model_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/safetensors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/checkpoint_fingerprint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/llama2c_header.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/utf8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/byte_level.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/regex.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/tokenizer_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/normalizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/pre_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/bpe_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/bpe_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generation/decode_groups.cpp
)
list(APPEND RIPPLEKV_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ops/ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/linear.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/decode_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/cudnn_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/column_sums.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/token_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/swiglu_token.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/greedy_argmax.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/kv_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hooks/hooks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/llama/llama_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/load_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generation/generate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/opened_model.cpp
)
