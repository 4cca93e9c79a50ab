ripplekv_add_test(test_models SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/llama/test_stories260k.cpp
  ${CMAKE_CURRENT_LIST_DIR}/llama/test_hf_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/test_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/test_bad_input.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/test_opened_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loaders/test_safetensors_release.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/test_bpe_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer/test_tokenizer_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/llama/test_real_models.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/test_kv_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_linear.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_column_sums.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_token_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_swiglu_token.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_mlp_blocks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops/test_greedy_argmax.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hooks/test_hooks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generation/test_batched_decode.cpp
)

# The batch-invariance tests ([isa]) again with the kernels capped at AVX-512 without BF16: the
# float32-FMA arithmetic of CPUs without the bfloat16 dot product, tested on one that has it.
catch_discover_tests(test_models TEST_SPEC "[isa]~[long]" TEST_PREFIX "test_models/avx512:"
  EXTRA_ARGS --warn NoTests PROPERTIES LABELS "test_models" ENVIRONMENT "RIPPLEKV_CPU_ISA=avx512")
# And capped at AVX2: ATen's kernels with bfloat16 prompt products widened to float32, the path
# of x86-64 CPUs without AVX-512 (on others, ATen's kernels alone), tested on any CPU.
catch_discover_tests(test_models TEST_SPEC "[isa]~[long]" TEST_PREFIX "test_models/avx2:"
  EXTRA_ARGS --warn NoTests PROPERTIES LABELS "test_models" ENVIRONMENT "RIPPLEKV_CPU_ISA=avx2")
