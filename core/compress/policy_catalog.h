// What each compression policy is and which options it reads: one row per token selector and
// per layer budget allocator, with its option schema (core/compress/option_schema.h). The
// registry (registry.cpp) pairs each row with its factory; this half is torch-free, so that
// sweep files (eval/experiments) can type `[method.X]` keys, and `ripplekv methods` prints the
// README's method tables from it.
#pragma once

#include <string>
#include <vector>

#include "core/compress/option_schema.h"

namespace ripplekv {

struct PolicyInfo {
  std::string name;
  std::string summary;    // one line, for --help
  std::string reference;  // the method and the implementation it reproduces
  std::vector<OptionSpec> options;
  // Reads a file tied to particular weights (a sensitivity profile), or measures one: the model
  // must be loaded before the policy is made (its identity is checked; see PolicyOptions::model).
  bool model_bound = false;
};

// Whether the allocator of this name is model_bound (false for unknown names).
bool allocator_is_model_bound(const std::string& name);
// Whether the policy of this name declares option `key`.
bool allocator_declares(const std::string& name, const std::string& key);

const std::vector<PolicyInfo>& selector_catalog();
const std::vector<PolicyInfo>& allocator_catalog();

// nullptr when there is no such policy.
const PolicyInfo* find_selector_info(const std::string& name);
const PolicyInfo* find_allocator_info(const std::string& name);

// The policy's declaration of option `key`; nullptr when it has none.
const OptionSpec* find_option(const PolicyInfo& policy, const std::string& key);

// The first declaration of `key` among all selectors and allocators (for typing a key before
// the method is known); nullptr when no policy reads it.
const OptionSpec* find_policy_option(const std::string& key);

// The README's two method tables (selectors, allocators), Markdown.
std::string policy_tables_markdown();

// Every policy with each option's type, default and help, for `ripplekv methods`.
std::string policy_options_text();

}  // namespace ripplekv
