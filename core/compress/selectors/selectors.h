// Factories of the built-in token selectors (one file each); see registry.cpp for the table.
#pragma once

#include <memory>

#include "core/compress/policy_options.h"
#include "core/compress/token_selector.h"

namespace ripplekv {

std::unique_ptr<TokenSelector> make_full_selector(PolicyOptions& o);
std::unique_ptr<TokenSelector> make_snapkv_selector(PolicyOptions& o);
std::unique_ptr<TokenSelector> make_streamingllm_selector(PolicyOptions& o);
std::unique_ptr<TokenSelector> make_h2o_selector(PolicyOptions& o);
std::unique_ptr<TokenSelector> make_random_selector(PolicyOptions& o);
std::unique_ptr<TokenSelector> make_knorm_selector(PolicyOptions& o);
std::unique_ptr<TokenSelector> make_cake_selector(PolicyOptions& o);

}  // namespace ripplekv
