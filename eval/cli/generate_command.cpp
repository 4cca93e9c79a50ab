// `ripplekv generate`: greedy generation from a prompt, with tokens/s.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "eval/cli/command.h"
#include "core/compress/compression.h"
#include "eval/chat_template.h"
#include "eval/prompt_builder.h"
#include "models/generation/generate.h"
#include "models/loaders/opened_model.h"
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

  const OpenedModel opened(rt.model, rt.tokenizer, {parse_dtype(rt.dtype), parse_device(rt.device)});
  const CausalLM& model = opened.model();
  const Tokenizer& tok = opened.tokenizer();
  TokenIds ids;
  if (chat_template == "none") {
    ids = tok.encode(prompt, !no_bos);
  } else {
    std::string why;
    const auto chat = chat_template == "auto" ? eval::auto_chat_template(rt.model, &why)
                                              : eval::chat_template_from_name(chat_template);
    if (!why.empty()) std::cerr << why << "\n";
    ids = eval::encode_segments(eval::render_chat(chat, prompt), tok, eval::chat_template_name(chat.kind));
  }
  if (ids.empty()) throw std::invalid_argument("the prompt encodes to no tokens; give --prompt or drop --no-bos");
  const int64_t context = model.config().max_position_embeddings;
  if (context > 0 && static_cast<int64_t>(ids.size()) + max_new > context) {
    throw UsageError(fmt::format("the prompt's {} tokens + --max-new-tokens {} exceed the model's {}-token context; "
                                 "shorten the prompt or lower --max-new-tokens", ids.size(), max_new, context));
  }

  GenerateOptions go;
  go.max_new_tokens = max_new;
  go.stop_tokens = opened.stop_tokens();
  auto method = CompressionMethod::create(to_spec(ma), opened);
  KVCache cache(model.num_layers());
  auto session = method->begin(static_cast<int64_t>(ids.size()));
  auto r = greedy_generate(model, ids, cache, go, session.get());
  const CompressionReport& report = session->report();

  std::cout << prompt << tok.decode(r.tokens) << "\n";
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
