// Fidelity of compressed caches against the full cache: for each text, the prompt (first P
// tokens) is prefilled and compressed, then the next C tokens of the text are fed one by one
// (teacher forcing) and each next-token distribution is compared with the full-cache one:
// KL(P_full || P_compressed) and top-1 agreement. It runs through the evaluation engine
// (FidelityTask, eval/fidelity/fidelity_task.h): each text is prefilled once for every
// variant, and each variant's per-text records are kept in its folder, so an interrupted run
// resumes where it stopped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/compress/compression.h"
#include "eval/fidelity/fidelity_task.h"
#include "models/model/causal_lm.h"
#include "models/tokenizer/token_id.h"

namespace ripplekv::eval {

// One row of a fidelity comparison: a parse_method() text at a budget, with the folder its
// per-text records go to (empty: a temporary folder, removed when run_fidelity returns).
struct FidelityVariant {
  std::string method;
  int64_t budget = 0;
  std::filesystem::path dir;
  bool same_row(const FidelityVariant& o) const { return method == o.method && budget == o.budget; }
};

// methods x budgets in that order, except that a full-cache method gives one variant (at the
// first budget): budgets do not apply to it.
std::vector<FidelityVariant> fidelity_variants(const std::vector<std::string>& methods,
                                               const std::vector<int64_t>& budgets);

// Makes a method from its spec; the default is CompressionMethod::create(spec, model.config(),
// model.identity()). A command passes CompressionMethod::create(spec, opened_model), so that a
// model-bound allocator completes its spec from the model (ripple profiles itself).
using MethodFactory = std::function<std::unique_ptr<CompressionMethod>(const CompressionSpec&)>;

// One row per variant, in their order, over the texts holding prompt + continuation tokens
// (std::invalid_argument when none does). Each variant folder's config.json names the model,
// the texts' fingerprint and the method; a folder made for other settings is an error (every
// folder is checked before any is claimed). Its "info" also records the thread count and, on
// the CPU, the CPU kernels (eval/run_arithmetic.h): resuming it with others goes on, with a
// note on stderr (claim_run_dirs, eval/run_config.h).
// `progress`: a progress line with an ETA on stderr.
std::vector<FidelityRow> run_fidelity(const CausalLM& model, const std::vector<TokenIds>& texts,
                                      const std::vector<FidelityVariant>& variants, const FidelityOptions& options,
                                      const MethodFactory& make_method = {}, bool progress = false);

// run_fidelity on fidelity_variants(methods, budgets), in a temporary folder.
std::vector<FidelityRow> run_fidelity(const CausalLM& model, const std::vector<TokenIds>& texts,
                                      const std::vector<std::string>& methods, const std::vector<int64_t>& budgets,
                                      const FidelityOptions& options, const MethodFactory& make_method = {});

}  // namespace ripplekv::eval
