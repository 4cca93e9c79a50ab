# Tests of eval/ (LongBench tasks, data, metrics, scoring). Torch-free.
ripplekv_add_test(test_eval SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_python_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_longbench_tasks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_longbench_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_metric_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_longbench_score.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_chat_template.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_prompt_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_run_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/test_ruler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/needle/test_needle.cpp
)

# The evaluation engine (LibTorch): one prefill for every variant equals separate runs.
if(RIPPLEKV_WITH_TORCH)
  ripplekv_add_test(test_eval_engine SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/engine/test_engine.cpp
  )
endif()
