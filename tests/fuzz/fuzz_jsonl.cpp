// JSON lines: a LongBench predictions file (also the reader every JSONL file goes through).
#include <exception>

#include "eval/longbench_predictions.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = ripplekv::fuzz::scratch_file("task.jsonl", data, size);
  for (const bool skip : {false, true}) {
    try {
      ripplekv::eval::JsonlReadOptions o;
      o.skip_malformed_lines = skip;
      o.on_warning = [](const std::string&) {};
      (void)ripplekv::eval::load_predictions_jsonl(path, o);
    } catch (const std::exception&) {
    }
  }
  return 0;
}
