// The options of the `ripple` allocator, declared once: the allocator's own (profile, ratio,
// normalize, score) and those of profiling on the fly when no profile is given (calibration and
// the profiler's settings, read by core/ripple/profile_runner). Its row of the policy catalog
// (core/compress/policy_catalog.cpp) carries them. Torch-free.
#pragma once

#include <string>
#include <vector>

#include "core/compress/option_schema.h"

namespace ripplekv {

const std::vector<OptionSpec>& ripple_option_specs();

// The options of the `ripple_prompt` allocator (core/ripple/prompt_ripple_allocator.cpp): the
// mapping's and the noise's, the same declarations as ripple's, said of the prompt itself.
const std::vector<OptionSpec>& ripple_prompt_option_specs();

// The declared default of one of them (std::logic_error for an undeclared key).
const std::string& ripple_option_default(const std::string& key);

}  // namespace ripplekv
