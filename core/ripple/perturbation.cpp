#include "core/ripple/perturbation.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace ripplekv {

NoiseMode parse_noise_mode(const std::string& n) {
  if (n == "relative") return NoiseMode::Relative;
  if (n == "layer_mean") return NoiseMode::LayerMean;
  if (n == "multiplicative") return NoiseMode::Multiplicative;
  throw std::invalid_argument(fmt::format("noise mode \"{}\": choose relative, layer_mean or multiplicative", n));
}
NoisePositions parse_noise_positions(const std::string& n) {
  if (n == "all") return NoisePositions::All;
  if (n == "context") return NoisePositions::Context;
  throw std::invalid_argument(fmt::format("noise positions \"{}\": choose all or context", n));
}
std::string noise_mode_name(NoiseMode m) {
  return m == NoiseMode::Relative ? "relative" : m == NoiseMode::LayerMean ? "layer_mean" : "multiplicative";
}
std::string noise_positions_name(NoisePositions p) { return p == NoisePositions::All ? "all" : "context"; }

at::Tensor perturb_values(const at::Tensor& v, const NoiseSpec& spec, const std::vector<uint64_t>& seeds,
                          int64_t perturb_len) {
  if (!(spec.eps >= 0) || !std::isfinite(spec.eps)) {
    throw std::invalid_argument(fmt::format("eps={} must be a finite number >= 0", spec.eps));
  }
  if (spec.eps == 0 || perturb_len <= 0) return v;
  const auto b = v.size(0), h = v.size(1), t = v.size(2), d = v.size(3);
  if (static_cast<int64_t>(seeds.size()) != b) throw std::invalid_argument("perturb_values: one seed per batch element");
  const int64_t n = std::min(perturb_len, t);
  std::vector<at::Tensor> zs;
  for (int64_t i = 0; i < b; ++i) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seeds[static_cast<size_t>(i)]);
    zs.push_back(at::randn({h, n, d}, gen, at::TensorOptions().dtype(at::kFloat)));
  }
  auto z = at::stack(zs).to(v.device());
  auto part = v.narrow(2, 0, n).to(at::kFloat);
  at::Tensor noisy;
  switch (spec.mode) {
    case NoiseMode::Relative:
      noisy = part + spec.eps * (part.norm(2, -1, true) / std::sqrt(static_cast<double>(d))) * z;
      break;
    case NoiseMode::LayerMean: {
      auto scale = part.norm(2, -1).mean({1, 2}, true).unsqueeze(-1) / std::sqrt(static_cast<double>(d));
      noisy = part + spec.eps * scale * z;
      break;
    }
    case NoiseMode::Multiplicative:
      noisy = part * (1.0 + spec.eps * z);
      break;
  }
  if (n == t) return noisy.to(v.scalar_type());
  return at::cat({noisy.to(v.scalar_type()), v.narrow(2, n, t - n)}, 2);
}

ValuePerturbation::ValuePerturbation(HookRegistry& hooks, int64_t layer, NoiseSpec spec, std::vector<uint64_t> seeds,
                                     int64_t perturb_len) {
  handle_ = hooks.add(HookSite::Values, layer,
                      [spec, seeds = std::move(seeds), perturb_len](const HookContext& ctx, at::Tensor& v) {
                        if (ctx.phase == Phase::Prefill) v = perturb_values(v, spec, seeds, perturb_len);
                      });
}

}  // namespace ripplekv
