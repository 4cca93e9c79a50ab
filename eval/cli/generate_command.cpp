// `ripplekv generate`: greedy generation from a prompt, with tokens/s.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "eval/cli/command.h"
#include "core/ripple/profile_runner.h"
#include "eval/chat_template.h"
#include "eval/prompt_builder.h"
#include "models/generation/generate.h"
#include "models/loaders/load_model.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::cli {

int run_generate(const std::vector<std::string>& args) {
  RuntimeArgs rt;
  MethodArgs ma;
  std::string prompt, chat_template = "none";
  int64_t max_new = 128;
  bool no_bos = false, show_ids = false;
  po::options_description desc;
  add_runtime_options(desc, rt);
  add_method_options(desc, ma);
  desc.add_options()("prompt", po::value<std::string>(&prompt)->default_value(""),
                     "prompt text (empty: start from BOS alone)")(
      "max-new-tokens", po::value<int64_t>(&max_new)->default_value(128), "tokens to generate at most")(
      "no-bos", po::bool_switch(&no_bos), "do not prepend the BOS token")(
      "chat-template", po::value<std::string>(&chat_template)->default_value(chat_template),
      "render the prompt as one user message: auto (the model folder's template) | none | llama2 | mistral | llama3 "
      "| chatml")(
      "show-ids", po::bool_switch(&show_ids), "also print the generated token ids");
  po::variables_map vm;
  if (!parse_options("generate", args, desc, vm)) return 0;
  apply_threads(rt.threads);

  LoadOptions lo{parse_dtype(rt.dtype), parse_device(rt.device)};
  auto model = load_model(rt.model, lo);
  Tokenizer tok(find_tokenizer(rt.model, rt.tokenizer, static_cast<int>(model->config().vocab_size)));
  std::vector<int> ids32;
  if (chat_template == "none") {
    ids32 = tok.encode(prompt, !no_bos);
  } else {
    std::string why;
    const auto chat = chat_template == "auto" ? eval::auto_chat_template(rt.model, &why)
                                              : eval::chat_template_from_name(chat_template);
    if (!why.empty()) std::cerr << why << "\n";
    ids32 = eval::encode_segments(eval::render_chat(chat, prompt), tok, eval::chat_template_name(chat.kind));
  }
  if (ids32.empty()) throw std::invalid_argument("the prompt encodes to no tokens; give --prompt or drop --no-bos");
  const int64_t context = model->config().max_position_embeddings;
  if (context > 0 && static_cast<int64_t>(ids32.size()) + max_new > context) {
    throw UsageError(fmt::format("the prompt's {} tokens + --max-new-tokens {} exceed the model's {}-token context; "
                                 "shorten the prompt or lower --max-new-tokens", ids32.size(), max_new, context));
  }
  std::vector<int64_t> ids(ids32.begin(), ids32.end());

  GenerateOptions go;
  go.max_new_tokens = max_new;
  go.stop_tokens = model->config().eos_token_ids;
  if (model->config().model_type == "llama2c") go.stop_tokens.push_back(tok.bos_id());  // run.c stops on BOS
  const auto spec = resolve_ripple_profile(to_spec(ma), *model, tok, rt.model);
  auto method = CompressionMethod::create(spec, model->config(), model->identity());
  KVCache cache(model->num_layers());
  HookRegistry hooks;
  auto session = method->begin(hooks, static_cast<int64_t>(ids.size()));
  CompressionReport report;
  auto r = greedy_generate(*model, ids, cache, go, &hooks, [&](KVCache& c) { report = session->finish(c); });

  std::vector<int> out(r.tokens.begin(), r.tokens.end());
  std::cout << prompt << tok.decode(out) << "\n";
  if (show_ids) std::cout << fmt::format("ids: {}\n", fmt::join(r.tokens, " "));
  std::cerr << fmt::format(
      "[{} prompt tokens, {} generated{}] prefill {:.1f} tok/s, decode {:.1f} tok/s, KV cache {:.1f} KiB\n",
      r.prompt_tokens, r.tokens.size(), r.stopped ? ", stopped" : "",
      r.prefill_seconds > 0 ? r.prompt_tokens / r.prefill_seconds : 0.0, r.decode_tokens_per_second(),
      cache.total_bytes() / 1024.0);
  std::cerr << fmt::format("method: {}\n", method->describe());
  if (report.compressed) {
    std::cerr << fmt::format("kept prompt tokens per layer: {}\n", fmt::join(report.kept, " "));
    std::cerr << fmt::format("KV bytes after compression: {:.1f} KiB of {:.1f} KiB full ({:.1f}%), compression took "
                             "{:.1f} ms ({:.1f}% of prefill)\n",
                             report.kept_bytes / 1024.0, report.full_bytes / 1024.0,
                             100.0 * report.kept_bytes / std::max<int64_t>(report.full_bytes, 1), r.compress_seconds * 1e3,
                             100.0 * r.compress_seconds / std::max(r.prefill_seconds, 1e-9));
  } else {
    std::cerr << fmt::format("not compressed ({} prompt tokens, budget {})\n", r.prompt_tokens, ma.budget);
  }
  return 0;
}

}  // namespace ripplekv::cli
