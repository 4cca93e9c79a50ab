#include "core/compress/fidelity.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/compress/method_presets.h"
#include "core/compress/observation_share.h"
#include "core/ripple/kl_divergence.h"

namespace ripplekv {

namespace {

// Next-token logits [C - 1, V] along the continuation after the prompt, fed one token at a
// time (teacher forcing) into `cache`, which holds the (possibly compressed) prompt.
at::Tensor continuation_logits(const LlamaModel& model, const std::vector<int64_t>& ids, const FidelityOptions& o,
                               KVCache& cache) {
  const int64_t p = o.prompt_tokens, c = o.continuation;
  std::vector<at::Tensor> out;
  for (int64_t i = 0; i + 1 < c; ++i) {
    auto tok = at::tensor(std::vector<int64_t>{ids[static_cast<size_t>(p + i)]}, at::kLong).view({1, 1});
    out.push_back(model.decode(tok, cache, nullptr)[0][0]);
  }
  return out.empty() ? at::Tensor() : at::stack(out);
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

std::vector<FidelityRow> run_fidelity(const LlamaModel& model, const std::vector<std::vector<int64_t>>& texts,
                                      const std::vector<std::string>& methods, const std::vector<int64_t>& budgets,
                                      const FidelityOptions& o,
                                      const std::function<CompressionSpec(CompressionSpec)>& resolve,
                                      const std::function<void(std::size_t, std::size_t)>& progress) {
  if (o.prompt_tokens < 1 || o.continuation < 1) throw std::invalid_argument("fidelity: prompt and continuation must be >= 1");
  std::vector<const std::vector<int64_t>*> usable;
  for (const auto& t : texts) {
    if (static_cast<int64_t>(t.size()) >= o.prompt_tokens + o.continuation) usable.push_back(&t);
  }
  if (usable.empty()) {
    throw std::invalid_argument(fmt::format("fidelity: no text has the {} + {} tokens needed (prompt + continuation); "
                                            "use longer texts or lower --prompt-tokens", o.prompt_tokens, o.continuation));
  }
  // Build every method first so that bad names or options fail before any compute.
  struct Variant {
    std::string label;
    int64_t budget;
    std::unique_ptr<CompressionMethod> method;
    std::vector<double> kl;
    std::vector<double> text_kl, text_top1;
    int64_t agree = 0;
    double kv_fraction = 0;
    int64_t compressed = 0;
  };
  std::vector<Variant> variants;
  for (const auto& m : methods) {
    for (auto b : budgets) {
      auto spec = parse_method(m, b);
      if (spec.selector == "full" && b != budgets.front()) continue;  // one row: budgets do not apply
      if (resolve) spec = resolve(spec);
      variants.push_back({m, b, CompressionMethod::create(spec, model.config(), model.identity()), {}, {}, {}, 0, 0, 0});
    }
  }
  // Every method compresses only after the prefill, and only observes it: so each text is
  // prefilled once with every method's observers attached, and each method then compresses its
  // own copy of the full cache. Results equal separate runs exactly (tested).
  std::size_t done = 0;
  for (const auto* ids : usable) {
    const int64_t p = o.prompt_tokens;
    ObservationShare share;  // each distinct observation computed once for all variants
    HookRegistry hooks;
    std::vector<std::unique_ptr<CompressionSession>> sessions;
    for (auto& v : variants) sessions.push_back(v.method->begin(hooks, p, &share));
    KVCache full_cache(model.num_layers());
    full_cache.set_headroom(o.continuation);
    auto prompt = at::tensor(std::vector<int64_t>(ids->begin(), ids->begin() + p), at::kLong).view({1, p});
    const auto first = model.prefill(prompt, full_cache, &hooks)[0][0];  // before any compression
    const auto with_first = [&](const at::Tensor& rest) {
      return rest.defined() ? at::cat({first.unsqueeze(0), rest}) : first.unsqueeze(0);
    };
    KVCache reference = full_cache.clone();
    const auto full = with_first(continuation_logits(model, *ids, o, reference));
    if (!at::isfinite(full).all().item<bool>()) {
      throw std::runtime_error("fidelity: the model produced NaN or Inf logits with the full cache (KL would be "
                               "meaningless); check the weights and --dtype");
    }
    const auto full_top = full.argmax(-1);
    for (std::size_t i = 0; i < variants.size(); ++i) {
      auto& v = variants[i];
      KVCache cache = full_cache.clone();
      const CompressionReport report = sessions[i]->finish(cache);
      const auto logits = with_first(continuation_logits(model, *ids, o, cache));
      auto kl = kl_divergence(full, logits, KlDirection::Forward).contiguous().cpu();
      v.kl.insert(v.kl.end(), kl.data_ptr<double>(), kl.data_ptr<double>() + kl.numel());
      double text_kl = 0;
      for (int64_t j = 0; j < kl.numel(); ++j) text_kl += kl.data_ptr<double>()[j] / static_cast<double>(kl.numel());
      const auto agree = (logits.argmax(-1) == full_top).sum().item<int64_t>();
      v.text_kl.push_back(text_kl);
      v.text_top1.push_back(static_cast<double>(agree) / static_cast<double>(kl.numel()));
      v.agree += agree;
      v.kv_fraction += report.full_bytes ? static_cast<double>(report.kept_bytes) / static_cast<double>(report.full_bytes) : 1.0;
      v.compressed += report.compressed ? 1 : 0;
    }
    if (progress) progress(++done, usable.size());
  }
  std::vector<FidelityRow> rows;
  for (const auto& v : variants) {
    FidelityRow r;
    r.method = v.label;
    r.budget = v.budget;
    r.texts = static_cast<int64_t>(usable.size());
    r.positions = static_cast<int64_t>(v.kl.size());
    for (double x : v.kl) r.kl_mean += x / static_cast<double>(v.kl.size());
    r.kl_p90 = percentile(v.kl, 0.9);
    r.kl_max = v.kl.empty() ? 0 : *std::max_element(v.kl.begin(), v.kl.end());
    r.top1_agreement = static_cast<double>(v.agree) / static_cast<double>(v.kl.size());
    r.kv_fraction = v.kv_fraction / static_cast<double>(usable.size());
    r.compressed_texts = v.compressed;
    r.text_kl_mean = v.text_kl;
    r.text_top1 = v.text_top1;
    rows.push_back(r);
  }
  return rows;
}

std::string fidelity_markdown(const std::vector<FidelityRow>& rows) {
  std::string s = "| method | budget | KL mean | KL p90 | KL max | top-1 agree | KV kept |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    s += fmt::format("| {} | {} | {:.4f} | {:.4f} | {:.4f} | {:.3f} | {:.1f}% |\n", r.method,
                     r.method == "full" ? std::string("-") : std::to_string(r.budget), r.kl_mean,
                     r.kl_p90, r.kl_max, r.top1_agreement, 100 * r.kv_fraction);
  }
  return s;
}

std::string fidelity_csv(const std::vector<FidelityRow>& rows) {
  std::string s = "method,budget,texts,positions,kl_mean,kl_p90,kl_max,top1_agreement,kv_fraction,compressed_texts\n";
  for (const auto& r : rows) {
    s += fmt::format("\"{}\",{},{},{},{:.9g},{:.9g},{:.9g},{:.6f},{:.6f},{}\n", r.method, r.budget, r.texts, r.positions,
                     r.kl_mean, r.kl_p90, r.kl_max, r.top1_agreement, r.kv_fraction, r.compressed_texts);
  }
  return s;
}

std::string fidelity_texts_csv(const std::vector<FidelityRow>& rows) {
  std::string s = "method,budget,text,kl_mean,top1_agreement\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.text_kl_mean.size(); ++i) {
      s += fmt::format("\"{}\",{},{},{:.9g},{:.9g}\n", r.method, r.budget, i, r.text_kl_mean[i], r.text_top1[i]);
    }
  }
  return s;
}

}  // namespace ripplekv
