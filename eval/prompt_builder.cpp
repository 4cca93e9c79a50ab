#include "eval/prompt_builder.h"

#include <algorithm>

#include <fmt/format.h>

namespace ripplekv::eval {
namespace {

bool is_special_id(const Tokenizer& tokenizer, TokenId id) { return tokenizer.is_special(id); }

const ChatTemplate& template_for(const LongBenchTask& task, const PromptOptions& options) {
  static const ChatTemplate kNoTemplate{};
  return task.skip_chat_template ? kNoTemplate : options.chat_template;
}

void check_max_input(const PromptOptions& options) {
  if (options.max_input_tokens < kMinInputTokens) {
    throw std::invalid_argument(fmt::format(
        "max input length {} is too small: pred.py keeps int(N/2) tokens from each end of the prompt; use at "
        "least {} (papers use 3500 for Llama-2-chat, 7950 for Llama-3-8B-Instruct, 31500 for "
        "Mistral-7B-Instruct-v0.2)",
        options.max_input_tokens, kMinInputTokens));
  }
}

}  // namespace

MiddleTruncation truncate_middle(const TokenIds& ids, int64_t max_tokens) {
  MiddleTruncation out;
  if (max_tokens < 0 || static_cast<int64_t>(ids.size()) <= max_tokens) {
    out.head = ids;
    return out;
  }
  // int(max_length / 2) in Python is floor for positive lengths.
  const auto half = static_cast<std::size_t>(max_tokens / 2);
  out.truncated = true;
  out.head.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(half));
  // ids[-half:] with half == 0 would be the whole list in Python; max_tokens >= 2 avoids it.
  out.tail.assign(ids.end() - static_cast<std::ptrdiff_t>(half), ids.end());
  return out;
}

std::string decode_skipping_special(const Tokenizer& tokenizer, const TokenIds& ids) {
  TokenIds kept;
  kept.reserve(ids.size());
  for (TokenId id : ids) {
    if (!is_special_id(tokenizer, id)) kept.push_back(id);
  }
  return tokenizer.decode(kept);
}

TokenIds encode_segments(const std::vector<PromptSegment>& segments, const Tokenizer& tokenizer,
                                 std::string_view template_name) {
  TokenIds ids;
  for (const auto& s : segments) {
    switch (s.kind) {
      case PromptSegment::Kind::kBos:
        if (tokenizer.bos_id() >= 0) ids.push_back(tokenizer.bos_id());
        break;
      case PromptSegment::Kind::kText: {
        if (s.text.empty()) break;
        const auto piece = tokenizer.encode(s.text, /*add_bos=*/false);
        ids.insert(ids.end(), piece.begin(), piece.end());
        break;
      }
      case PromptSegment::Kind::kSpecial: {
        const TokenId id = tokenizer.piece_to_id(s.text);
        const bool missing = id < 0 || (id == tokenizer.unk_id() && tokenizer.id_to_piece(id) != s.text);
        if (missing) {
          throw std::invalid_argument(fmt::format(
              "the {} chat template needs the special token {}, which the tokenizer {} does not have; pass the "
              "model's own template with --chat-template (llama2 or mistral for sentencepiece models) or none",
              template_name, s.text, tokenizer.path()));
        }
        ids.push_back(id);
        break;
      }
    }
  }
  return ids;
}

BuiltPrompt build_prompt(const std::string& formatted_prompt, const LongBenchTask& task,
                         const Tokenizer& tokenizer, const PromptOptions& options) {
  check_max_input(options);
  BuiltPrompt out;
  const auto ids = tokenizer.encode(formatted_prompt, /*add_bos=*/true);
  out.original_tokens = static_cast<int64_t>(ids.size());
  const auto cut = truncate_middle(ids, options.max_input_tokens);
  out.truncated = cut.truncated;
  out.prompt = cut.truncated
                   ? decode_skipping_special(tokenizer, cut.head) + decode_skipping_special(tokenizer, cut.tail)
                   : formatted_prompt;
  const ChatTemplate& chat = template_for(task, options);
  out.chat_template_applied = chat.kind != ChatTemplateKind::kNone;
  out.ids = encode_segments(render_chat(chat, out.prompt), tokenizer, chat_template_name(chat.kind));
  const auto length = static_cast<int64_t>(out.ids.size());
  if (options.context_tokens > 0 && length > options.context_tokens) {
    throw PromptDoesNotFit(fmt::format(
        "{}: the prompt has {} tokens after truncation to {} and the {} template, more than the {}-token context; "
        "lower --max-input-tokens by {} or more",
        task.name, length, options.max_input_tokens, chat_template_name(chat.kind), options.context_tokens,
        length - options.context_tokens));
  }
  return out;
}

BuiltPrompt build_prompt(const Sample& sample, const LongBenchTask& task, const Tokenizer& tokenizer,
                         const PromptOptions& options) {
  try {
    return build_prompt(prompt_for(sample, task), task, tokenizer, options);
  } catch (const PromptDoesNotFit& e) {
    throw PromptDoesNotFit(fmt::format("sample {} of {}", sample.id, e.what()));
  }
}

std::string check_prompt_fits(const LongBenchTask& task, const Tokenizer& tokenizer, const PromptOptions& options) {
  try {
    check_max_input(options);
  } catch (const std::invalid_argument& e) {
    throw PromptDoesNotFit(e.what());
  }
  if (options.context_tokens <= 0) return {};
  const ChatTemplate& chat = template_for(task, options);
  const auto bare = static_cast<int64_t>(tokenizer.encode("", /*add_bos=*/true).size());
  const auto templated = static_cast<int64_t>(
      encode_segments(render_chat(chat, ""), tokenizer, chat_template_name(chat.kind)).size());
  const int64_t overhead = std::max<int64_t>(0, templated - bare);
  const int64_t room = options.context_tokens - overhead - task.max_new_tokens;  // prompt tokens that fit
  if (room < kMinInputTokens) {
    throw PromptDoesNotFit(fmt::format(
        "{}: the task's {} new tokens and the {} template's {} tokens leave {} of the {}-token context for the "
        "prompt; raise --context-tokens (the model then runs past its trained context, as Hugging Face generate "
        "does) or drop the task",
        task.name, task.max_new_tokens, chat_template_name(chat.kind), overhead, std::max<int64_t>(room, 0),
        options.context_tokens));
  }
  const int64_t prompt = options.max_input_tokens + overhead;
  if (prompt > options.context_tokens) {
    throw PromptDoesNotFit(fmt::format(
        "{}: prompts of up to {} tokens (--max-input-tokens {} + {} of the {} template) do not fit the model's "
        "{}-token context; use --max-input-tokens {} (leaves room for the task's {} new tokens)",
        task.name, prompt, options.max_input_tokens, overhead, chat_template_name(chat.kind),
        options.context_tokens, room, task.max_new_tokens));
  }
  if (prompt + task.max_new_tokens > options.context_tokens) {
    return fmt::format(
        "{}: up to {} prompt tokens + {} new tokens = {} exceed the model's {}-token context; generation runs past "
        "the trained context there (as Hugging Face generate does); --max-input-tokens {} would stay inside",
        task.name, prompt, task.max_new_tokens, prompt + task.max_new_tokens, options.context_tokens, room);
  }
  return {};
}

TaskDecoding task_decoding(const LongBenchTask& task, const Tokenizer& tokenizer) {
  TaskDecoding d;
  d.max_new_tokens = task.max_new_tokens;
  if (task.name == "samsum") {
    const auto nl = tokenizer.encode("\n", /*add_bos=*/false);
    if (nl.empty()) {
      throw std::invalid_argument(fmt::format(
          "samsum stops at a newline, but the tokenizer {} encodes \"\\n\" to no token", tokenizer.path()));
    }
    d.extra_stop_tokens.push_back(nl.back());
    d.min_new_tokens = 1;
  }
  return d;
}

std::string decode_prediction(const Tokenizer& tokenizer, const TokenIds& generated, TokenId stop_token) {
  TokenIds ids = generated;
  if (stop_token >= 0) ids.push_back(stop_token);
  return decode_skipping_special(tokenizer, ids);
}

}  // namespace ripplekv::eval
