#include "models/generation/decode_groups.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace ripplekv {

double decode_group_cost(const std::vector<std::vector<int64_t>>& slots, const std::vector<std::size_t>& group,
                         const DecodeCostModel& cost) {
  if (group.empty()) return 0;
  const std::size_t layers = slots[group[0]].size();
  double padded = 0;
  for (std::size_t l = 0; l < layers; ++l) {
    int64_t longest = 0;
    for (const std::size_t r : group) longest = std::max(longest, slots[r][l]);
    padded += static_cast<double>(longest) * static_cast<double>(group.size());
  }
  return cost.step_bytes + cost.weight_bytes * (1 + cost.row_cost * static_cast<double>(group.size() - 1)) +
         cost.slot_bytes * padded;
}

std::vector<std::vector<std::size_t>> plan_decode_groups(const std::vector<std::vector<int64_t>>& slots,
                                                         const DecodeCostModel& cost) {
  const std::size_t n = slots.size();
  if (n == 0) return {};
  std::vector<int64_t> total(n, 0);
  for (std::size_t r = 0; r < n; ++r) {
    if (slots[r].size() != slots[0].size()) throw std::invalid_argument("plan_decode_groups: rows differ in layers");
    for (const int64_t s : slots[r]) {
      if (s < 0) throw std::invalid_argument("plan_decode_groups: negative slot count");
      total[r] += s;
    }
  }
  for (const auto& [name, value] : {std::pair{"weight_bytes", cost.weight_bytes}, std::pair{"slot_bytes", cost.slot_bytes},
                                     std::pair{"row_cost", cost.row_cost}, std::pair{"step_bytes", cost.step_bytes}}) {
    if (!(value >= 0)) {  // NaN too
      throw std::invalid_argument(std::string("plan_decode_groups: cost ") + name + " must be a non-negative number, got " +
                                  std::to_string(value));
    }
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return total[a] > total[b]; });
  // best[i]: cheapest plan for order[i..n); cut[i]: where its first group ends.
  std::vector<double> best(n + 1, 0);
  std::vector<std::size_t> cut(n + 1, n);
  for (std::size_t i = n; i-- > 0;) {
    best[i] = std::numeric_limits<double>::infinity();
    std::vector<std::size_t> group;
    for (std::size_t j = i; j < n; ++j) {
      group.push_back(order[j]);
      const double c = decode_group_cost(slots, group, cost) + best[j + 1];
      if (c < best[i]) {
        best[i] = c;
        cut[i] = j + 1;
      }
    }
  }
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < n; i = cut[i]) {
    std::vector<std::size_t> g(order.begin() + static_cast<std::ptrdiff_t>(i),
                               order.begin() + static_cast<std::ptrdiff_t>(cut[i]));
    std::sort(g.begin(), g.end());
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace ripplekv
