// Fidelity of compressed caches against the full cache: for each text, the prompt (first P
// tokens) is prefilled and compressed, then the next C tokens of the text are fed one by one
// (teacher forcing) and each next-token distribution is compared with the full-cache one:
// KL(P_full || P_compressed) and top-1 agreement.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/compress/compression.h"
#include "models/llama/llama_model.h"

namespace ripplekv {

struct FidelityOptions {
  int64_t prompt_tokens = 512;
  int64_t continuation = 64;
};

struct FidelityRow {
  std::string method;   // as given, e.g. "pyramidkv" or "snapkv:ripple@ratio=4"
  int64_t budget = 0;
  int64_t texts = 0;
  int64_t positions = 0;
  double kl_mean = 0, kl_p90 = 0, kl_max = 0;
  double top1_agreement = 0;
  double kv_fraction = 0;  // mean kept / full prompt KV bytes
  int64_t compressed_texts = 0;
  // Per text, in the order of the texts: the mean KL over its positions and its top-1
  // agreement (the units a bootstrap over texts resamples; their mean is kl_mean, since every
  // text has the same number of positions).
  std::vector<double> text_kl_mean, text_top1;
};

// `methods` are parse_method() texts; each (method, budget) gives one row. Each text is
// prefilled once for all of them. `progress(done, total)` is called after each text.
std::vector<FidelityRow> run_fidelity(const LlamaModel& model, const std::vector<std::vector<int64_t>>& texts,
                                      const std::vector<std::string>& methods, const std::vector<int64_t>& budgets,
                                      const FidelityOptions& options,
                                      const std::function<CompressionSpec(CompressionSpec)>& resolve = {},
                                      const std::function<void(std::size_t, std::size_t)>& progress = {});

std::string fidelity_markdown(const std::vector<FidelityRow>& rows);
std::string fidelity_csv(const std::vector<FidelityRow>& rows);
// One line per (row, text): method, budget, text (0-based, in the order of the texts used),
// kl_mean, top1_agreement; `ripplekv table` reads it for confidence intervals.
std::string fidelity_texts_csv(const std::vector<FidelityRow>& rows);

}  // namespace ripplekv
