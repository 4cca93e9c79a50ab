#include "eval/fidelity/fidelity.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <atomic>
#include <stdexcept>

#include "core/compress/method_presets.h"
#include "eval/engine/engine.h"
#include "eval/run_arithmetic.h"
#include "eval/run_config.h"
#include "eval/run_state.h"

namespace ripplekv::eval {

namespace fs = std::filesystem;

namespace {

// A folder removed when it goes out of scope (variants without a folder of their own).
class TemporaryFolder {
 public:
  TemporaryFolder() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() / fmt::format("ripplekv-fidelity-{}-{}", ::getpid(), counter++);
    fs::remove_all(path_);
  }
  ~TemporaryFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

std::vector<FidelityVariant> fidelity_variants(const std::vector<std::string>& methods,
                                               const std::vector<int64_t>& budgets) {
  std::vector<FidelityVariant> out;
  for (const auto& m : methods) {
    for (auto b : budgets) {
      if (parse_method(m, b).selector == "full" && b != budgets.front()) continue;  // one row: budgets do not apply
      out.push_back({m, b, {}});
    }
  }
  return out;
}

std::vector<FidelityRow> run_fidelity(const CausalLM& model, const std::vector<TokenIds>& texts,
                                      const std::vector<std::string>& methods, const std::vector<int64_t>& budgets,
                                      const FidelityOptions& o, const MethodFactory& make_method) {
  return run_fidelity(model, texts, fidelity_variants(methods, budgets), o, make_method, false);
}

std::vector<FidelityRow> run_fidelity(const CausalLM& model, const std::vector<TokenIds>& texts,
                                      const std::vector<FidelityVariant>& wanted, const FidelityOptions& o,
                                      const MethodFactory& make_method, bool progress) {
  if (o.prompt_tokens < 1 || o.continuation < 1) throw std::invalid_argument("fidelity: prompt and continuation must be >= 1");
  std::vector<TokenIds> usable;
  for (const auto& t : texts) {
    if (static_cast<int64_t>(t.size()) >= o.prompt_tokens + o.continuation) usable.push_back(t);
  }
  if (usable.empty()) {
    throw std::invalid_argument(fmt::format("fidelity: no text has the {} + {} tokens needed (prompt + continuation); "
                                            "use longer texts or lower --prompt-tokens", o.prompt_tokens, o.continuation));
  }
  const FidelityTask task(std::move(usable), o);
  std::vector<std::string> sample_ids;
  for (std::size_t k = 0; k < task.size(); ++k) sample_ids.push_back(task.sample_id(k));

  // Every method first, so that bad names or options fail before any compute.
  std::vector<std::unique_ptr<CompressionMethod>> methods;
  for (const auto& v : wanted) {
    const auto spec = parse_method(v.method, v.budget);
    methods.push_back(make_method ? make_method(spec) : CompressionMethod::create(spec, model.config(), model.identity()));
  }
  TemporaryFolder temporary;
  const auto identity = model.identity();
  // The thread count and the CPU kernels the records' bits follow, the same for every variant.
  const auto arithmetic = run_arithmetic(identity.device, identity.dtype);
  std::vector<EngineVariant> variants;
  std::vector<RunDirClaim> claims;  // one record folder per variant
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const auto& spec = methods[i]->spec();
    const fs::path dir = wanted[i].dir.empty() ? temporary.path() / variant_folder(wanted[i].method, spec) : wanted[i].dir;
    nlohmann::ordered_json run;
    run["kind"] = "fidelity";
    run["model"] = identity.fingerprint;
    run["dtype"] = identity.dtype;
    run["prompt_tokens"] = o.prompt_tokens;
    run["continuation"] = o.continuation;
    run["texts"] = task.size();
    run["texts_fingerprint"] = task.fingerprint();
    run["method"] = {{"selector", spec.selector}, {"allocator", spec.allocator}, {"budget", spec.budget},
                     {"options", spec.options}};
    nlohmann::ordered_json info;
    info["method"] = methods[i]->describe();
    info[kMethodOptionsKey] = methods[i]->options_in_force();
    info["method_text"] = wanted[i].method;
    for (const auto& [key, value] : arithmetic.items()) info[key] = value;
    claims.push_back({dir, std::move(run), std::move(info)});
    variants.push_back({methods[i]->describe(), dir, methods[i].get()});
  }
  // Every folder is checked before any is claimed or noted: a refusal leaves none changed.
  claim_run_dirs(claims, {}, "ripplekv_fidelity_variant");
  EngineOptions eo;
  eo.progress = progress;
  run_task(model, task, variants, eo);
  std::vector<FidelityRow> rows;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    rows.push_back(fidelity_row(wanted[i].method, wanted[i].budget, prediction_path(variants[i].out_dir, task.name(), Shard{}),
                                sample_ids));
    rows.back().options_in_force = methods[i]->options_in_force();
  }
  return rows;
}

}  // namespace ripplekv::eval
