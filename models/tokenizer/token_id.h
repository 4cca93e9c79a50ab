// The one token-id type, from the tokenizer through prompts, tasks, generation and the
// predictions: int64_t, what LibTorch's index tensors hold, so ids cross no conversion.
// Torch-free.
#pragma once

#include <cstdint>
#include <vector>

namespace ripplekv {

using TokenId = int64_t;
using TokenIds = std::vector<TokenId>;

}  // namespace ripplekv
