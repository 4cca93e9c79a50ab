// Which sequences to decode together: a cost model for batched decoding of caches of
// different lengths (the evaluation engine's variants of one prompt).
//
// A decode step reads the weights once per batch, and every row reads the padded length of
// each layer. Batching rows of similar length therefore saves weight reads; batching a
// full-cache row with compressed ones makes every row read the full length. The plan
// minimises, over partitions of the rows sorted by cached slots into consecutive groups,
//   sum over groups g of  step_bytes + weight_bytes * (1 + row_cost * (|g| - 1))
//                       + slot_bytes * sum over layers of |g| * max over rows of slots,
// where row_cost is the extra cost of one more row of a batched step relative to a whole
// single-row step (measured on this project's CPU with the SmolLM2 shape, scripts/bench.sh:
// 16 rows cost 2.7x one row in bfloat16 and 3.4x in float32, so about 1/8; on a GPU it is
// smaller). step_bytes is what a step costs beyond its reads, in bytes read: 0 on the CPU; on a
// GPU the launch overhead of each step's kernels, which is most of a small model's step there
// (decode_cost_model), so that the variants of a prompt decode as one batch. Stateless and
// torch-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ripplekv {

struct DecodeCostModel {
  double weight_bytes = 0;    // bytes of weights read per decode step
  double slot_bytes = 0;      // bytes of keys + values per cached slot (one token, one head)
  double row_cost = 1.0 / 8;  // extra cost of each further row in a batch, in weight reads
  double step_bytes = 0;      // fixed cost of each batched step beyond its reads, in bytes read
};

// slots[r][l]: cached slots (tokens x heads) of row r in layer l. Returns groups of row
// indices (each ascending), groups ordered by decreasing size of their rows' caches. Rows of
// equal slots stay in index order. Throws std::invalid_argument on ragged or negative input.
std::vector<std::vector<std::size_t>> plan_decode_groups(const std::vector<std::vector<int64_t>>& slots,
                                                         const DecodeCostModel& cost);

// The modelled cost of decoding `group` as one batch (same terms as above).
double decode_group_cost(const std::vector<std::vector<int64_t>>& slots, const std::vector<std::size_t>& group,
                         const DecodeCostModel& cost);

}  // namespace ripplekv
