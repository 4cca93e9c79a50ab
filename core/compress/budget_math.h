// Integer budget arithmetic shared by every layer-budget allocator (torch-free): turning
// real-valued shares into integers that sum exactly to a total, and clamping to per-layer
// bounds while keeping the total exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ripplekv {

// Integers proportional to `weights` (all >= 0, not all 0) summing exactly to `total`:
// floor of each exact share, then the remaining units one each to the largest fractional
// parts (ties to the lower layer index). Hamilton / largest-remainder apportionment.
std::vector<int64_t> apportion_largest_remainder(const std::vector<double>& weights, int64_t total);

// Clamps each budget to [lo, hi] and moves the excess or deficit to the layers still inside
// their bounds, in proportion to `weights`, until the total is again exactly `total`.
// Throws std::invalid_argument when no assignment exists (L * lo > total or L * hi < total).
std::vector<int64_t> clamp_redistribute(std::vector<int64_t> budgets, int64_t lo, int64_t hi, int64_t total,
                                        const std::vector<double>& weights);

// Real-valued budgets proportional to `weights` where the bounds allow: b_l = clamp(c * w_l,
// lo, hi) with the scale c found so that the b_l sum to `total` ("water filling"). Unlike
// clamping after rounding, this keeps the ordering of the weights and, for w_l = r^s_l, a
// max/min allocation ratio that never shrinks as r grows.
std::vector<double> water_fill(const std::vector<double>& weights, double total, double lo, double hi);

// Integer budgets from water_fill: floors plus largest remainders, exactly `total`.
std::vector<int64_t> water_fill_integer(const std::vector<double>& weights, int64_t total, int64_t lo, int64_t hi);

// Checks the request every allocator receives and throws a message naming the fix:
// budget > 0 and budget >= minimum per layer.
void validate_budget_request(int64_t num_layers, int64_t budget, int64_t min_per_layer, const std::string& who);

}  // namespace ripplekv
