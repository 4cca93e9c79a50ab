// Batched decoding of caches of different lengths (models/generation): the decode-group plan,
// and rows of a padded batch against the same caches decoded one at a time — logits within
// float32 rounding, greedy tokens equal — on stories260K and the tiny HF fixture, and in
// bfloat16 on SmolLM2-135M the very same logits (the batched-decode kernels).
#include "catch_torch.h"

#include <cmath>
#include <random>

#include "models/generation/decode_groups.h"
#include "models/generation/generate.h"
#include "models/loaders/load_model.h"
#include "models/ops/cpu_features.h"
#include "test_paths.h"

using namespace ripplekv;

TEST_CASE("decode groups: a long row decodes alone, similar rows share a batch", "[generation]") {
  // Row 0 is a full cache (1000 tokens in each of 2 layers); rows 1-3 are compressed.
  const std::vector<std::vector<int64_t>> slots{{1000, 1000}, {60, 70}, {64, 64}, {50, 90}};
  DecodeCostModel cost{1e5, 100, 1.0 / 16};
  auto groups = plan_decode_groups(slots, cost);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == std::vector<std::size_t>{0});
  CHECK(groups[1] == std::vector<std::size_t>{1, 2, 3});
  // The plan is no dearer than all rows in one batch or each row alone.
  double planned = 0, alone = 0;
  for (const auto& g : groups) planned += decode_group_cost(slots, g, cost);
  for (std::size_t r = 0; r < slots.size(); ++r) alone += decode_group_cost(slots, {r}, cost);
  CHECK(planned <= decode_group_cost(slots, {0, 1, 2, 3}, cost));
  CHECK(planned <= alone);
  // When weights dominate (a big model, short caches), everything is one batch; when reading
  // padding costs more than weights, every row decodes alone.
  CHECK(plan_decode_groups(slots, {1e12, 100, 1.0 / 16}).size() == 1);
  CHECK(plan_decode_groups(slots, {1, 100, 1.0}).size() == 4);
  // A fixed cost per step (a GPU's kernel launches) makes one batch of rows that would split.
  DecodeCostModel gpu = cost;
  gpu.step_bytes = 1e7;
  CHECK(plan_decode_groups(slots, gpu).size() == 1);
  CHECK(decode_group_cost(slots, {1}, gpu) == Approx(decode_group_cost(slots, {1}, cost) + 1e7));
  gpu.step_bytes = -1;
  CHECK_THROWS_WITH(plan_decode_groups(slots, gpu), Catch::Matchers::Contains("cost step_bytes must be a non-negative"));
  gpu.step_bytes = std::nan("");
  CHECK_THROWS_AS(plan_decode_groups(slots, gpu), std::invalid_argument);
  CHECK(plan_decode_groups({}, cost).empty());
  CHECK_THROWS_AS(plan_decode_groups({{1, 2}, {3}}, cost), std::invalid_argument);
  CHECK_THROWS_AS(plan_decode_groups({{-1}}, cost), std::invalid_argument);
}

namespace {

// One prompt, prefilled once; copies compressed to different lengths per layer (random
// tokens kept, per KV head), one left whole and one per query head in layer 0.
std::vector<KVCache> compressed_copies(const CausalLM& model, const at::Tensor& prompt, int64_t headroom,
                                       at::Tensor& logits) {
  KVCache full(model.num_layers());
  full.set_headroom(headroom);
  logits = model.prefill(prompt, full);
  const int64_t n = prompt.size(1), hkv = model.config().num_kv_heads, hq = model.config().num_heads;
  std::mt19937 rng(11);
  std::vector<KVCache> out;
  for (int variant = 0; variant < 4; ++variant) {
    KVCache c = full.clone();
    if (variant > 0) {
      for (int64_t l = 0; l < model.num_layers(); ++l) {
        const int64_t keep = 4 + static_cast<int64_t>(rng() % static_cast<unsigned>(n - 8));
        const int64_t heads = variant == 3 && l == 0 ? hq : hkv;
        std::vector<int64_t> idx;
        for (int64_t h = 0; h < heads; ++h) {
          std::vector<int64_t> all(static_cast<std::size_t>(n));
          for (int64_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
          std::shuffle(all.begin(), all.end(), rng);
          idx.insert(idx.end(), all.begin(), all.begin() + keep);
        }
        c.keep(l, at::tensor(idx, at::kLong).view({1, heads, keep}));
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

// How the teacher-forced logits of a batch row compare with the row decoded alone: the same
// bits (bfloat16 with the AVX-512 decode kernels), within float32 rounding, or only coarsely
// (bfloat16 through ATen's kernels, which round a batch differently: a row's logits moved by up
// to 1.25 on an AVX2 EPYC over SmolLM2's 30 layers, so within 4, which a wrong mask or padding
// row would exceed; the greedy tokens below are compared exactly).
enum class Logits { exact, float32, tokens_only };

void check_batched_equals_single(const CausalLM& model, Logits compare = Logits::float32, int64_t prompt_tokens = 40) {
  const int64_t vocab = model.config().vocab_size;
  const auto prompt = at::randint(3, vocab, {1, prompt_tokens}, at::TensorOptions().dtype(at::kLong));
  at::Tensor logits;
  auto caches = compressed_copies(model, prompt, 24, logits);

  // Teacher-forced: the same tokens into every row, logits row by row.
  {
    std::vector<KVCache> single;
    std::vector<const KVCache*> rows;
    for (const auto& c : caches) {
      single.push_back(c.clone());
      rows.push_back(&c);
    }
    KVCache batch = KVCache::stack(rows);
    CHECK(batch.key_mask(1).defined());  // the rows really are padded
    for (int step = 0; step < 6; ++step) {
      const int64_t tok = 3 + step * 7 % (vocab - 3);
      const auto batched = model.decode(at::full({4, 1}, tok, at::kLong), batch);
      for (std::size_t r = 0; r < single.size(); ++r) {
        const auto one = model.decode(at::full({1, 1}, tok, at::kLong), single[r]);
        INFO("row " << r << " step " << step);
        if (compare == Logits::exact) {
          CHECK(at::equal(batched[static_cast<int64_t>(r)], one[0]));
        } else if (compare == Logits::float32) {
          CHECK((batched[static_cast<int64_t>(r)] - one[0]).abs().max().item<float>() < 2e-5f);
        } else {
          CHECK((batched[static_cast<int64_t>(r)] - one[0]).abs().max().item<float>() < 4.0f);
        }
      }
    }
  }

  // Greedy: tokens equal greedy_continue's, with rows leaving the batch at different steps
  // (a stop token that one row emits early).
  GenerateOptions go;
  go.max_new_tokens = 20;
  std::vector<GenerateResult> single;
  for (auto& c : caches) {
    auto copy = c.clone();
    single.push_back(greedy_continue(model, logits, copy, go));
  }
  REQUIRE(single[2].tokens.size() > 5);
  go.stop_tokens = {single[2].tokens[5]};
  single.clear();
  for (auto& c : caches) {
    auto copy = c.clone();
    single.push_back(greedy_continue(model, logits, copy, go));
  }
  auto copies = std::vector<KVCache>();
  for (auto& c : caches) copies.push_back(c.clone());
  const auto batched = greedy_continue_batch(model, logits, copies, go, {1e12, 1, 0});  // one batch
  REQUIRE(batched.size() == single.size());
  bool lengths_differ = false;
  for (std::size_t r = 0; r < single.size(); ++r) {
    INFO("row " << r);
    CHECK(batched[r].tokens == single[r].tokens);
    CHECK(batched[r].stopped == single[r].stopped);
    CHECK(batched[r].stop_token == single[r].stop_token);
    lengths_differ = lengths_differ || single[r].tokens.size() != single[0].tokens.size();
  }
  CHECK(lengths_differ);  // rows did leave the batch at different steps
  CHECK(copies[0].length(0) == 0);  // consumed
  // The planner's own grouping for this model gives the same tokens.
  copies.clear();
  for (auto& c : caches) copies.push_back(c.clone());
  CHECK(decode_cost_model(model).step_bytes == 0);  // no launch cost on the CPU
  const auto planned = greedy_continue_batch(model, logits, copies, go, decode_cost_model(model));
  for (std::size_t r = 0; r < single.size(); ++r) CHECK(planned[r].tokens == single[r].tokens);
}

}  // namespace

TEST_CASE("batched decode equals one-at-a-time decode on stories260K", "[generation]") {
  at::manual_seed(1);
  const auto model = load_model(test::shared_data("stories260K/stories260K.bin"), {});
  check_batched_equals_single(*model);
}

TEST_CASE("batched decode equals one-at-a-time decode on a tiny HF model", "[generation]") {
  at::manual_seed(2);
  const auto model = load_model(test::fixture("compression/model"), {});
  check_batched_equals_single(*model);
}

TEST_CASE("batched bfloat16 decode gives the one-at-a-time logits bit for bit on SmolLM2-135M", "[generation][isa]") {
  // bfloat16 greedy decoding of a real model often meets near-ties, so a batch whose arithmetic
  // rounds differently from one row changes predictions (about a third of LongBench answers
  // did before the batched-decode kernels). With them every row's logits have the same bits.
  at::manual_seed(3);
  const auto model = load_model(test::real_model("smollm2-135m-instruct"), {at::kBFloat16, at::kCPU});
  if (!ops::cpu_has_avx512()) {
    WARN("no AVX-512 on this CPU: batched bfloat16 decode takes at::linear, which rounds differently; "
         "only the greedy tokens are compared");
  }
  // 160 prompt tokens: layers keep 4 to 156 of them, so rows both shorter and longer than a
  // vector register of the softmax's reduction meet in one batch.
  check_batched_equals_single(*model, ops::cpu_has_avx512() ? Logits::exact : Logits::tokens_only, 160);
  if (!ops::cpu_has_avx512()) return;
  // Batches of 5, 6 and 7 rows (the kernel takes inputs 4 at a time, then 1, 2 or 3).
  at::Tensor logits;
  const auto prompt = at::randint(3, model->config().vocab_size, {1, 160}, at::TensorOptions().dtype(at::kLong));
  const auto caches = compressed_copies(*model, prompt, 4, logits);
  for (std::size_t rows : {5, 6, 7}) {
    std::vector<const KVCache*> ptrs;
    for (std::size_t r = 0; r < rows; ++r) ptrs.push_back(&caches[r % caches.size()]);
    KVCache batch = KVCache::stack(ptrs);
    const auto batched = model->decode(at::full({static_cast<int64_t>(rows), 1}, 17, at::kLong), batch);
    for (std::size_t r = 0; r < rows; ++r) {
      INFO("batch of " << rows << ", row " << r);
      KVCache one = caches[r % caches.size()].clone();
      CHECK(at::equal(batched[static_cast<int64_t>(r)], model->decode(at::full({1, 1}, 17, at::kLong), one)[0]));
    }
  }
}
