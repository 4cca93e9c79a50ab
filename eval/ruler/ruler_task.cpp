#include "eval/ruler/ruler_task.h"

#include <nlohmann/json.hpp>

#include "eval/prompt_builder.h"

namespace ripplekv::eval {

TokenIds ruler_prompt_ids(const Tokenizer& tokenizer, const ChatTemplate& chat, const std::string& input,
                                  const std::string& answer_prefix) {
  auto segments = render_chat(chat, input);
  // The prefix continues the last text, tokenized with it (as a string template would be).
  if (!segments.empty() && segments.back().kind == PromptSegment::Kind::kText) {
    segments.back().text += answer_prefix;
  } else {
    segments.push_back({PromptSegment::Kind::kText, answer_prefix});
  }
  return encode_segments(segments, tokenizer, chat_template_name(chat.kind));
}

RulerEngineTask::RulerEngineTask(const RulerTask& task, const std::vector<RulerSample>& samples,
                                 const Tokenizer& tokenizer, const ChatTemplate& chat)
    : task_(task), samples_(samples), tokenizer_(tokenizer), chat_(chat) {
  for (const auto& s : samples_) ids_.push_back(std::to_string(s.index));
}

TaskPrompt RulerEngineTask::prompt(std::size_t k) const {
  const auto& s = samples_.at(k);
  TaskPrompt p;
  p.ids = ruler_prompt_ids(tokenizer_, chat_, s.input, s.answer_prefix);
  p.text = s.input + s.answer_prefix;
  p.original_tokens = static_cast<int64_t>(p.ids.size());
  return p;
}

std::string RulerEngineTask::prediction(const TokenIds& generated, TokenId stop_token) const {
  (void)stop_token;  // RULER's predictions end before the end-of-sequence token
  return decode_prediction(tokenizer_, generated, -1);
}

std::string RulerEngineTask::record(std::size_t k, const std::string& prediction) const {
  const auto& s = samples_.at(k);
  nlohmann::ordered_json j;
  j["index"] = s.index;
  j["input"] = "";
  j["outputs"] = s.outputs;
  j["pred"] = prediction;
  j["others"] = {{"id", s.index}};
  j["truncation"] = -1;
  j["length"] = s.length;
  j["_id"] = ids_.at(k);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ripplekv::eval
