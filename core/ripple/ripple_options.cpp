#include "core/ripple/ripple_options.h"

#include <algorithm>
#include <stdexcept>

namespace ripplekv {

const std::vector<OptionSpec>& ripple_option_specs() {
  static const std::vector<OptionSpec> specs = {
      {"profile", OptionKind::kText, "", "the sensitivity profile (JSON from `ripplekv profile`)"},
      {"ratio", OptionKind::kNumber, "2", "r >= 1: the largest over the smallest layer multiplier (1 = uniform)"},
      {"normalize", OptionKind::kChoice, "minmax", "how the per-layer scores are normalised before the mapping",
       {"minmax", "rank"}},
      {"score", OptionKind::kChoice, "mean",
       "which per-layer statistic of the KL is the sensitivity: over every text, position and draw (mean, p50, p90, "
       "max), or the median over texts of each text's mean (text_median)",
       {"mean", "p50", "p90", "max", "text_median"}},
      {"calibration", OptionKind::kText, "", "without profile=: profile on the fly on this text file"},
      {"calibration_samples", OptionKind::kInt, "16", "on the fly: N texts (after calibration_skip)"},
      {"calibration_skip", OptionKind::kInt, "0", "on the fly: texts passed over first (a disjoint calibration set)"},
      {"calibration_max_tokens", OptionKind::kInt, "1024", "on the fly: each text cut to its first N tokens"},
      {"kl_positions", OptionKind::kInt, "32", "on the fly: KL measured at the last K positions"},
      {"draws", OptionKind::kInt, "1", "on the fly: noise draws per layer"},
      {"eps", OptionKind::kNumber, "0.1", "on the fly: the noise scale relative to each value vector's norm"},
      {"noise", OptionKind::kChoice, "layer_mean", "on the fly: how the noise scales (as `ripplekv profile --noise`)",
       {"relative", "layer_mean", "multiplicative"}},
      {"positions", OptionKind::kChoice, "all", "on the fly: perturbed tokens: all, or context (all but the last kl_positions)",
       {"all", "context"}},
      {"direction", OptionKind::kChoice, "forward", "on the fly: KL(clean||perturbed) forward, reverse or symmetric",
       {"forward", "reverse", "symmetric"}},
      {"seed", OptionKind::kInt, "0", "on the fly: noise seed"},
      {"profile_cache", OptionKind::kText, "", "on the fly: cache folder (default ~/.cache/ripplekv/profiles)"},
      {"profile_dtype", OptionKind::kChoice, "float32",
       "on the fly: measure in float32 (bfloat16 rounding swamps the small perturbation; a bfloat16 or float16 run "
       "holds a float32 copy of the checkpoint beside its weights while it profiles), or in the run's own dtype",
       {"float32", "run"}},
  };
  return specs;
}

const std::vector<OptionSpec>& ripple_prompt_option_specs() {
  static const std::vector<OptionSpec> specs = [] {
    std::vector<OptionSpec> out;
    for (auto s : ripple_option_specs()) {
      if (s.name == "kl_positions") {
        s.help = "the prompt's last K tokens are replayed and their KL measured (K <= the selector's window keeps them)";
      } else if (s.name == "score") {
        s.help = "which statistic of the KL over the K replayed positions (and the draws) is the sensitivity";
        s.choices.erase(std::remove(s.choices.begin(), s.choices.end(), "text_median"), s.choices.end());  // one prompt
      } else if (s.name == "draws") {
        s.help = "noise draws per layer, each replayed: their KLs are pooled (cost: draws x the perturbed replays)";
      } else if (s.name == "ratio" || s.name == "normalize" || s.name == "eps" || s.name == "noise" ||
                 s.name == "direction" || s.name == "seed") {
        const std::string prefix = "on the fly: ";
        if (s.help.rfind(prefix, 0) == 0) s.help = s.help.substr(prefix.size());
      } else {
        continue;
      }
      out.push_back(s);
    }
    return out;
  }();
  return specs;
}

const std::string& ripple_option_default(const std::string& key) {
  for (const auto& s : ripple_option_specs()) {
    if (s.name == key) return s.default_value;
  }
  throw std::logic_error("ripple: no option " + key + " is declared");
}

}  // namespace ripplekv
