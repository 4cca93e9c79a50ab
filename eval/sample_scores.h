// Per-sample scores of a run, keyed by sample id, for confidence intervals and paired
// comparisons between methods (`ripplekv table`). Written beside result.json by the LongBench
// and RULER scorers as sample_scores.json:
//   {"format": "ripplekv-sample-scores", "version": 1,
//    "columns": {"<column>": {"ids": [...], "scores": [...]}}}
// where <column> is a key of result.json ("qasper", "niah_single_1@4096") and scores are in
// its units (x100: the column's score is their mean, before rounding). Torch-free.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ripplekv::eval {

struct ColumnSamples {
  std::vector<std::string> ids;  // the sample's "_id" (or "#<line>" when the file has none)
  std::vector<double> scores;
};

using SampleScores = std::map<std::string, ColumnSamples>;

std::string sample_scores_json(const SampleScores& scores);
void write_sample_scores(const std::filesystem::path& path, const SampleScores& scores);
// Throws std::runtime_error naming the file for a bad file (not JSON, another format, ids and
// scores of different lengths, a repeated id, a score that is not a number).
SampleScores read_sample_scores(const std::filesystem::path& path);

}  // namespace ripplekv::eval
