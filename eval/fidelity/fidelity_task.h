// Fidelity as a task of the evaluation engine: each text is a sample whose prompt is its first
// P tokens and whose forced continuation is the next C tokens. The engine prefills each text
// once for every variant and compares each variant's next-token distributions along the
// continuation with the full cache's (eval/engine/task.h); each variant's records (one JSON
// line per text in <variant>/fidelity.jsonl) then become its row of the fidelity table:
// KL(P_full || P_compressed) mean, p90 and max over all positions, and top-1 agreement.
// Resumable per (variant, text) like every engine task. Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "eval/engine/task.h"
#include "models/tokenizer/token_id.h"

namespace ripplekv::eval {

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
  // Every policy option in force (CompressionMethod::options_in_force), defaults included.
  std::map<std::string, std::string> options_in_force;
};

class FidelityTask final : public Task {
 public:
  // Every text must hold prompt_tokens + continuation tokens (std::invalid_argument otherwise).
  FidelityTask(std::vector<TokenIds> texts, FidelityOptions options);
  const std::string& name() const override { return name_; }
  std::size_t size() const override { return texts_.size(); }
  const std::string& sample_id(std::size_t k) const override { return ids_.at(k); }
  TaskPrompt prompt(std::size_t k) const override;
  TaskDecoding decoding(std::size_t k) const override;
  // Fidelity generates nothing: these two throw std::logic_error.
  std::string prediction(const TokenIds& generated, TokenId stop_token) const override;
  std::string record(std::size_t k, const std::string& prediction) const override;
  // {"_id", "positions", "kl": [per position], "top1_agree", "kv_fraction", "compressed"}
  std::string forced_record(std::size_t k, const ForcedComparison& comparison) const override;
  std::string record_key() const override { return "kl"; }
  // An FNV-1a hash of every text's prompt and continuation tokens and of the two lengths: what
  // a variant folder's records were computed on (a resumed run must match it).
  std::string fingerprint() const;

 private:
  std::string name_ = "fidelity";
  std::vector<TokenIds> texts_;
  std::vector<std::string> ids_;
  FidelityOptions options_;
};

// A variant's row from its records file (one line per sample id, in the order of
// `sample_ids`). Throws std::runtime_error naming the file when a text is missing or a line
// is damaged.
FidelityRow fidelity_row(const std::string& method, int64_t budget, const std::filesystem::path& records,
                         const std::vector<std::string>& sample_ids);

std::string fidelity_markdown(const std::vector<FidelityRow>& rows);
std::string fidelity_csv(const std::vector<FidelityRow>& rows);
// One line per (row, text): method, budget, text (0-based, in the order of the texts used),
// kl_mean, top1_agreement; `ripplekv table` reads it for confidence intervals.
std::string fidelity_texts_csv(const std::vector<FidelityRow>& rows);

}  // namespace ripplekv::eval
