// RULER samples of one task and length as an evaluation-engine task (eval/engine/task.h).
// The model reads the sample's input in the model's chat template, and its answer starts
// with RULER's answer prefix (as RULER's own model templates do: template(input) + prefix).
// Prediction lines are RULER's prediction format, which its evaluate.py reads:
//   {"index", "input": "", "outputs", "pred", "others": {"id"}, "truncation": -1, "length", "_id"}
// ("input" is left empty: the inputs are in the run's data/ folder). Torch-free.
#pragma once

#include <string>
#include <vector>

#include "eval/chat_template.h"
#include "eval/engine/task.h"
#include "eval/ruler/ruler_data.h"
#include "eval/ruler/ruler_tasks.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::eval {

// The prompt ids of `input` + `answer_prefix` in `chat` (the prefix continues the assistant turn).
TokenIds ruler_prompt_ids(const Tokenizer& tokenizer, const ChatTemplate& chat, const std::string& input,
                                  const std::string& answer_prefix);

class RulerEngineTask final : public Task {
 public:
  // `name` names the predictions file (the task name); references must outlive the task.
  RulerEngineTask(const RulerTask& task, const std::vector<RulerSample>& samples, const Tokenizer& tokenizer,
                  const ChatTemplate& chat);
  const std::string& name() const override { return task_.name; }
  std::size_t size() const override { return samples_.size(); }
  const std::string& sample_id(std::size_t k) const override { return ids_.at(k); }
  TaskPrompt prompt(std::size_t k) const override;
  TaskDecoding decoding(std::size_t) const override { return {task_.tokens_to_generate, {}, 0}; }
  std::string prediction(const TokenIds& generated, TokenId stop_token) const override;
  std::string record(std::size_t k, const std::string& prediction) const override;

 private:
  const RulerTask& task_;
  const std::vector<RulerSample>& samples_;
  const Tokenizer& tokenizer_;
  ChatTemplate chat_;
  std::vector<std::string> ids_;
};

}  // namespace ripplekv::eval
