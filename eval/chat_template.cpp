#include "eval/chat_template.h"
#include "models/io/json_error.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "eval/python_text.h"

namespace ripplekv::eval {
namespace {

constexpr const char* kQwen2DefaultSystem = "You are a helpful assistant.";

struct NamedTemplate {
  ChatTemplateKind kind;
  const char* name;
};
constexpr NamedTemplate kNames[] = {
    {ChatTemplateKind::kNone, "none"},       {ChatTemplateKind::kLlama2, "llama2"},
    {ChatTemplateKind::kLlama2LongBench, "llama2-longbench"},
    {ChatTemplateKind::kMistral, "mistral"}, {ChatTemplateKind::kLlama3, "llama3"},
    {ChatTemplateKind::kChatMl, "chatml"},
};

PromptSegment bos() { return {PromptSegment::Kind::kBos, ""}; }
PromptSegment special(std::string text) { return {PromptSegment::Kind::kSpecial, std::move(text)}; }
PromptSegment text(std::string t) { return {PromptSegment::Kind::kText, std::move(t)}; }

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// The literal default system message of a ChatML template: the text after a
// '<|im_start|>system\n' that runs to '<|im_end|>' without leaving the string literal.
std::optional<std::string> chatml_default_system(std::string_view jinja) {
  for (std::string_view marker : {std::string_view("<|im_start|>system\\n"), std::string_view("<|im_start|>system\n")}) {
    std::size_t at = 0;
    while ((at = jinja.find(marker, at)) != std::string_view::npos) {
      at += marker.size();
      const auto end = jinja.find("<|im_end|>", at);
      if (end == std::string_view::npos) break;
      const auto literal = jinja.substr(at, end - at);
      if (literal.find_first_of("'\"{}+") == std::string_view::npos) return std::string(literal);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string python_strip(std::string_view text) {
  const std::u32string cps = utf8_to_u32(text);
  std::size_t begin = 0, end = cps.size();
  while (begin < end && py_isspace(cps[begin])) ++begin;
  while (end > begin && py_isspace(cps[end - 1])) --end;
  return u32_to_utf8(std::u32string_view(cps).substr(begin, end - begin));
}

std::vector<PromptSegment> render_chat(const ChatTemplate& chat, std::string_view prompt) {
  const std::string p(prompt);
  switch (chat.kind) {
    case ChatTemplateKind::kNone:
      return {bos(), text(p)};
    case ChatTemplateKind::kLlama2:
      return {bos(), text("[INST] " + python_strip(prompt) + " [/INST]")};
    case ChatTemplateKind::kLlama2LongBench:
      return {bos(), text("[INST]" + p + "[/INST]")};
    case ChatTemplateKind::kMistral:
      return {bos(), text("[INST] " + p + " [/INST]")};
    case ChatTemplateKind::kLlama3:
    case ChatTemplateKind::kChatMl:
      return render_chat_messages(chat, {{"user", p}});
  }
  throw std::logic_error("render_chat: unknown template kind");
}

std::vector<PromptSegment> render_chat_messages(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                                                bool add_generation_prompt) {
  std::vector<PromptSegment> out;
  switch (chat.kind) {
    case ChatTemplateKind::kChatMl: {
      const auto turn = [&](const std::string& role, const std::string& content) {
        out.push_back(special("<|im_start|>"));
        out.push_back(text(role + "\n" + content));
        out.push_back(special("<|im_end|>"));
        out.push_back(text("\n"));
      };
      if ((messages.empty() || messages[0].role != "system") && !chat.system_prompt.empty()) {
        turn("system", chat.system_prompt);
      }
      for (const auto& m : messages) turn(m.role, m.content);
      if (add_generation_prompt) {
        out.push_back(special("<|im_start|>"));
        out.push_back(text("assistant\n"));
      }
      return out;
    }
    case ChatTemplateKind::kLlama3: {
      const auto header = [&](const std::string& role) {
        out.push_back(special("<|start_header_id|>"));
        out.push_back(text(role));
        out.push_back(special("<|end_header_id|>"));
      };
      out.push_back(special("<|begin_of_text|>"));
      for (const auto& m : messages) {
        header(m.role);
        out.push_back(text("\n\n" + python_strip(m.content)));
        out.push_back(special("<|eot_id|>"));
      }
      if (add_generation_prompt) {
        header("assistant");
        out.push_back(text("\n\n"));
      }
      return out;
    }
    default:
      if (messages.size() == 1 && messages[0].role == "user" && add_generation_prompt) {
        return render_chat(chat, messages[0].content);
      }
      throw std::invalid_argument(fmt::format("the {} chat template is rendered for a single user message only",
                                              chat_template_name(chat.kind)));
  }
}

std::string render_chat_messages_text(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                                      bool add_generation_prompt, std::string_view bos_text) {
  std::string out;
  for (const auto& s : render_chat_messages(chat, messages, add_generation_prompt)) {
    out += s.kind == PromptSegment::Kind::kBos ? std::string(bos_text) : s.text;
  }
  return out;
}

std::string render_chat_text(const ChatTemplate& chat, std::string_view prompt, std::string_view bos_text) {
  std::string out;
  for (const auto& s : render_chat(chat, prompt)) {
    out += s.kind == PromptSegment::Kind::kBos ? std::string(bos_text) : s.text;
  }
  return out;
}

std::string_view chat_template_name(ChatTemplateKind kind) {
  for (const auto& n : kNames) {
    if (n.kind == kind) return n.name;
  }
  throw std::logic_error("chat_template_name: unknown kind");
}

const std::vector<std::string>& chat_template_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& n : kNames) v.emplace_back(n.name);
    return v;
  }();
  return names;
}

ChatTemplate chat_template_from_name(std::string_view name) {
  for (const auto& n : kNames) {
    if (name == n.name) {
      ChatTemplate t{n.kind, ""};
      if (n.kind == ChatTemplateKind::kChatMl) t.system_prompt = kQwen2DefaultSystem;
      return t;
    }
  }
  throw std::invalid_argument(fmt::format("unknown chat template \"{}\"; choose one of: auto, {}", name,
                                          fmt::join(chat_template_names(), ", ")));
}

std::optional<ChatTemplate> detect_chat_template(std::string_view jinja) {
  if (contains(jinja, "<|start_header_id|>")) {
    if (contains(jinja, "Cutting Knowledge Date") || contains(jinja, "date_string")) {
      throw std::invalid_argument(
          "the model's chat template is Llama-3.1 style (it adds a dated system message), which "
          "ripplekv does not render; pass --chat-template llama3 (Llama-3 template) or none");
    }
    return ChatTemplate{ChatTemplateKind::kLlama3, ""};
  }
  if (contains(jinja, "<|im_start|>")) {
    return ChatTemplate{ChatTemplateKind::kChatMl, chatml_default_system(jinja).value_or("")};
  }
  if (contains(jinja, "[INST]")) {
    if (contains(jinja, "<<SYS>>")) {
      if (contains(jinja, "You are a helpful, respectful and honest assistant")) {
        throw std::invalid_argument(
            "the model's chat template adds Llama-2's default system prompt, which ripplekv does not "
            "render; pass --chat-template llama2 to run without it");
      }
      return ChatTemplate{ChatTemplateKind::kLlama2, ""};
    }
    return ChatTemplate{ChatTemplateKind::kMistral, ""};
  }
  return std::nullopt;
}

ChatTemplate auto_chat_template(const std::filesystem::path& model_path, std::string* why) {
  auto say = [&](std::string line) {
    if (why) *why = std::move(line);
  };
  const auto config = model_path / "tokenizer_config.json";
  if (!std::filesystem::is_directory(model_path)) {
    say(fmt::format("chat template: none ({} is not a Hugging Face directory)", model_path.string()));
    return {};
  }
  if (!std::filesystem::exists(config)) {
    say(fmt::format("chat template: none ({} not found; pass --chat-template NAME for a chat model)",
                    config.string()));
    return {};
  }
  std::ifstream in(config, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("{}: not valid JSON ({}); fix the file or pass --chat-template NAME",
                                            config.string(), json_error_text(e)));
  }
  const auto it = j.find("chat_template");
  // transformers 5 writes the template to chat_template.jinja beside tokenizer_config.json.
  const auto jinja_file = model_path / "chat_template.jinja";
  std::string source;
  std::filesystem::path source_file = config;
  if ((it == j.end() || it->is_null()) && std::filesystem::exists(jinja_file)) {
    std::ifstream jin(jinja_file, std::ios::binary);
    std::stringstream js;
    js << jin.rdbuf();
    source = js.str();
    source_file = jinja_file;
  } else if (it == j.end() || it->is_null()) {
    say(fmt::format("chat template: none ({} has no chat_template; pass --chat-template NAME for a chat model)",
                    config.string()));
    return {};
  } else if (it->is_string()) {
    source = it->get<std::string>();
  } else if (it->is_array()) {  // [{"name": "default", "template": "..."}, ...]
    for (const auto& entry : *it) {
      if (entry.value("name", "") == "default" && entry.contains("template") && entry["template"].is_string()) {
        source = entry["template"].get<std::string>();
      }
    }
  }
  std::optional<ChatTemplate> found;
  try {
    found = detect_chat_template(source);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", source_file.string(), e.what()));
  }
  if (!found) {
    throw std::invalid_argument(fmt::format(
        "{}: the chat_template is none of the templates ripplekv renders ({}); pass --chat-template NAME "
        "(or none) explicitly",
        source_file.string(), fmt::join(chat_template_names(), ", ")));
  }
  say(fmt::format("chat template: {}{} (recognised in {})", chat_template_name(found->kind),
                  found->system_prompt.empty() ? "" : fmt::format(", default system message \"{}\"", found->system_prompt),
                  source_file.string()));
  return *found;
}

}  // namespace ripplekv::eval
