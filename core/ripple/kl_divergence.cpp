#include "core/ripple/kl_divergence.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ripplekv {

KlDirection parse_kl_direction(const std::string& n) {
  if (n == "forward") return KlDirection::Forward;
  if (n == "reverse") return KlDirection::Reverse;
  if (n == "symmetric") return KlDirection::Symmetric;
  throw std::invalid_argument(fmt::format("KL direction \"{}\": choose forward, reverse or symmetric", n));
}
std::string kl_direction_name(KlDirection d) {
  return d == KlDirection::Forward ? "forward" : d == KlDirection::Reverse ? "reverse" : "symmetric";
}

at::Tensor kl_divergence(const at::Tensor& clean, const at::Tensor& other, KlDirection dir) {
  auto lp = at::log_softmax(clean.to(at::kDouble), -1);
  auto lq = at::log_softmax(other.to(at::kDouble), -1);
  auto kl_pq = (lp.exp() * (lp - lq)).sum(-1);
  if (dir == KlDirection::Forward) return kl_pq.clamp_min(0.0);
  auto kl_qp = (lq.exp() * (lq - lp)).sum(-1);
  if (dir == KlDirection::Reverse) return kl_qp.clamp_min(0.0);
  return (0.5 * (kl_pq + kl_qp)).clamp_min(0.0);
}

}  // namespace ripplekv
