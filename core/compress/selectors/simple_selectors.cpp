// Selectors that need no attention statistics.
//  - full: keeps everything (the FullKV baseline).
//  - streamingllm (Xiao et al., 2023, https://arxiv.org/abs/2309.17453): the first `sinks`
//    tokens plus the most recent ones. KVCache-Factory's StreamingLLM keeps the first
//    (budget - window) tokens plus the window: use sinks=<budget - window> for that variant.
//  - random: uniformly random tokens (seeded per layer), plus sinks/window if asked.
//  - knorm (Devoto et al., 2024, https://arxiv.org/abs/2406.11430; kvpress KnormPress):
//    keeps the keys with the LOWEST L2 norm, per KV head, no forced window by default.
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include "core/compress/selectors/selectors.h"

namespace ripplekv {

namespace {

class FullSelector final : public TokenSelector {
 public:
  std::string name() const override { return "full"; }
  bool keeps_all() const override { return true; }
  at::Tensor score(const LayerObservation&) const override { return {}; }
};

class StreamingLlmSelector final : public TokenSelector {
 public:
  explicit StreamingLlmSelector(PolicyOptions& o) : sinks_(o.get_int("sinks")) {
    if (sinks_ < 0) throw std::invalid_argument(fmt::format("streamingllm: sinks={} must be >= 0", sinks_));
  }
  std::string name() const override { return "streamingllm"; }
  int64_t sinks() const override { return sinks_; }
  at::Tensor score(const LayerObservation& obs) const override {
    // Recency: later tokens score higher, so top-k keeps the most recent ones.
    const auto b = obs.keys.size(0), h = obs.keys.size(1);
    return at::arange(obs.prompt_len, obs.keys.options().dtype(at::kFloat)).expand({b, h, obs.prompt_len});
  }

 private:
  int64_t sinks_;
};

class RandomSelector final : public TokenSelector {
 public:
  explicit RandomSelector(PolicyOptions& o)
      : seed_(o.get_int("seed")),
        sinks_(o.get_int("sinks")),
        window_(o.get_int("window")) {
    if (sinks_ < 0 || window_ < 0) throw std::invalid_argument("random: sinks and window must be >= 0");
  }
  std::string name() const override { return "random"; }
  int64_t sinks() const override { return sinks_; }
  int64_t window() const override { return window_; }
  at::Tensor score(const LayerObservation& obs) const override {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed_ * 1000003 + obs.layer));
    const auto b = obs.keys.size(0), h = obs.keys.size(1);
    return at::rand({b, h, obs.prompt_len}, gen, at::TensorOptions().dtype(at::kFloat)).to(obs.keys.device());
  }

 private:
  int64_t seed_, sinks_, window_;
};

class KnormSelector final : public TokenSelector {
 public:
  explicit KnormSelector(PolicyOptions& o)
      : sinks_(o.get_int("sinks")), window_(o.get_int("window")) {
    if (sinks_ < 0 || window_ < 0) throw std::invalid_argument("knorm: sinks and window must be >= 0");
  }
  std::string name() const override { return "knorm"; }
  int64_t sinks() const override { return sinks_; }
  int64_t window() const override { return window_; }
  at::Tensor score(const LayerObservation& obs) const override {
    return -obs.keys.to(at::kFloat).norm(2, -1);
  }

 private:
  int64_t sinks_, window_;
};

}  // namespace

std::unique_ptr<TokenSelector> make_full_selector(PolicyOptions&) { return std::make_unique<FullSelector>(); }
std::unique_ptr<TokenSelector> make_streamingllm_selector(PolicyOptions& o) {
  return std::make_unique<StreamingLlmSelector>(o);
}
std::unique_ptr<TokenSelector> make_random_selector(PolicyOptions& o) { return std::make_unique<RandomSelector>(o); }
std::unique_ptr<TokenSelector> make_knorm_selector(PolicyOptions& o) { return std::make_unique<KnormSelector>(o); }

}  // namespace ripplekv
