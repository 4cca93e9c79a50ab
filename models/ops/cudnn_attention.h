#pragma once

// Where ATen's scaled_dot_product_attention may pick cuDNN attention on a CUDA device.
//
// On Hopper and newer GPUs, recent ATen tries cuDNN attention first for half types, and cuDNN
// builds (and caches) one execution graph per exact Q/K/V/mask shape; a build costs tens of
// milliseconds. Decoding changes the key length every step, and a compressed or variant cache
// gives every layer its own length, so each layer of each step would build a graph. By default
// ripplekv therefore keeps cuDNN attention to the one call whose shape repeats only once per
// prompt (the causal prefill over keys that are the prompt itself), and lets ATen choose among
// its other kernels (flash, memory-efficient, math) everywhere else. The CPU is never affected.
namespace ripplekv::ops {

// true: cuDNN attention may run everywhere (ATen's own choice), e.g. to measure the difference.
void set_cudnn_attention_everywhere(bool allow);
bool cudnn_attention_everywhere();

// Turns ATen's cuDNN attention off for its lifetime when `on_cuda` and the setting above is
// false; restores the previous state when destroyed. Scoped to one attention call.
class NoCudnnAttention {
 public:
  explicit NoCudnnAttention(bool on_cuda);
  ~NoCudnnAttention();
  NoCudnnAttention(const NoCudnnAttention&) = delete;
  NoCudnnAttention& operator=(const NoCudnnAttention&) = delete;

 private:
  bool active_ = false;
  bool previous_ = false;
};

}  // namespace ripplekv::ops
