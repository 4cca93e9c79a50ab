# Sources of eval/ (see the top-level CMakeLists.txt): torch-free LongBench v1 task
# table, data readers, official metrics and scoring, prompt building and run state (run
# folders, their config.json and the notes of a resume with other arithmetic).
set(RIPPLEKV_EVAL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/python_unicode_tables.cpp
  ${CMAKE_CURRENT_LIST_DIR}/python_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/python_numeric.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench_tasks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/list_option.cpp
  ${CMAKE_CURRENT_LIST_DIR}/jsonl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench_predictions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rouge_l.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sample_scores.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench_score.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chat_template.cpp
  ${CMAKE_CURRENT_LIST_DIR}/prompt_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_presets.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/arithmetic_changes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_lock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/progress_bar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/haystack.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/ruler_tasks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/ruler_metric.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/ruler_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/sentence_split.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/ruler_generate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/ruler_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/ruler_score.cpp
  ${CMAKE_CURRENT_LIST_DIR}/needle/needle_task.cpp
)
list(APPEND RIPPLEKV_PLAIN_SOURCES ${RIPPLEKV_EVAL_SOURCES})

# The metrics must round exactly like Python: no fused multiply-add contraction
# and no fast-math, whatever flags the rest of the build uses.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(${RIPPLEKV_EVAL_SOURCES} PROPERTIES
    COMPILE_OPTIONS "-ffp-contract=off;-fno-fast-math")
endif()

# Per-layer kept tokens of LongBench runs (for plots); plain arithmetic, no metric parity needed.
list(APPEND RIPPLEKV_PLAIN_SOURCES ${CMAKE_CURRENT_LIST_DIR}/kept_tokens_log.cpp)
# The engine's task interface, and fidelity as one of its tasks (aggregation of its records).
list(APPEND RIPPLEKV_PLAIN_SOURCES ${CMAKE_CURRENT_LIST_DIR}/engine/task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine/heap_release.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fidelity/fidelity_task.cpp)

# The evaluation engine (one prefill per sample for every compared method): needs LibTorch.
list(APPEND RIPPLEKV_TORCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/engine/engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fidelity/fidelity.cpp)
# Which arithmetic computes a run (thread count, CPU kernels), recorded in its folders: needs
# LibTorch.
list(APPEND RIPPLEKV_TORCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_arithmetic.cpp)
