// A LongBench sample's model input, built the way the official pred.py builds it
// (THUDM/LongBench@2e00731f, get_pred):
//   1. prompt = dataset2prompt[task].format(**sample)            (eval/longbench_data.h)
//   2. ids = tokenizer(prompt) (BOS included, no truncation); if len(ids) > max_length:
//        half = int(max_length / 2)
//        prompt = decode(ids[:half], skip_special) + decode(ids[-half:], skip_special)
//   3. unless the task is trec/triviaqa/samsum/lsht/lcc/repobench-p: the chat template
//   4. input = tokenizer(prompt)
// and the per-task decoding settings (max_new_tokens; samsum's extra "\n" stop and
// min_length = context_length + 1). Torch-free.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "eval/chat_template.h"
#include "eval/engine/task.h"
#include "eval/longbench_data.h"
#include "eval/longbench_tasks.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::eval {

// pred.py keeps int(max/2) tokens from each end; below this there is no prompt left to speak of.
constexpr int64_t kMinInputTokens = 16;

struct PromptOptions {
  int64_t max_input_tokens = 0;  // pred.py's model2maxlen[model] (see eval/model_presets.h)
  ChatTemplate chat_template;    // applied unless the task skips chat templates
  // The model's context (max_position_embeddings): a prompt must fit in it, and must leave
  // room for some generation. 0 = not checked. Prompt + max_new_tokens may exceed it, as in
  // the papers' settings (Llama-3-8B: 7950 + 512 > 8192); check_prompt_fits warns then.
  int64_t context_tokens = 0;
};

// Thrown when a prompt cannot fit even after truncation.
struct PromptDoesNotFit : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// pred.py's cut of an over-long token list: the first and the last int(max_tokens/2) ids.
// Lists of at most max_tokens come back whole in `head` with truncated = false.
struct MiddleTruncation {
  TokenIds head;
  TokenIds tail;
  bool truncated = false;
};
MiddleTruncation truncate_middle(const TokenIds& ids, int64_t max_tokens);

// tokenizer.decode(ids, skip_special_tokens=True): drops BOS, EOS, UNK and PAD ids first.
std::string decode_skipping_special(const Tokenizer& tokenizer, const TokenIds& ids);

// Encodes rendered segments: kBos -> the tokenizer's BOS (nothing when it has none), kText ->
// encode without BOS, kSpecial -> the vocabulary's single token of that name. A special token
// the vocabulary lacks throws std::invalid_argument naming the template and the tokenizer.
TokenIds encode_segments(const std::vector<PromptSegment>& segments, const Tokenizer& tokenizer,
                                 std::string_view template_name);

struct BuiltPrompt {
  std::string prompt;           // after truncation, before the chat template
  TokenIds ids;         // the model input: template applied, BOS included
  int64_t original_tokens = 0;  // len(tokenizer(prompt)) before truncation, BOS included
  bool truncated = false;
  bool chat_template_applied = false;
};

// Steps 2-4 above on an already formatted prompt. Throws std::invalid_argument when
// max_input_tokens < kMinInputTokens, and PromptDoesNotFit when context_tokens is set and
// the final ids alone exceed it.
BuiltPrompt build_prompt(const std::string& formatted_prompt, const LongBenchTask& task,
                         const Tokenizer& tokenizer, const PromptOptions& options);
// Steps 1-4 (prompt_for(sample, task) first); errors name the task and the sample id.
BuiltPrompt build_prompt(const Sample& sample, const LongBenchTask& task, const Tokenizer& tokenizer,
                         const PromptOptions& options);

// Checks before a run, for the longest prompt the options allow for `task` (max_input_tokens
// plus the chat template's own tokens). Throws PromptDoesNotFit, saying which option to
// change and to what, when max_input_tokens < kMinInputTokens, when that prompt exceeds
// options.context_tokens, or when the task's max_new_tokens leave fewer than kMinInputTokens
// of the context for a prompt. Returns a warning (empty if none) when prompt + max_new_tokens
// exceed the context: generation then runs past the trained context, as HF generate does.
std::string check_prompt_fits(const LongBenchTask& task, const Tokenizer& tokenizer, const PromptOptions& options);

// Decoding settings of a task, as pred.py passes them to model.generate (greedy).
TaskDecoding task_decoding(const LongBenchTask& task, const Tokenizer& tokenizer);

// pred = tokenizer.decode(output[context_length:], skip_special_tokens=True). `stop_token`
// is the token generation stopped on (-1 for none): HF keeps it in the output, so a
// non-special stop such as samsum's "\n" ends up in the prediction.
std::string decode_prediction(const Tokenizer& tokenizer, const TokenIds& generated, TokenId stop_token);

}  // namespace ripplekv::eval
