#include "models/ops/cudnn_attention.h"

#include <ATen/Context.h>

#include <atomic>

namespace ripplekv::ops {

namespace {
std::atomic<bool> everywhere{false};
}  // namespace

void set_cudnn_attention_everywhere(bool allow) { everywhere.store(allow); }

bool cudnn_attention_everywhere() { return everywhere.load(); }

NoCudnnAttention::NoCudnnAttention(bool on_cuda) : active_(on_cuda && !everywhere.load()) {
  if (!active_) return;
  auto& ctx = at::globalContext();
  previous_ = ctx.userEnabledCuDNNSDP();
  ctx.setSDPUseCuDNN(false);
}

NoCudnnAttention::~NoCudnnAttention() {
  if (active_) at::globalContext().setSDPUseCuDNN(previous_);
}

}  // namespace ripplekv::ops
