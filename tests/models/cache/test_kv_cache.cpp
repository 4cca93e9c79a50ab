#include "catch_torch.h"

#include "models/cache/kv_cache.h"

#include <limits>

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

TEST_CASE("KV cache stacks sequences of different lengths, left-padded, and drops finished rows", "[core][cache]") {
  // Three one-sequence caches of one prompt (6 tokens), compressed to 6, 2 and 4 tokens in
  // layer 0; row 2 keeps per-query-head tokens (4 query heads over 2 KV heads) in layer 1.
  auto k = at::arange(2 * 6 * 3, at::kFloat).view({1, 2, 6, 3}) + 1;
  auto v = -k;
  std::vector<KVCache> rows;
  for (int r = 0; r < 3; ++r) {
    KVCache c(2);
    c.set_headroom(4 + r);
    c.append(0, k, v, 0);
    c.append(1, k, v, 0);
    rows.push_back(std::move(c));
  }
  rows[1].keep(0, at::tensor(std::vector<int64_t>{1, 5}, at::kLong));
  rows[2].keep(0, at::tensor(std::vector<int64_t>{0, 2, 3, 5}, at::kLong));
  rows[2].keep(1, at::tensor(std::vector<int64_t>{0, 1, 2, 3, 4, 5, 0, 5}, at::kLong).view({1, 4, 2}));
  KVCache batch = KVCache::stack({&rows[0], &rows[1], &rows[2]});
  REQUIRE(batch.batch_size() == 3);
  REQUIRE(batch.length(0) == 6);
  CHECK(batch.row_length(0, 0) == 6);
  CHECK(batch.row_length(0, 1) == 2);
  CHECK(batch.row_length(0, 2) == 4);
  CHECK_FALSE(batch.is_prefix(0));
  CHECK(batch.next_position() == 6);
  // Row 1's two tokens sit in the last two slots; the padding is zero, masked, at INT64_MAX.
  CHECK(at::equal(batch.keys(0)[1].narrow(1, 4, 2), rows[1].keys(0)[0]));
  CHECK(at::equal(batch.values(0)[2].narrow(1, 2, 4), rows[2].values(0)[0]));
  CHECK(batch.keys(0)[1].narrow(1, 0, 4).abs().sum().item<float>() == 0);
  CHECK(batch.positions(0)[1][0][0].item<int64_t>() == std::numeric_limits<int64_t>::max());
  const auto mask = batch.key_mask(0);
  REQUIRE(mask.defined());
  CHECK(mask.sizes() == at::IntArrayRef({3, 1, 6}));
  CHECK(mask.sum().item<int64_t>() == 6 + 2 + 4);
  CHECK_FALSE(mask[1][0][3].item<bool>());
  CHECK(mask[1][0][4].item<bool>());
  // Layer 1: row 2 holds per-query-head tokens, so every row is stored per query head.
  REQUIRE(batch.keys(1).size(1) == 4);
  CHECK(at::equal(batch.keys(1)[0][1], k[0][0]));  // query head 1 reads KV head 0
  CHECK(at::equal(batch.keys(1)[0][2], k[0][1]));
  CHECK(at::equal(batch.keys(1)[2].narrow(1, 4, 2), rows[2].keys(1)[0]));
  // Bytes count tokens, not padding slots.
  CHECK(batch.bytes(0) == (6 + 2 + 4) * 2 * 3 * 2 * 4);

  // An append writes one column for every row, in the slot after each row's newest token.
  auto k_new = at::full({3, 2, 1, 3}, 7.0f), v_new = at::full({3, 2, 1, 3}, -7.0f);
  batch.append(0, k_new, v_new, 6);
  batch.append(1, k_new, v_new, 6);
  CHECK(batch.length(0) == 7);
  CHECK(batch.row_length(0, 1) == 3);
  CHECK(batch.key_mask(0)[1][0][6].item<bool>());
  CHECK(batch.positions(0)[1][1][6].item<int64_t>() == 6);
  CHECK(batch.keys(1)[2][3][6][0].item<float>() == 7.0f);  // stored for each query head
  // Appending past the capacity keeps the mask right.
  for (int64_t p = 7; p < 14; ++p) batch.append(0, k_new, v_new, p);
  CHECK(batch.key_mask(0).sum().item<int64_t>() == 6 + 2 + 4 + 3 * 8);
  CHECK(batch.row_length(0, 2) == 12);

  // Row 0 (the longest) finishes: slots that only it used go, views of the same storage.
  batch.select_rows({1, 2});
  REQUIRE(batch.batch_size() == 2);
  CHECK(batch.length(0) == 12);
  CHECK(batch.row_length(0, 0) == 10);
  CHECK(batch.row_length(0, 1) == 12);
  CHECK(at::equal(batch.keys(0)[0].narrow(1, 2, 2), rows[1].keys(0)[0]));
  CHECK(batch.key_mask(0).sum().item<int64_t>() == 10 + 12);
  // Only row 2 left: no padding, no mask.
  batch.select_rows({1});
  CHECK(batch.length(0) == 12);
  CHECK_FALSE(batch.key_mask(0).defined());
  CHECK(at::equal(batch.keys(0)[0].narrow(1, 0, 4), rows[2].keys(0)[0]));

  CHECK_THROWS_AS(batch.select_rows({1}), std::invalid_argument);  // out of range
  KVCache again = KVCache::stack({&rows[0], &rows[1]});
  CHECK_THROWS_AS(again.select_rows({1, 0}), std::invalid_argument);  // not ascending
  CHECK_THROWS_AS(again.keep(0, at::tensor(std::vector<int64_t>{0}, at::kLong)), std::logic_error);
  KVCache later(2);
  later.append(0, k, v, 0);
  later.append(0, k.narrow(2, 0, 1), v.narrow(2, 0, 1), 6);
  CHECK_THROWS_AS(KVCache::stack({&rows[0], &later}), std::invalid_argument);  // another position
  CHECK_THROWS_AS(KVCache::stack({&again}), std::invalid_argument);            // already a batch
}

TEST_CASE("KV cache decode appends, written in place, equal appends through ATen", "[core][cache]") {
  // One token at a time (the in-place path) against the same tokens appended at once (ATen's
  // copies), for a plain cache and for a batch after a row has dropped out (a view with a
  // storage offset); values whose rows are strided views, as the fused qkv projection gives.
  at::manual_seed(41);
  for (auto dtype : {at::kFloat, at::kBFloat16}) {
    INFO("dtype " << dtype);
    const auto qkv = at::randn({2, 4, 3 * 2 * 8}).to(dtype);  // [B, T, 3 Hkv D]
    const auto k = qkv.narrow(-1, 0, 16).reshape({2, 4, 2, 8}).transpose(1, 2).contiguous();
    const auto v = qkv.narrow(-1, 16, 16).view({2, 4, 2, 8}).transpose(1, 2);  // strided
    KVCache one(1), all(1);
    const auto prompt_k = at::randn({2, 2, 5, 8}).to(dtype), prompt_v = at::randn({2, 2, 5, 8}).to(dtype);
    one.append(0, prompt_k, prompt_v, 0);
    all.append(0, prompt_k, prompt_v, 0);
    for (int64_t t = 0; t < 4; ++t) one.append(0, k.narrow(2, t, 1), v.narrow(2, t, 1), 5 + t);
    all.append(0, k, v, 5);
    REQUIRE(one.length(0) == 9);
    CHECK(at::equal(one.keys(0), all.keys(0)));
    CHECK(at::equal(one.values(0), all.values(0)));
    CHECK(at::equal(one.positions(0), all.positions(0)));
  }
  // A batch of rows of different lengths; row 0 drops out, then decoding goes on in place.
  std::vector<KVCache> rows;
  for (int64_t n : {6, 3, 4}) {  // one prompt of 6 tokens, compressed to n
    rows.emplace_back(1);
    rows.back().append(0, at::randn({1, 2, 6, 8}), at::randn({1, 2, 6, 8}), 0);
    if (n < 6) rows.back().keep(0, at::arange(6 - n, 6, at::kLong));
  }
  auto a = KVCache::stack({&rows[0], &rows[1], &rows[2]});
  auto b = KVCache::stack({&rows[0], &rows[1], &rows[2]});
  a.select_rows({1, 2});
  b.select_rows({1, 2});
  const auto k = at::randn({2, 2, 3, 8}), v = at::randn({2, 2, 3, 8});
  for (int64_t t = 0; t < 3; ++t) a.append(0, k.narrow(2, t, 1), v.narrow(2, t, 1), 6 + t);
  b.append(0, k, v, 6);
  CHECK(at::equal(a.keys(0), b.keys(0)));
  CHECK(at::equal(a.values(0), b.values(0)));
  CHECK(at::equal(a.positions(0), b.positions(0)));
  CHECK(at::equal(a.key_mask(0), b.key_mask(0)));
  CHECK(at::equal(a.keys(0)[1].narrow(1, a.length(0) - 3, 3), k[1]));
}

TEST_CASE("KV cache truncate undoes appends on a prefix layer and refuses evicted or padded ones", "[core][cache]") {
  KVCache c(2);
  c.set_headroom(4);
  auto k = at::randn({1, 2, 10, 4});
  auto v = at::randn({1, 2, 10, 4});
  c.append(0, k, v, 0);
  c.append(1, k, v, 0);
  const auto extra_k = at::randn({1, 2, 3, 4});
  c.append(0, extra_k, extra_k, 10);
  REQUIRE(c.length(0) == 13);
  c.truncate(0, 10);
  CHECK(c.length(0) == 10);
  CHECK(c.is_prefix(0));
  CHECK(c.keys(0).equal(k));
  CHECK(c.values(0).equal(v));
  // The next append may start where the kept tokens end, and positions stay 0..n-1.
  c.append(0, extra_k.narrow(2, 0, 1), extra_k.narrow(2, 0, 1), 10);
  CHECK(c.positions(0)[0][0].equal(at::arange(11, at::kLong)));
  CHECK(c.is_prefix(0));
  c.truncate(0, 0);
  CHECK(c.empty(0));
  c.append(0, k, v, 0);
  CHECK(c.keys(0).equal(k));
  CHECK_THROWS_AS(c.truncate(0, 11), std::out_of_range);
  c.keep(1, at::tensor({0, 2, 5}, at::kLong));
  CHECK_THROWS_WITH(c.truncate(1, 2), Catch::Contains("layer 1") && Catch::Contains("evicted"));
  KVCache a(1), b(1);
  a.append(0, k, v, 0);
  b.append(0, k, v, 0);
  b.keep(0, at::arange(6, at::kLong));  // shorter, with a's next position
  KVCache padded = KVCache::stack({&a, &b});
  CHECK_THROWS_WITH(padded.truncate(0, 5), Catch::Contains("padded"));
}

TEST_CASE("KV cache reserve allocates a layer's storage up front, and appends then write into it", "[core][cache]") {
  KVCache cache(2);
  cache.set_headroom(4);
  const auto like = at::empty({1, 2, 0, 3}, at::kBFloat16);
  cache.reserve(0, 6, like);
  CHECK(cache.length(0) == 0);
  CHECK(cache.empty(0));
  CHECK(cache.bytes(0) == 0);  // nothing cached yet: spare capacity only
  auto k = at::randn({1, 2, 6, 3}).to(at::kBFloat16);
  auto v = at::randn({1, 2, 6, 3}).to(at::kBFloat16);
  cache.append(0, k, v, 0);
  const void* storage = cache.keys(0).data_ptr();
  // One decode step fits the headroom: no reallocation, the reserved storage stays.
  cache.append(0, k.narrow(2, 0, 1), v.narrow(2, 0, 1), 6);
  CHECK(cache.keys(0).data_ptr() == storage);
  CHECK(at::equal(cache.keys(0).narrow(2, 0, 6), k));
  CHECK(at::equal(cache.values(0).narrow(2, 6, 1), v.narrow(2, 0, 1)));
  CHECK(cache.is_prefix(0));
  // The same appends without reserve: the same contents.
  cache.append(1, k, v, 0);
  cache.append(1, k.narrow(2, 0, 1), v.narrow(2, 0, 1), 6);
  CHECK(at::equal(cache.keys(1), cache.keys(0)));
  CHECK(at::equal(cache.positions(1), cache.positions(0)));
  // A non-empty layer is left alone; a shapeless tensor is refused.
  cache.reserve(0, 100, like);
  CHECK(cache.keys(0).data_ptr() == storage);
  KVCache other(1);
  CHECK_THROWS_AS(other.reserve(0, 8, at::empty({2, 3})), std::invalid_argument);
}
