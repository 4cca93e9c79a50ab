#include "core/compress/compression.h"

#include "models/loaders/opened_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <iostream>
#include <set>
#include <numeric>
#include <stdexcept>

#include "core/compress/budget_math.h"
#include "core/compress/observation_share.h"
#include "core/compress/registry.h"

namespace ripplekv {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct MethodParts {
  CompressionSpec spec;
  int64_t num_layers = 0;
  int64_t group_size = 1;
  std::unique_ptr<TokenSelector> selector;
  std::unique_ptr<LayerBudgetAllocator> allocator;
  std::map<std::string, std::string> options_in_force;  // every option read, defaults included
  std::vector<std::string> notes;
  // What the selector's scores and the allocator's statistics depend on besides the prompt
  // and the attention window (the keys of an ObservationShare): name and resolved options.
  std::string selector_key, allocator_key;
};

void fill_bytes(const KVCache& cache, CompressionReport& r) {
  r.layer_bytes.clear();
  r.kept.clear();
  r.kept_bytes = cache.total_bytes();
  for (int64_t l = 0; l < cache.num_layers(); ++l) {
    r.layer_bytes.push_back(cache.bytes(l));
    r.kept.push_back(cache.length(l));
  }
}

// Session for a prompt that is not compressed (full cache, or prompt <= budget).
class PassThroughSession final : public CompressionSession {
 public:
  CompressionReport finish(KVCache& cache, const CausalLM& /*model*/) override {
    CompressionReport r;
    r.prompt_tokens = cache.length(0);
    fill_bytes(cache, r);
    r.full_bytes = r.kept_bytes;
    return r;
  }
};

class BudgetedSession final : public CompressionSession {
 public:
  BudgetedSession(const MethodParts& m, HookRegistry& hooks, int64_t prompt_len, ObservationShare* share)
      : m_(m), prompt_len_(prompt_len), shared_(share != nullptr) {
    const auto sel = m.selector->needs();
    auto alloc = m.allocator->needs();
    if (alloc.window_probs < 0) alloc.window_probs = m.selector->window() > 0 ? m.selector->window() : 32;
    // The window hook's size is the same whether or not observations are shared, so that the
    // probabilities (and everything computed from them) are bit-identical.
    const int64_t w = std::max(sel.window_probs, alloc.window_probs);
    const int64_t n = sel.column_sum_queries < 0 ? prompt_len : sel.column_sum_queries;
    const auto slots = [&](const std::string& key, bool observes) {
      if (share == nullptr || !observes) {
        return std::make_pair(std::make_shared<ObservationShare::PerLayer>(static_cast<size_t>(m.num_layers)), true);
      }
      return share->entry(key, m.num_layers);
    };
    bool fill_scores = true, fill_stats = true;
    std::tie(scores_, fill_scores) =
        slots(fmt::format("selector {} | window {} of {} | sums over {} | prompt {}", m.selector_key,
                          sel.window_probs, w, sel.column_sum_queries != 0 ? n : 0, prompt_len),
              sel.window_probs > 0 || sel.column_sum_queries != 0);
    std::tie(stats_, fill_stats) =
        slots(fmt::format("allocator {} | window {} of {} | hidden {} | probe {} | prompt {}", m.allocator_key,
                          alloc.window_probs, w, alloc.hidden_states, alloc.probe_tokens, prompt_len),
              alloc.window_probs > 0 || alloc.hidden_states || alloc.probe_tokens > 0);
    const int64_t sel_w = fill_scores ? sel.window_probs : 0;
    const int64_t alloc_w = fill_stats ? alloc.window_probs : 0;
    if (sel_w > 0 || alloc_w > 0) {
      handles_.push_back(hooks.add_window(HookSite::AttnWindow, HookRegistry::kAllLayers, w,
                                          [this, sel_w, alloc_w](const HookContext& ctx, at::Tensor& probs) {
                                            on_window(ctx.layer, probs, sel_w, alloc_w);
                                          }));
    }
    if (fill_scores && sel.column_sum_queries != 0) {
      handles_.push_back(hooks.add_window(HookSite::AttnColumnSum, HookRegistry::kAllLayers, n,
                                          [this](const HookContext& ctx, at::Tensor& sums) {
                                            LayerObservation obs = observation(ctx.layer);
                                            obs.column_sums = sums;
                                            (*scores_)[ctx.layer] = m_.selector->score(obs);
                                          }));
    }
    if (alloc.probe_tokens > 0) {
      // The probe runs in finish(), by the first session of a shared entry to get there; each
      // session keeps the few layer-0 inputs it would replay (a copy, not a view of the prompt's).
      if (alloc.probe_tokens >= prompt_len) {
        throw std::invalid_argument(fmt::format("{}: the prompt has {} tokens; the allocator replays its last {} and "
                                                "perturbs the ones before, so it needs more; use a longer prompt or a "
                                                "smaller kl_positions= option",
                                                m.allocator->name(), prompt_len, alloc.probe_tokens));
      }
      probe_tokens_ = alloc.probe_tokens;
      handles_.push_back(hooks.add(HookSite::LayerInput, 0, [this](const HookContext& ctx, at::Tensor& h) {
        if (ctx.phase == Phase::Prefill && h.size(1) >= probe_tokens_) {
          probe_input_ = h.narrow(1, h.size(1) - probe_tokens_, probe_tokens_).clone();
        }
      }));
    }
    if (fill_stats && alloc.hidden_states) {
      hidden_in_.resize(static_cast<size_t>(m.num_layers));
      handles_.push_back(hooks.add(HookSite::LayerInput, HookRegistry::kAllLayers,
                                   [this](const HookContext& ctx, at::Tensor& h) { hidden_in_[ctx.layer] = h; }));
      handles_.push_back(hooks.add(HookSite::AttnResidual, HookRegistry::kAllLayers,
                                   [this](const HookContext& ctx, at::Tensor& h) {
                                     (*stats_)[ctx.layer] = m_.allocator->observe_hidden(ctx.layer, hidden_in_[ctx.layer], h);
                                     hidden_in_[ctx.layer] = at::Tensor();
                                   }));
    }
  }

  CompressionReport finish(KVCache& cache, const CausalLM& model) override {
    const double t0 = now_seconds();
    handles_.clear();  // statistics are complete; stop observing decode steps
    CompressionReport r;
    r.prompt_tokens = prompt_len_;
    r.full_bytes = cache.total_bytes();
    for (int64_t l = 0; l < m_.num_layers; ++l) {
      if (cache.length(l) != prompt_len_ || !cache.is_prefix(l)) {
        throw std::logic_error(fmt::format("compression: layer {} holds {} tokens, expected the {}-token prompt; call "
                                           "finish() right after prefill", l, cache.length(l), prompt_len_));
      }
    }
    AllocationInput in;
    in.num_layers = m_.num_layers;
    in.budget = m_.spec.budget;
    in.prompt_len = prompt_len_;
    in.window = m_.selector->window();
    in.min_per_layer = m_.selector->sinks() + m_.selector->window();
    if (probe_tokens_ > 0 && !(*stats_)[0].defined()) {
      if (!probe_input_.defined()) {
        throw std::logic_error(fmt::format("allocator {}: the prefill did not pass through the session's hooks; "
                                           "prefill with this session's hooks() before finish()",
                                           m_.allocator->name()));
      }
      const auto measured = m_.allocator->probe(PromptProbe{model, cache, probe_input_});
      if (static_cast<int64_t>(measured.size()) != m_.num_layers) {
        throw std::logic_error(fmt::format("allocator {}: probe() gave {} values for {} layers", m_.allocator->name(),
                                           measured.size(), m_.num_layers));
      }
      for (int64_t l = 0; l < m_.num_layers; ++l) (*stats_)[l] = at::scalar_tensor(measured[l], at::kDouble);
    }
    probe_input_ = at::Tensor();
    if ((*stats_)[0].defined()) {
      auto all = at::stack(*stats_).to(at::kDouble).cpu();  // one host sync for all layers
      in.stats.assign(all.data_ptr<double>(), all.data_ptr<double>() + all.numel());
    }
    const auto budgets = m_.allocator->allocate(in);
    check_budgets(budgets, in);
    for (int64_t l = 0; l < m_.num_layers; ++l) {
      at::Tensor s = (*scores_)[l];
      if (!s.defined()) {
        LayerObservation obs = observation(l);
        obs.keys = cache.keys(l);
        obs.values = cache.values(l);
        s = m_.selector->score(obs);
      }
      auto idx = select_tokens(s, budgets[l], m_.selector->sinks(), m_.selector->window());
      cache.keep(l, idx);
      if (!shared_) (*scores_)[l] = at::Tensor();  // shared scores stay for the other sessions
    }
    r.compressed = true;
    fill_bytes(cache, r);
    r.seconds = now_seconds() - t0;
    return r;
  }

 private:
  LayerObservation observation(int64_t layer) const {
    LayerObservation obs;
    obs.layer = layer;
    obs.prompt_len = prompt_len_;
    obs.group_size = m_.group_size;
    return obs;
  }

  void on_window(int64_t layer, const at::Tensor& probs, int64_t sel_w, int64_t alloc_w) {
    const int64_t have = probs.size(2);
    auto last = [&](int64_t w) { return probs.narrow(2, have - std::min(w, have), std::min(w, have)); };
    if (sel_w > 0) {
      LayerObservation obs = observation(layer);
      obs.window_probs = last(sel_w);
      (*scores_)[layer] = m_.selector->score(obs);
    }
    if (alloc_w > 0) (*stats_)[layer] = m_.allocator->observe_attention(layer, last(alloc_w));
  }

  void check_budgets(const std::vector<int64_t>& b, const AllocationInput& in) const {
    // Allocators promise this contract; a violation is a bug in the allocator, not bad input.
    const int64_t total = std::accumulate(b.begin(), b.end(), int64_t{0});
    bool ok = static_cast<int64_t>(b.size()) == in.num_layers &&
              (total == in.num_layers * in.budget || !m_.allocator->exact_total());
    for (auto x : b) ok = ok && x >= in.min_per_layer && x <= in.prompt_len;
    if (!ok) {
      throw std::logic_error(fmt::format("allocator {} returned [{}] (total {}), expected {} layers in [{}, {}] summing "
                                         "to {}", m_.allocator->name(), fmt::join(b, ", "), total, in.num_layers,
                                         in.min_per_layer, in.prompt_len, in.num_layers * in.budget));
    }
  }

  const MethodParts& m_;
  int64_t prompt_len_;
  bool shared_ = false;
  std::shared_ptr<ObservationShare::PerLayer> scores_;  // per layer; shared between sessions when keys match
  std::shared_ptr<ObservationShare::PerLayer> stats_;
  std::vector<at::Tensor> hidden_in_;
  int64_t probe_tokens_ = 0;
  at::Tensor probe_input_;  // layer-0 input of the last probe_tokens_ prompt tokens
  std::vector<HookHandle> handles_;
};

class ComposedMethod final : public CompressionMethod {
 public:
  explicit ComposedMethod(MethodParts parts) : m_(std::move(parts)) {}

  std::unique_ptr<CompressionSession> begin(HookRegistry& hooks, int64_t prompt_len,
                                            ObservationShare* share) const override {
    if (prompt_len <= 0) throw std::invalid_argument("compression: empty prompt");
    if (!m_.selector->keeps_all() && m_.selector->window() > prompt_len) {
      throw std::invalid_argument(fmt::format(
          "{}: the prompt has {} tokens, fewer than the observation window ({}); use a longer prompt or a smaller "
          "window= option", m_.selector->name(), prompt_len, m_.selector->window()));
    }
    std::unique_ptr<CompressionSession> session;
    if (m_.selector->keeps_all() || prompt_len <= m_.spec.budget) session = std::make_unique<PassThroughSession>();
    else session = std::make_unique<BudgetedSession>(m_, hooks, prompt_len, share);
    bind_session(*session, hooks);
    return session;
  }
  const CompressionSpec& spec() const override { return m_.spec; }
  const std::vector<std::string>& notes() const override { return m_.notes; }
  const std::map<std::string, std::string>& options_in_force() const override { return m_.options_in_force; }
  std::string describe() const override {
    if (m_.selector->keeps_all()) return "full cache";
    return fmt::format("{} x {}, budget {}{}", m_.selector->name(), m_.allocator->name(), m_.spec.budget,
                       m_.options_in_force.empty() ? "" : " (" + format_options(m_.options_in_force) + ")");
  }

 private:
  MethodParts m_;
};

}  // namespace

std::unique_ptr<CompressionSession> CompressionMethod::begin(int64_t prompt_len) const {
  auto hooks = std::make_unique<HookRegistry>();
  auto session = begin(*hooks, prompt_len);
  const HookRegistry* registry = hooks.get();
  session->bind_hooks(registry, std::move(hooks));
  return session;
}

void CompressionMethod::check(const CompressionSpec& spec) {
  PolicyOptions options(spec.options);
  options.validate_only = true;
  const auto selector = make_selector(spec.selector, options);
  if (!selector->keeps_all()) (void)make_allocator(spec.allocator, options);
  options.check_all_used(fmt::format("--selector {} --allocator {}", spec.selector, spec.allocator));
}

std::unique_ptr<CompressionMethod> CompressionMethod::create(const CompressionSpec& given, const OpenedModel& model) {
  const AllocatorEntry* entry = find_allocator_entry(given.allocator);
  if (entry == nullptr || !entry->prepare) {  // unknown names fail in create
    // Files a policy reads are checked against the weights when they are loaded anyway.
    return create(given, model.config(), model.loaded() ? model.identity() : ModelIdentity{});
  }
  return create(entry->prepare(given, model), model.config(), model.identity());
}

std::unique_ptr<CompressionMethod> CompressionMethod::create(const CompressionSpec& spec, const ModelConfig& model,
                                                            const ModelIdentity& identity) {
  MethodParts m;
  m.spec = spec;
  m.num_layers = model.num_layers;
  m.group_size = model.num_heads / model.num_kv_heads;
  PolicyOptions options(spec.options);
  options.model_layers = model.num_layers;
  options.model = identity;
  m.selector = make_selector(spec.selector, options);
  m.selector_key = spec.selector + " (" + options.resolved() + ")";  // the options it read
  if (!m.selector->keeps_all()) {
    m.allocator = make_allocator(spec.allocator, options);
    m.allocator_key = spec.allocator + " (" + options.resolved() + ")";
    validate_budget_request(model.num_layers, spec.budget, m.selector->sinks() + m.selector->window(),
                            fmt::format("{} x {}", spec.selector, spec.allocator));
  }
  options.check_all_used(fmt::format("--selector {} --allocator {}", spec.selector, spec.allocator));
  m.options_in_force = options.resolved_map();
  m.notes = options.notes;
  // Said once per process, however many methods (budgets, variants) repeat it.
  static std::set<std::string> said;
  for (const auto& note : m.notes) {
    if (said.insert(note).second) std::cerr << "note: " << note << "\n";
  }
  return std::make_unique<ComposedMethod>(std::move(m));
}

}  // namespace ripplekv
