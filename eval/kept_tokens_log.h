// Per-layer kept prompt tokens of a compressed run, for plots of how each method spreads its
// budget over the layers: the engine appends one line per finished sample to kept/<task>.jsonl
// (kept/<task>.shard-i-of-n.jsonl for a shard; under the run folder for LongBench and needle,
// under <length>/ for RULER), before the sample's prediction line, so that a finished sample
// (one with a prediction) always has its line, even when the disk fills or the run is killed
// between the two writes (the sample is then redone and its line written again; the last line
// of an id counts). A sample a run copies from another prediction file of its folder
// (predictions_in_other_files) keeps its line in that file's log, which is why readers take
// every kept/*.jsonl:
//   {"_id": ..., "prompt_tokens": 380, "compressed": true, "kept": [96, 80, ...]}
// Nothing reads these files to decide anything (a missing line only thins the statistics).
// Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "eval/run_state.h"

namespace ripplekv::eval {

std::filesystem::path kept_tokens_path(const std::filesystem::path& out_dir, const std::string& task,
                                       const Shard& shard);

// Appends the sample's line (creating kept/ if needed). Throws std::runtime_error naming the
// file when it cannot be written.
void append_kept_tokens(const std::filesystem::path& out_dir, const std::string& task, const Shard& shard,
                        const std::string& sample_id, int64_t prompt_tokens, bool compressed,
                        const std::vector<int64_t>& kept);

struct KeptTokensSummary {
  std::vector<double> mean_kept;  // per layer, over the samples counted
  std::size_t samples = 0;        // samples counted (the compressed ones; all when none was)
  double mean_prompt_tokens = 0;
};

// Over every kept/*.jsonl of a run folder, and every <length>/kept/*.jsonl of a RULER variant
// folder (`ripplekv ruler` writes one folder per prompt length; a sample of each length
// counts once): the last line of a sample id counts. Empty (samples == 0) when there are none.
// Lines that are not valid JSON are skipped.
KeptTokensSummary summarize_kept_tokens(const std::filesystem::path& out_dir);

}  // namespace ripplekv::eval
