// The scoping rules of models/hooks: handles own their hooks, observers with different windows
// each get theirs, layer matching, order, and handles that outlive their registry.
#include "catch_torch.h"

#include <vector>

#include "models/hooks/hooks.h"

using namespace ripplekv;

TEST_CASE("HookRegistry: handles scope their hooks, windows are per observer, layers are matched", "[hooks]") {
  HookRegistry hooks;
  int calls = 0;
  at::Tensor t = at::zeros({1});
  const at::Tensor pos = at::zeros({1}, at::kLong);
  const HookContext at_layer2{HookSite::Values, 2, Phase::Prefill, &pos};
  {
    auto h = hooks.add(HookSite::Values, 2, [&](const HookContext&, at::Tensor&) { ++calls; });
    CHECK(hooks.wants(HookSite::Values, 2));
    CHECK_FALSE(hooks.wants(HookSite::Values, 1));
    CHECK_FALSE(hooks.wants(HookSite::Keys, 2));
    hooks.run(at_layer2, t);
    CHECK(calls == 1);
    HookHandle moved = std::move(h);  // the hook lives as long as the handle it moved into
    hooks.run(at_layer2, t);
    CHECK(calls == 2);
  }
  CHECK(hooks.size() == 0);
  CHECK_FALSE(hooks.wants(HookSite::Values, 2));
  hooks.run(at_layer2, t);
  CHECK(calls == 2);

  // kAllLayers matches every layer; hooks run in the order they were added and may modify.
  std::vector<int> order;
  auto a = hooks.add(HookSite::LayerOutput, HookRegistry::kAllLayers, [&](const HookContext&, at::Tensor& x) {
    order.push_back(1);
    x.add_(1);
  });
  auto b = hooks.add(HookSite::LayerOutput, 5, [&](const HookContext&, at::Tensor& x) {
    order.push_back(2);
    x.mul_(3);
  });
  CHECK(hooks.wants(HookSite::LayerOutput, 0));
  at::Tensor x = at::zeros({1});
  hooks.run({HookSite::LayerOutput, 5, Phase::Decode, &pos}, x);
  CHECK(order == std::vector<int>{1, 2});
  CHECK(x.item<float>() == 3.0f);

  // Several observers of one prefill ask for different windows; each sees its own.
  auto w8 = hooks.add_window(HookSite::AttnWindow, 0, 8, [](const HookContext&, at::Tensor&) {});
  auto w32 = hooks.add_window(HookSite::AttnWindow, 0, 32, [](const HookContext&, at::Tensor&) {});
  auto w8b = hooks.add_window(HookSite::AttnWindow, 0, 8, [](const HookContext&, at::Tensor&) {});
  CHECK(hooks.window(HookSite::AttnWindow, 0) == 32);
  CHECK(hooks.windows(HookSite::AttnWindow, 0) == std::vector<int64_t>{8, 32});
  CHECK(hooks.window(HookSite::AttnWindow, 1) == 0);
  w32.remove();
  CHECK(hooks.windows(HookSite::AttnWindow, 0) == std::vector<int64_t>{8});

  // A handle may outlive its registry.
  HookHandle survivor;
  {
    HookRegistry gone;
    survivor = gone.add(HookSite::Keys, 0, [](const HookContext&, at::Tensor&) {});
  }
  survivor.remove();
  SUCCEED("removing a hook of a destroyed registry is a no-op");
}
