// RULER's scoring (scripts/eval/evaluate.py and eval/synthetic/constants.py): a prediction
// is stripped, every character U+0000..U+001F becomes "\n", it is stripped again, and each
// reference counts when it occurs in the prediction after Python's str.lower() on both.
// string_match_all averages the fraction of references found; string_match_part takes 1
// when any is found. Task scores are x100, rounded to 2 decimals as Python's round().
// Torch-free.
#pragma once

#include <string>
#include <vector>

#include "eval/ruler/ruler_tasks.h"

namespace ripplekv::eval {

std::string ruler_postprocess(const std::string& prediction);
// One sample's score in [0, 100] (before averaging and rounding), on a postprocessed prediction.
double ruler_sample_score(RulerMetric metric, const std::string& postprocessed, const std::vector<std::string>& refs);
// The task score over all samples, as evaluate.py reports it (postprocessing included).
double ruler_task_score(RulerMetric metric, const std::vector<std::string>& predictions,
                        const std::vector<std::vector<std::string>>& references);
// Empty predictions after postprocessing ("k/n", evaluate.py's nulls column).
std::string ruler_nulls(const std::vector<std::string>& predictions);

}  // namespace ripplekv::eval
