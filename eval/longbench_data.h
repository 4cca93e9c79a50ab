// LongBench v1 samples from the two layouts in the shared data:
//  * official jsonl (THUDM/LongBench data/<task>.jsonl): one object per line with
//    input, context, answers, length, dataset, language, all_classes (may be null), _id;
//  * MiniLongBench json (mini/MiniLongBench_<task>.json): one object keyed "0".."N",
//    each {origin_prompt, prediction, gold, time}, gold being the answer list or
//    {answers, all_classes}. Its prompts are already formatted with OpenCompass
//    templates (e.g. "as concisely" where the official narrativeqa says
//    "asconcisely"), so these samples carry formatted_prompt and no context/input.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/jsonl.h"
#include "eval/longbench_tasks.h"

namespace ripplekv::eval {

struct Sample {
  std::string id;        // "_id", or the MiniLongBench record key
  std::string dataset;   // task name, e.g. "qasper"
  std::string language;  // the record's "language"; MiniLongBench: from the task table
  std::string input;
  std::string context;
  std::vector<std::string> answers;
  std::optional<std::vector<std::string>> all_classes;  // trec / lsht
  std::optional<long long> length;  // official "length" (words; characters for zh)
  std::optional<std::string> formatted_prompt;      // MiniLongBench only
  std::optional<std::string> reference_prediction;  // MiniLongBench only (its example output)
};

using SampleReadOptions = JsonlReadOptions;

// Official jsonl. A missing file, a bad line or a record without the required
// fields throws std::runtime_error "path:line: ..." (or is skipped with a warning
// when options.skip_malformed_lines).
std::vector<Sample> load_longbench_jsonl(const std::filesystem::path& path,
                                         const SampleReadOptions& options = {});

// MiniLongBench json. `task` defaults to the file name's "MiniLongBench_<task>.json".
// Records come back in numeric key order.
std::vector<Sample> load_minilongbench_json(const std::filesystem::path& path,
                                            const std::string& task = "",
                                            const SampleReadOptions& options = {});

// Picks the reader from the extension: ".jsonl" official, ".json" MiniLongBench.
std::vector<Sample> load_longbench_samples(const std::filesystem::path& path,
                                           const SampleReadOptions& options = {});

// The prompt the model sees before truncation and chat templating: the shipped
// formatted_prompt if the sample has one, else the task template formatted with
// context and input.
std::string prompt_for(const Sample& sample, const LongBenchTask& task);

}  // namespace ripplekv::eval
