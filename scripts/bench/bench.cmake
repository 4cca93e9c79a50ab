# Benchmark programs (not tests): build/ripplekv_bench. Run through scripts/bench.sh.
add_executable(ripplekv_bench ${CMAKE_CURRENT_LIST_DIR}/bench_model.cpp)
target_link_libraries(ripplekv_bench PRIVATE ripplekv_lib Boost::program_options)
set_target_properties(ripplekv_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_executable(ripplekv_bench_profiler ${CMAKE_CURRENT_LIST_DIR}/bench_profiler.cpp)
target_link_libraries(ripplekv_bench_profiler PRIVATE ripplekv_lib Boost::program_options)
set_target_properties(ripplekv_bench_profiler PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
