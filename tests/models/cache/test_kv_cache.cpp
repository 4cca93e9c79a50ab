#include "catch_torch.h"

#include "models/cache/kv_cache.h"

using namespace ripplekv;

TEST_CASE("KV cache appends, keeps per-head tokens and reports bytes", "[core][cache]") {
  KVCache cache(2);
  auto k = at::arange(2 * 5 * 3, at::kFloat).view({1, 2, 5, 3});
  auto v = -k;
  cache.append(0, k, v, 0);
  REQUIRE(cache.length(0) == 5);
  REQUIRE(cache.length(1) == 0);
  CHECK(cache.is_prefix(0));
  CHECK(cache.next_position() == 5);
  CHECK(cache.bytes(0) == 5 * 2 * 3 * 2 * 4);

  // Different tokens per KV head, given unsorted: stored in position order.
  auto idx = at::tensor(std::vector<int64_t>{4, 0, 1, 3}, at::kLong).view({1, 2, 2});
  cache.keep(0, idx);
  REQUIRE(cache.length(0) == 2);
  CHECK_FALSE(cache.is_prefix(0));
  auto pos = cache.positions(0);
  CHECK(pos[0][0][0].item<int64_t>() == 0);
  CHECK(pos[0][0][1].item<int64_t>() == 4);
  CHECK(pos[0][1][0].item<int64_t>() == 1);
  CHECK(pos[0][1][1].item<int64_t>() == 3);
  CHECK(at::equal(cache.keys(0)[0][1][1], k[0][1][3]));
  CHECK(at::equal(cache.values(0)[0][0][1], v[0][0][4]));
  CHECK(cache.bytes(0) == 2 * 2 * 3 * 2 * 4);

  // Decoding continues after the last position, not after the kept count.
  cache.append(0, k.narrow(2, 0, 1), v.narrow(2, 0, 1), cache.next_position());
  CHECK(cache.positions(0)[0][0][2].item<int64_t>() == 5);
  CHECK(cache.total_bytes() == cache.bytes(0));

  CHECK_THROWS_AS(cache.keep(0, at::tensor(std::vector<int64_t>{7}, at::kLong)), std::out_of_range);
  CHECK_THROWS_AS(cache.keep(1, at::tensor(std::vector<int64_t>{0}, at::kLong)), std::logic_error);
  CHECK_THROWS_AS(cache.append(0, k, v, 2), std::invalid_argument);  // goes back in time
}

TEST_CASE("KV cache clone is an independent copy", "[core][cache]") {
  KVCache cache(2);
  cache.set_headroom(4);
  const auto k = at::randn({1, 2, 5, 4}), v = at::randn({1, 2, 5, 4});
  for (int64_t l = 0; l < 2; ++l) cache.append(l, k, v, 0);
  KVCache copy = cache.clone();
  CHECK(at::equal(copy.keys(0), cache.keys(0)));
  CHECK(at::equal(copy.positions(1), cache.positions(1)));
  CHECK(copy.keys(0).strides() == cache.keys(0).strides());
  // Mutating the copy (compress one layer, append to the other) leaves the original as it was.
  copy.keep(0, at::tensor(std::vector<int64_t>{0, 3}, at::kLong));
  copy.append(1, at::ones({1, 2, 1, 4}), at::ones({1, 2, 1, 4}), 5);
  CHECK(cache.length(0) == 5);
  CHECK(cache.length(1) == 5);
  CHECK(at::equal(cache.keys(1), k));
  CHECK(copy.length(0) == 2);
  CHECK(copy.length(1) == 6);
  CHECK(cache.next_position() == 5);
  CHECK(copy.next_position() == 6);
}
