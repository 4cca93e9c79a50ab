// The LongBench v1 task table (THUDM/LongBench@2e00731f, config/dataset2prompt.json,
// config/dataset2maxlen.json, eval.py, pred.py), shipped in the library so a run
// needs no config files. tests/eval/longbench/test_longbench_tasks.cpp checks it against the
// official JSON in the shared data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

// Which official metrics.py function scores a task.
enum class Metric {
  kQaF1,            // qa_f1_score
  kQaF1Zh,          // qa_f1_zh_score (needs jieba: not implemented, refused)
  kRougeL,          // rouge_score (rouge==1.0.1, rouge-l f)
  kRougeLZh,        // rouge_zh_score (needs jieba: not implemented, refused)
  kClassification,  // classification_score
  kRetrieval,       // retrieval_score ("Paragraph N")
  kRetrievalZh,     // retrieval_zh_score ("段落N")
  kCount,           // count_score
  kCodeSim,         // code_sim_score (fuzzywuzzy fuzz.ratio / 100)
};

enum class TaskCategory { kSingleDocQa, kMultiDocQa, kSummarization, kFewShot, kSynthetic, kCode };

enum class Language { kEnglish, kChinese, kCode };

struct LongBenchTask {
  std::string_view name;             // file name stem and config key, e.g. "repobench-p"
  std::string_view prompt_template;  // official, typos included ("asconcisely")
  int max_new_tokens;                // dataset2maxlen
  Metric metric;
  Language language;
  TaskCategory category;
  bool skip_chat_template;  // pred.py leaves these raw: trec, triviaqa, samsum, lsht, lcc, repobench-p
  bool first_line_only;     // eval.py scores pred.lstrip('\n').split('\n')[0]: trec, triviaqa, samsum, lsht
  int official_num_samples;  // rows in the official test file
};

// All 21 v1 tasks in the official config order.
const std::vector<LongBenchTask>& longbench_tasks();

// Throws std::invalid_argument naming the valid tasks when `name` is unknown.
const LongBenchTask& find_longbench_task(std::string_view name);

// True for metrics this library reproduces exactly; false for the jieba-based ones.
bool metric_is_supported(Metric metric);

std::string_view metric_name(Metric metric);  // the metrics.py function name
std::string_view category_name(TaskCategory category);  // "Single-Doc QA", ...
std::string_view language_code(Language language);  // "en", "zh", "code"

// Python's template.format(context=..., input=...): "{context}" and "{input}" are
// replaced, "{{" and "}}" are literal braces; any other field, a format spec or a
// conversion, and a lone brace are errors (std::invalid_argument) that say where.
std::string format_prompt(std::string_view prompt_template, std::string_view context,
                          std::string_view input);
std::string format_prompt(const LongBenchTask& task, std::string_view context,
                          std::string_view input);

}  // namespace ripplekv::eval
