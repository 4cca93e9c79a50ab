#include "core/compress/budget_math.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ripplekv {

std::vector<int64_t> apportion_largest_remainder(const std::vector<double>& weights_in, int64_t total) {
  const size_t n = weights_in.size();
  if (n == 0) throw std::invalid_argument("apportion: no layers");
  if (total < 0) throw std::invalid_argument("apportion: negative total");
  double max_w = 0;
  for (double w : weights_in) {
    if (!(w >= 0) || !std::isfinite(w)) throw std::invalid_argument("apportion: weights must be finite and >= 0");
    max_w = std::max(max_w, w);
  }
  // Weights are relative: huge ones (total x weight beyond the double range) are scaled down
  // first, so that no share overflows. Ordinary weights are used as given.
  std::vector<double> scaled;
  const bool rescale = max_w > 0 && (!std::isfinite(static_cast<double>(total) * max_w * static_cast<double>(n)));
  if (rescale) {
    for (double w : weights_in) scaled.push_back(w / max_w);
  }
  const std::vector<double>& weights = rescale ? scaled : weights_in;
  double sum = 0;
  for (double w : weights) sum += w;
  if (!(sum > 0)) throw std::invalid_argument("apportion: all weights are zero");
  std::vector<int64_t> out(n);
  std::vector<std::pair<double, size_t>> rem(n);
  int64_t assigned = 0;
  for (size_t i = 0; i < n; ++i) {
    const double exact = static_cast<double>(total) * weights[i] / sum;
    out[i] = static_cast<int64_t>(std::floor(exact));
    rem[i] = {exact - static_cast<double>(out[i]), i};
    assigned += out[i];
  }
  // Floating point can make the floors overshoot by a unit in pathological cases; undo
  // from the smallest remainders.
  std::stable_sort(rem.begin(), rem.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; assigned < total; k = (k + 1) % n) {
    ++out[rem[k].second];
    ++assigned;
  }
  for (size_t k = n; assigned > total; k = (k == 0 ? n : k) - 1) {
    const auto i = rem[(k == 0 ? n : k) - 1].second;
    if (out[i] > 0) {
      --out[i];
      --assigned;
    }
  }
  return out;
}

std::vector<int64_t> clamp_redistribute(std::vector<int64_t> b, int64_t lo, int64_t hi, int64_t total,
                                        const std::vector<double>& weights) {
  const auto n = static_cast<int64_t>(b.size());
  if (lo > hi) throw std::invalid_argument(fmt::format("per-layer bounds are empty: [{}, {}]", lo, hi));
  if (n * lo > total || n * hi < total) {
    throw std::invalid_argument(fmt::format("cannot give {} layers a total of {} tokens within [{}, {}] per layer", n,
                                            total, lo, hi));
  }
  std::vector<bool> fixed(static_cast<size_t>(n), false);
  for (int iter = 0; iter <= n + 1; ++iter) {
    int64_t sum = 0;
    for (auto& x : b) {
      x = std::clamp(x, lo, hi);
      sum += x;
    }
    const int64_t diff = total - sum;  // > 0: give to layers below hi; < 0: take from layers above lo
    if (diff == 0) return b;
    std::vector<double> w(static_cast<size_t>(n), 0.0);
    double wsum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool room = diff > 0 ? b[i] < hi : b[i] > lo;
      // Take from the largest shares (weight) and give by weight; layers with zero weight
      // still take part so that a total is always reachable.
      if (room) w[i] = std::max(weights.empty() ? 1.0 : weights[static_cast<size_t>(i)], 1e-12);
      wsum += w[i];
    }
    if (!(wsum > 0)) break;
    auto delta = apportion_largest_remainder(w, std::llabs(diff));
    for (int64_t i = 0; i < n; ++i) b[i] += diff > 0 ? delta[i] : -delta[i];
  }
  // The loop converges in at most n rounds (each round fixes at least one layer at a bound
  // or finishes); reaching here means the arithmetic above is wrong.
  throw std::logic_error("clamp_redistribute did not converge");
}

std::vector<double> water_fill(const std::vector<double>& w, double total, double lo, double hi) {
  const auto n = static_cast<double>(w.size());
  if (w.empty()) throw std::invalid_argument("water_fill: no layers");
  if (n * lo > total + 1e-9 || n * hi < total - 1e-9) {
    throw std::invalid_argument(fmt::format("cannot give {} layers a total of {} tokens within [{}, {}] per layer",
                                            w.size(), total, lo, hi));
  }
  double wmin = std::numeric_limits<double>::infinity();
  for (double x : w) {
    if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("water_fill: weights must be finite and > 0");
    wmin = std::min(wmin, x);
  }
  auto sum_at = [&](double c) {
    double s = 0;
    for (double x : w) s += std::clamp(c * x, lo, hi);
    return s;
  };
  double a = 0, b = hi / wmin;  // sum_at(a) = n*lo <= total <= n*hi = sum_at(b)
  for (int i = 0; i < 200 && b - a > 1e-15 * b; ++i) {
    const double mid = 0.5 * (a + b);
    (sum_at(mid) < total ? a : b) = mid;
  }
  std::vector<double> out;
  for (double x : w) out.push_back(std::clamp(b * x, lo, hi));
  return out;
}

std::vector<int64_t> water_fill_integer(const std::vector<double>& weights, int64_t total, int64_t lo, int64_t hi) {
  const auto real = water_fill(weights, static_cast<double>(total), static_cast<double>(lo), static_cast<double>(hi));
  auto b = apportion_largest_remainder(real, total);
  // Rounding can only cross a bound by floating-point noise; restore it exactly.
  return clamp_redistribute(b, lo, hi, total, weights);
}

void validate_budget_request(int64_t num_layers, int64_t budget, int64_t min_per_layer, const std::string& who) {
  if (num_layers <= 0) throw std::invalid_argument(fmt::format("{}: the model has no layers", who));
  if (budget <= 0) {
    throw std::invalid_argument(fmt::format("{}: --budget {} must be a positive number of tokens per layer", who, budget));
  }
  if (budget < min_per_layer) {
    throw std::invalid_argument(fmt::format(
        "{}: --budget {} is below the {} tokens per layer the selector always keeps (sinks + observation window); "
        "raise --budget or shrink the window/sinks", who, budget, min_per_layer));
  }
}

}  // namespace ripplekv
