#include "eval/longbench_task.h"

#include "eval/run_state.h"

namespace ripplekv::eval {

LongBenchEngineTask::LongBenchEngineTask(const TaskSamples& data, const Tokenizer& tokenizer,
                                         const PromptOptions& options)
    : data_(data), tokenizer_(tokenizer), options_(options), name_(data.task->name),
      decoding_(task_decoding(*data.task, tokenizer)) {}

TaskPrompt LongBenchEngineTask::prompt(std::size_t k) const {
  const BuiltPrompt built = build_prompt(data_.samples.at(k), *data_.task, tokenizer_, options_);
  TaskPrompt p;
  p.ids = built.ids;
  p.text = built.prompt;
  p.original_tokens = built.original_tokens;
  p.truncated = built.truncated;
  return p;
}

std::string LongBenchEngineTask::prediction(const TokenIds& generated, TokenId stop_token) const {
  return decode_prediction(tokenizer_, generated, stop_token);
}

std::string LongBenchEngineTask::record(std::size_t k, const std::string& prediction) const {
  return prediction_line(data_.samples.at(k), prediction);
}

}  // namespace ripplekv::eval
