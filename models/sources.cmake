# Sources of models/ (see the top-level CMakeLists.txt).
list(APPEND RIPPLEKV_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/config/model_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/safetensors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/tokenizer.cpp
)
list(APPEND RIPPLEKV_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/llama/llama_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/load_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generation/generate.cpp
)
