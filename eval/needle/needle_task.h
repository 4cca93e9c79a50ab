// Needle in a haystack (Kamradt's LLMTest_NeedleInAHaystack, as kvpress and KVCache-Factory
// run it): the needle sentence "The best thing to do in San Francisco is eat a sandwich and
// sit in Dolores Park on a sunny day." is placed at depth d% of essay text cut to fill a
// context of L tokens (moved back to the end of the sentence it would split), and the model
// is asked "What is the best thing to do in San Francisco?".
//
// Score: ROUGE-1 recall x 100 of the answer words ("eat a sandwich and sit in dolores park on
// a sunny day", lowercased, split on non-alphanumerics, counts clipped) in the prediction.
// Recall, not F1 or exact match: small chat models wrap the answer in a sentence of their
// own, which is not an error; a partial recall ("sit in Dolores Park") earns partial credit.
// Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "eval/chat_template.h"
#include "eval/engine/task.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::eval {

extern const char* const kNeedle;
extern const char* const kNeedleQuestion;
extern const char* const kNeedleAnswer;

// ROUGE-1 recall x 100 of kNeedleAnswer's words in `prediction`.
double needle_score(const std::string& prediction);

struct NeedleCell {
  int64_t length = 0;  // context tokens, prompt + generated
  int depth = 0;       // percent
  std::string id() const { return "L" + std::to_string(length) + "_d" + std::to_string(depth); }
};

// Scores <dir>/needle.jsonl (every depth x length cell must be there) and writes needle.json
// (the depth x length grid for scripts/plot_needle.py), result.json ({"needle@<length>": mean
// over depths}, read by `ripplekv table`), sample_scores.json (each cell, per length: the
// depths are the samples of a bootstrap interval) and results.md; returns the Markdown table.
std::string write_needle_results(const std::filesystem::path& dir, const std::string& label,
                                 const std::vector<int64_t>& lengths, const std::vector<int64_t>& depths);

class NeedleEngineTask final : public Task {
 public:
  // `haystack_text`: the essays, concatenated. Each cell's prompt fills `length` tokens minus
  // `max_new_tokens` (chat template included).
  NeedleEngineTask(std::vector<NeedleCell> cells, const std::string& haystack_text, const Tokenizer& tokenizer,
                   const ChatTemplate& chat, int64_t max_new_tokens);
  const std::string& name() const override { return name_; }
  std::size_t size() const override { return cells_.size(); }
  const std::string& sample_id(std::size_t k) const override { return ids_.at(k); }
  TaskPrompt prompt(std::size_t k) const override;
  TaskDecoding decoding(std::size_t) const override { return {max_new_, {}, 0}; }
  std::string prediction(const TokenIds& generated, TokenId stop_token) const override;
  std::string record(std::size_t k, const std::string& prediction) const override;
  const std::vector<NeedleCell>& cells() const { return cells_; }

 private:
  std::string name_ = "needle";
  std::vector<NeedleCell> cells_;
  std::vector<std::string> ids_;
  TokenIds haystack_;  // the essays' tokens
  TokenIds needle_;    // kNeedle's tokens
  int64_t overhead_ = 0;       // the chat template and question around an empty haystack
  const Tokenizer& tokenizer_;
  ChatTemplate chat_;
  int64_t max_new_;
};

}  // namespace ripplekv::eval
