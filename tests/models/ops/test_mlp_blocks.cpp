// The prompt MLP in row blocks (models/ops/ops.cpp, swiglu_mlp_fused) against the same MLP in
// one block: bit for bit, on the shapes of the models this project runs, in both dtypes. The
// blocks exist to bound memory at long prompts; they must not move a single result.
#include "catch_torch.h"

#include "aten_threads.h"
#include "models/ops/ops.h"

using namespace ripplekv;

namespace {

struct Shape {
  const char* name;
  int64_t hidden, inter;
};

}  // namespace

TEST_CASE("The prompt MLP in row blocks has the bits of the MLP in one block", "[ops]") {
  at::manual_seed(7);
  const int threads = GENERATE(1, 2);
  for (const Shape shape : {Shape{"SmolLM2", 576, 1536}, Shape{"Qwen2.5-1.5B", 1536, 8960}}) {
    for (const auto dtype : {at::kFloat, at::kBFloat16}) {
      const auto w_gate_up = (at::randn({2 * shape.inter, shape.hidden}) * 0.05).to(dtype);
      const auto w_down = (at::randn({shape.hidden, shape.inter}) * 0.05).to(dtype);
      // 2 x 350 rows in blocks of 256: 256, 256 and the last 188 joined to the one before,
      // so the blocks are 256 and 444, and a block crosses the boundary between sequences.
      const auto x = at::randn({2, 350, shape.hidden}).to(dtype);
      INFO(shape.name << " " << dtype << " on " << threads << " threads");
      test::with_threads(threads, [&] {
        const auto whole = ops::swiglu_mlp_fused(x, w_gate_up, w_down, /*block_rows=*/0);
        const auto blocks = ops::swiglu_mlp_fused(x, w_gate_up, w_down, /*block_rows=*/256);
        REQUIRE(blocks.sizes() == whole.sizes());
        CHECK(blocks.scalar_type() == dtype);
        CHECK(at::equal(blocks, whole));
        // Fewer than two blocks' rows: one block, as without blocks.
        CHECK(at::equal(ops::swiglu_mlp_fused(x, w_gate_up, w_down, /*block_rows=*/351), whole));
      });
    }
  }
}

TEST_CASE("The prompt MLP's blocks are what the unfused MLP computes, for any block size", "[ops]") {
  at::manual_seed(11);
  const int64_t h = 64, inter = 96;
  const auto w_gate = at::randn({inter, h}) * 0.1, w_up = at::randn({inter, h}) * 0.1, w_down = at::randn({h, inter}) * 0.1;
  const auto w_gate_up = at::cat({w_gate, w_up}, 0);
  const auto x = at::randn({3, 37, h});
  const auto plain = ops::swiglu_mlp(x, w_gate, w_up, w_down);
  for (const int64_t block_rows : {1, 2, 5, 16, 55, 56, 111, 112}) {
    INFO("block_rows " << block_rows);
    const auto out = ops::swiglu_mlp_fused(x, w_gate_up, w_down, block_rows);
    REQUIRE(out.sizes() == plain.sizes());
    CHECK(at::allclose(out, plain, 1e-5, 1e-5));
  }
  // A non-contiguous prompt (a strided view) is read as its values.
  const auto strided = at::randn({37, 3, h}).transpose(0, 1);
  CHECK(at::allclose(ops::swiglu_mlp_fused(strided, w_gate_up, w_down, 8),
                     ops::swiglu_mlp(strided.contiguous(), w_gate, w_up, w_down), 1e-5, 1e-5));
}
