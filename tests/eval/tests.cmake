# Tests of eval/: test_eval (LongBench tasks, data, metrics, scoring, RULER, needle, the results
# scripts) is torch-free; the rest need LibTorch.
ripplekv_add_test(test_eval SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_python_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_longbench_tasks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_longbench_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_metric_parity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_longbench_score.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_chat_template.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_prompt_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/longbench/test_run_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ruler/test_ruler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/needle/test_needle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/experiments/test_bootstrap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine/test_heap_release.cpp
  ${CMAKE_CURRENT_LIST_DIR}/experiments/test_result_scripts.cpp
)
# test_result_scripts runs scripts/results/*.py with the project's Python (numpy).
target_compile_definitions(test_eval PRIVATE RIPPLEKV_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                             RIPPLEKV_PYTHON_EXE="${RIPPLEKV_PYTHON}")

# LibTorch parts: the evaluation engine (one prefill for every variant equals separate runs),
# the `ripplekv` program end to end (longbench on stories260K; not "test_longbench...": the
# label would match `ctest -LE long`, which is a regular expression), sweep files, run folders
# and paper tables, then the sweep and table commands (the demo sweep on stories260K).
if(RIPPLEKV_WITH_TORCH)
  ripplekv_add_test(test_eval_engine SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/engine/test_engine.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fidelity/test_fidelity.cpp
    ${CMAKE_CURRENT_LIST_DIR}/engine/test_run_arithmetic.cpp
  )
  ripplekv_add_test(test_cli SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/cli/test_longbench_cli.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cli/test_cli_errors.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cli/test_ruler_cli.cpp
  )
  # A sentencepiece shim that answers garbage, as a library of another version does.
  add_library(fake_spm_mismatch SHARED ${CMAKE_CURRENT_LIST_DIR}/cli/fake_spm_mismatch.cpp)
  target_compile_definitions(test_cli PRIVATE RIPPLEKV_BINARY="$<TARGET_FILE:ripplekv>"
    RIPPLEKV_FAKE_SPM="$<TARGET_FILE:fake_spm_mismatch>")
  add_dependencies(test_cli ripplekv fake_spm_mismatch)
  ripplekv_add_test(test_experiments SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/experiments/test_experiments.cpp
  )
  target_compile_definitions(test_experiments PRIVATE RIPPLEKV_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  ripplekv_add_test(test_sweep_cli SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/cli/test_sweep_cli.cpp
  )
  target_compile_definitions(test_sweep_cli PRIVATE RIPPLEKV_BINARY="$<TARGET_FILE:ripplekv>"
                                                    RIPPLEKV_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                                    RIPPLEKV_PYTHON_EXE="${RIPPLEKV_PYTHON}")
  add_dependencies(test_sweep_cli ripplekv)
endif()
