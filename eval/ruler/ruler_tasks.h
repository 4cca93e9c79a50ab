// RULER (NVIDIA, 2024) synthetic long-context tasks: the task table of RULER's
// scripts/synthetic.yaml with the templates, answer prefixes, generation lengths and metrics
// of its data/synthetic/constants.py and eval/synthetic/constants.py. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

enum class RulerKind { kNiah, kVariableTracking, kCommonWords, kFreqWords, kQa };
enum class RulerMetric { kStringMatchAll, kStringMatchPart };

struct RulerTask {
  std::string name;  // "niah_single_1", "vt", ...
  RulerKind kind;
  // niah: haystack "noise" | "essay" | "needle"; key and value types "words" | "numbers" | "uuids".
  std::string haystack = "noise";
  std::string type_k = "words", type_v = "numbers";
  int num_k = 1, num_v = 1, num_q = 1;
  // variable tracking
  int num_chains = 1, num_hops = 4;
  // common words
  int freq_cw = 30, freq_ucw = 3, num_cw = 10;
  // frequent words
  double alpha = 2.0;
  int64_t tokens_to_generate = 0;
  RulerMetric metric = RulerMetric::kStringMatchAll;
};

// The 13 tasks of synthetic.yaml, in its order (qa_1 and qa_2 last).
const std::vector<RulerTask>& ruler_tasks();
// Throws std::invalid_argument listing the tasks; qa_1 / qa_2 are refused with the reason
// (their SQuAD / HotpotQA data is not available to ripplekv).
const RulerTask& find_ruler_task(std::string_view name);
// "a,b" or "all" (the 11 synthetic tasks without qa). Duplicates are an error.
std::vector<const RulerTask*> parse_ruler_tasks(const std::string& csv);

// The task template ({context}, {query}, ...) and the answer prefix, as constants.py has them.
const std::string& ruler_template(RulerKind kind);
const std::string& ruler_answer_prefix(RulerKind kind);
std::string_view ruler_metric_name(RulerMetric metric);  // "string_match_all"

}  // namespace ripplekv::eval
