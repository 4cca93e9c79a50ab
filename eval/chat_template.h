// Chat templates for the instruction-tuned models LongBench runs on, rendered exactly as the
// models' Hugging Face tokenizer_config.json `chat_template` renders one user message with
// add_generation_prompt=True (no tokenizer involved here; see eval/prompt_builder.h):
//
//   llama2    meta-llama/Llama-2-*-chat-hf      <s>[INST] {prompt.strip()} [/INST]
//             (the hub template has no default system prompt; use_default_system_prompt=false)
//   mistral   mistralai/Mistral-7B-Instruct-v0.2 as released (also v0.1, Mixtral-8x7B):
//             <s>[INST] {prompt} [/INST]     (no strip)
//   llama3    meta-llama/Meta-Llama-3-8B-Instruct:
//             <|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n{prompt|trim}<|eot_id|>
//             <|start_header_id|>assistant<|end_header_id|>\n\n
//   chatml    Qwen/Qwen2-*-Instruct: <|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n
//             {prompt}<|im_end|>\n<|im_start|>assistant\n   (system defaults to
//             "You are a helpful assistant.", the Qwen2 template's default)
//   llama2-longbench   the official LongBench pred.py build_chat for "llama2" models:
//             <s>[INST]{prompt}[/INST]   (no spaces, no strip; <s> from tokenizer(prompt))
//   none      <s>{prompt}   (BOS only when the tokenizer adds one by default)
//
// "strip"/"trim" are Python's str.strip(): Unicode whitespace (str.isspace) at both ends.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

enum class ChatTemplateKind { kNone, kLlama2, kLlama2LongBench, kMistral, kLlama3, kChatMl };

struct ChatTemplate {
  ChatTemplateKind kind = ChatTemplateKind::kNone;
  std::string system_prompt;  // chatml only
};

// One piece of a rendered prompt. kBos is "the tokenizer's BOS id" (sentencepiece models);
// kSpecial is a named special token ("<|eot_id|>") that must exist in the vocabulary as a
// single token; kText is ordinary text encoded without BOS.
struct PromptSegment {
  enum class Kind { kBos, kSpecial, kText };
  Kind kind;
  std::string text;  // empty for kBos
  bool operator==(const PromptSegment& o) const { return kind == o.kind && text == o.text; }
};

// The user message rendered with the template (add_generation_prompt=True).
std::vector<PromptSegment> render_chat(const ChatTemplate& chat, std::string_view prompt);

// One message of a conversation ("system", "user", "assistant").
struct ChatMessage {
  std::string role;
  std::string content;
};

// A conversation rendered as HF apply_chat_template(messages, add_generation_prompt) renders it
// with the model's template. chatml: a first message that is not "system" gets the template's
// default system message (when it has one), as the SmolLM2 and Qwen2.5 templates do; llama3:
// contents trimmed. The other templates render a single user message only (else
// std::invalid_argument).
std::vector<PromptSegment> render_chat_messages(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                                                bool add_generation_prompt = true);
// The same as one string, BOS spelled `bos_text`.
std::string render_chat_messages_text(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                                      bool add_generation_prompt = true, std::string_view bos_text = "<s>");

// The same as one string, BOS spelled `bos_text` (e.g. "<s>"), for logs and tests.
std::string render_chat_text(const ChatTemplate& chat, std::string_view prompt,
                             std::string_view bos_text = "<s>");

// "none", "llama2", "llama2-longbench", "mistral", "llama3", "chatml".
std::string_view chat_template_name(ChatTemplateKind kind);
const std::vector<std::string>& chat_template_names();  // the names above
// Throws std::invalid_argument listing the valid names.
ChatTemplate chat_template_from_name(std::string_view name);

// Python's str.strip() (no argument) on UTF-8 text.
std::string python_strip(std::string_view text);

// Recognises a Hugging Face chat_template (Jinja source as tokenizer_config.json holds it)
// as one of the templates above; nullopt when it is none of them. Throws
// std::invalid_argument for look-alikes that would render differently (e.g. Llama-3.1's
// template, which adds a dated system message), saying which name to pass instead.
std::optional<ChatTemplate> detect_chat_template(std::string_view jinja_source);

// The template for `--chat-template auto`: `model_path`/tokenizer_config.json's
// chat_template when the model is a Hugging Face directory that has one, else none.
// `why` receives one line saying how it was chosen.
ChatTemplate auto_chat_template(const std::filesystem::path& model_path, std::string* why = nullptr);

}  // namespace ripplekv::eval
