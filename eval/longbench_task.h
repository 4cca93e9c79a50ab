// A LongBench v1 task as an evaluation-engine task (eval/engine/task.h): pred.py's prompts
// (eval/prompt_builder.h), decoding settings and prediction lines (eval/run_state.h).
// Torch-free.
#pragma once

#include <string>

#include "eval/engine/task.h"
#include "eval/longbench_run.h"
#include "eval/prompt_builder.h"

namespace ripplekv::eval {

class LongBenchEngineTask final : public Task {
 public:
  // Keeps references: `data`, `tokenizer` and `options` must outlive the task.
  LongBenchEngineTask(const TaskSamples& data, const Tokenizer& tokenizer, const PromptOptions& options);
  const std::string& name() const override { return name_; }
  std::size_t size() const override { return data_.samples.size(); }
  const std::string& sample_id(std::size_t k) const override { return data_.samples.at(k).id; }
  TaskPrompt prompt(std::size_t k) const override;
  TaskDecoding decoding(std::size_t) const override { return decoding_; }
  std::string prediction(const TokenIds& generated, TokenId stop_token) const override;
  std::string record(std::size_t k, const std::string& prediction) const override;

 private:
  const TaskSamples& data_;
  const Tokenizer& tokenizer_;
  const PromptOptions& options_;
  std::string name_;
  TaskDecoding decoding_;
};

}  // namespace ripplekv::eval
