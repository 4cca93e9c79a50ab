#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "eval/chat_template.h"
#include "eval/model_presets.h"
#include "../eval_test_paths.h"

using namespace ripplekv::eval;

TEST_CASE("python_strip strips Unicode whitespace like str.strip()", "[eval][chat]") {
  CHECK(python_strip("  a b \n") == "a b");
  CHECK(python_strip("\u3000x\u2003\u00a0") == "x");
  CHECK(python_strip("\u200bx") == "\u200bx");  // zero-width space is not whitespace in Python
  CHECK(python_strip("") == "");
}

TEST_CASE("chat template names: all listed, unknown ones an error naming the choices", "[eval][chat]") {
  for (const auto& name : chat_template_names()) CHECK(chat_template_name(chat_template_from_name(name).kind) == name);
  CHECK(chat_template_from_name("chatml").system_prompt == "You are a helpful assistant.");
  CHECK_THROWS_WITH(chat_template_from_name("vicuna"), Catch::Contains("llama2") && Catch::Contains("chatml"));
}

TEST_CASE("the official LongBench llama2 build_chat has no spaces and no strip", "[eval][chat]") {
  CHECK(render_chat_text(chat_template_from_name("llama2-longbench"), " q ") == "<s>[INST] q [/INST]");
  CHECK(render_chat_text(chat_template_from_name("none"), " q ") == "<s> q ");
}

TEST_CASE("detect_chat_template recognises the models' templates", "[eval][chat]") {
  const std::string llama2 =
      "{% if messages[0]['role'] == 'system' %}...{% set content = '<<SYS>>\\n' + system_message %}..."
      "{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}";
  const std::string mistral = "{{ bos_token }}{% for message in messages %}{{ '[INST] ' + message['content'] + ' [/INST]' }}";
  const std::string llama3 = "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' %}";
  const std::string llama31 = "{%- if not date_string is defined %}<|start_header_id|>Cutting Knowledge Date";
  const std::string qwen2 =
      "{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are a helpful "
      "assistant.<|im_end|>\\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']}}";
  const std::string qwen25 =
      "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}{%- else %}{{- '<|im_start|>system\\nYou "
      "are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}";
  CHECK(detect_chat_template(llama2)->kind == ChatTemplateKind::kLlama2);
  CHECK(detect_chat_template(mistral)->kind == ChatTemplateKind::kMistral);
  CHECK(detect_chat_template(llama3)->kind == ChatTemplateKind::kLlama3);
  CHECK_THROWS_WITH(detect_chat_template(llama31), Catch::Contains("Llama-3.1"));
  const auto q2 = detect_chat_template(qwen2);
  REQUIRE(q2);
  CHECK(q2->kind == ChatTemplateKind::kChatMl);
  CHECK(q2->system_prompt == "You are a helpful assistant.");
  CHECK(detect_chat_template(qwen25)->system_prompt ==
        "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
  CHECK_FALSE(detect_chat_template("{{ messages[0]['content'] }}"));
}

TEST_CASE("auto chat template: tokenizer_config.json of a HF directory, none otherwise", "[eval][chat]") {
  const auto dir = test::scratch_dir("chat_auto");
  std::string why;
  CHECK(auto_chat_template(dir, &why).kind == ChatTemplateKind::kNone);
  CHECK(why.find("tokenizer_config.json") != std::string::npos);
  {
    std::ofstream(dir / "tokenizer_config.json")
        << R"({"chat_template": "{{ bos_token }}{% for m in messages %}{{ '[INST] ' + m['content'] + ' [/INST]' }}{% endfor %}"})";
  }
  CHECK(auto_chat_template(dir, &why).kind == ChatTemplateKind::kMistral);
  CHECK(why.find("mistral") != std::string::npos);
  { std::ofstream(dir / "tokenizer_config.json") << R"({"chat_template": "{{ messages }}"})"; }
  CHECK_THROWS_WITH(auto_chat_template(dir), Catch::Contains("--chat-template"));
  CHECK(auto_chat_template(std::string(RIPPLEKV_SHARED_DATA) + "/stories260K/stories260K.bin").kind ==
        ChatTemplateKind::kNone);
}

TEST_CASE("model presets: the papers' max input lengths, matched from model paths", "[eval][presets]") {
  CHECK(find_model_preset("llama2-7b-chat-4k").max_input_tokens == 3500);
  CHECK(find_model_preset("llama2-chat-3950").max_input_tokens == 3950);
  CHECK(find_model_preset("llama3-8b-instruct").max_input_tokens == 7950);
  CHECK(find_model_preset("mistral-7b-instruct-v0.2").max_input_tokens == 31500);
  CHECK_THROWS_WITH(find_model_preset("gpt"), Catch::Contains("mistral-7b-instruct-v0.2"));
  CHECK(preset_for_model_path("/models/Llama-2-7b-chat-hf")->name == "llama2-7b-chat-4k");
  CHECK(preset_for_model_path("/models/Meta-Llama-3-8B-Instruct/")->name == "llama3-8b-instruct");
  CHECK(preset_for_model_path("hub/Mistral-7B-Instruct-v0.2")->max_input_tokens == 31500);
  CHECK_FALSE(preset_for_model_path("/models/Meta-Llama-3.1-8B-Instruct"));
  CHECK_FALSE(preset_for_model_path("stories260K.bin"));
  // The official LongBench config agrees where it has the model.
  const auto official = nlohmann::json::parse(test::read_text(test::longbench_data_dir() / "config" / "model2maxlen.json"));
  CHECK(official.at("llama2-7b-chat-4k").get<long long>() == find_model_preset("llama2-7b-chat-4k").max_input_tokens);
  const auto adakv =
      nlohmann::json::parse(test::read_text(test::longbench_data_dir() / "config" / "model2maxlen.adakv_kvpapers.json"));
  CHECK(adakv.at("mistral-7B-instruct-v0.2").get<long long>() ==
        find_model_preset("mistral-7b-instruct-v0.2").max_input_tokens);
}

// The real models' own templates (scripts/make_chat_template_fixtures.py: transformers'
// apply_chat_template over conversations with and without a system message).
TEST_CASE("SmolLM2 and Qwen2.5-Coder chat templates render exactly as HF apply_chat_template", "[eval][chat][real]") {
  std::ifstream in(test::fixtures_dir() / "real" / "chat_templates.json");
  REQUIRE(in);
  const auto fixture = nlohmann::json::parse(in);
  REQUIRE(fixture["models"].size() == 2);
  for (const auto& [name, model] : fixture["models"].items()) {
    const auto chat = detect_chat_template(model["chat_template"].get<std::string>());
    REQUIRE(chat);
    CHECK(chat->kind == ChatTemplateKind::kChatMl);
    int with_system = 0, without_system = 0;
    for (const auto& c : model["cases"]) {
      std::vector<ChatMessage> messages;
      for (const auto& m : c["messages"]) messages.push_back({m["role"], m["content"]});
      (messages[0].role == "system" ? with_system : without_system)++;
      INFO(name << ": " << c["messages"].dump() << " add_generation_prompt=" << c["add_generation_prompt"]);
      CHECK(render_chat_messages_text(*chat, messages, c["add_generation_prompt"].get<bool>()) ==
            c["rendered"].get<std::string>());
    }
    CHECK(with_system >= 4);
    CHECK(without_system >= 4);
  }
  // Each template's own default system message was recognised.
  CHECK(detect_chat_template(fixture["models"]["smollm2-135m-instruct"]["chat_template"].get<std::string>())
            ->system_prompt == "You are a helpful AI assistant named SmolLM, trained by Hugging Face");
  CHECK(detect_chat_template(fixture["models"]["qwen2.5-coder-1.5b-instruct"]["chat_template"].get<std::string>())
            ->system_prompt == "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
  // Templates other than chatml and llama3 render one user message only.
  CHECK_THROWS_WITH(render_chat_messages(chat_template_from_name("mistral"), {{"system", "s"}, {"user", "u"}}),
                    Catch::Contains("single user message"));
}

TEST_CASE("auto chat template: read from chat_template.jinja when tokenizer_config.json has none", "[eval][chat]") {
  const auto dir = test::scratch_dir("jinja_template");
  std::ofstream(dir / "tokenizer_config.json") << R"({"eos_token": "<|im_end|>"})";
  std::ofstream(dir / "chat_template.jinja")
      << "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ "
         "'<|im_start|>system\nBe brief.<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
         "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}";
  std::string why;
  const auto chat = auto_chat_template(dir, &why);
  CHECK(chat.kind == ChatTemplateKind::kChatMl);
  CHECK(chat.system_prompt == "Be brief.");
  CHECK_THAT(why, Catch::Contains("chat_template.jinja") && Catch::Contains("Be brief."));
}
