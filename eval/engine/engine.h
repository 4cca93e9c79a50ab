// The evaluation engine: every compression variant of a comparison (method x budget x
// ratio, and the full cache) on one prefill per sample.
//
// All methods here compress only after the prefill and only observe it (window attention,
// accumulated attention, hidden states), so for each sample the engine builds the prompt
// once, prefills once with every pending variant's observers attached, and then, per variant,
// copies the full cache and compresses the copy; then all variants decode greedily from the
// prefill's logits, batched by cached length (greedy_continue_batch).
// Predictions and kept-token counts equal, byte for byte, those of separate single-method
// runs (tests/eval/engine).
//
// Each variant writes its own run folder in its task's format (<out>/<task>.jsonl, plus
// kept/<task>.jsonl), resumable per (variant, sample): a killed run loses nothing finished
// and a torn last line is redone (eval/run_state.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/compress/compression.h"
#include "eval/engine/task.h"
#include "eval/run_state.h"
#include "models/model/causal_lm.h"

namespace ripplekv::eval {

struct RunProgress;  // eval/progress_bar.h

struct EngineVariant {
  std::string label;                          // for messages, e.g. "snapkv b128"
  std::filesystem::path out_dir;              // its run folder
  const CompressionMethod* method = nullptr;  // required; selector "full" keeps the whole cache
};

struct EngineOptions {
  Shard shard;
  // The model's end-of-sequence tokens (and its tokenizer's); each task adds its own.
  TokenIds stop_tokens;
  // Non-empty: each sample's prompt text and token counts go to <prompts_dir>/<task>.jsonl.
  std::filesystem::path prompts_dir;
  bool progress = true;  // a progress line with an ETA on stderr
  // Not owned; may be null. The whole run's progress over the tasks of a command's call
  // (its `pending` summed from pending_samples): each task's progress line shows it too.
  RunProgress* run_progress = nullptr;
  // > 0: a sample whose prompt plus generation exceeds this many tokens is an error (naming
  // the task and sample) before anything of it runs.
  int64_t context_tokens = 0;
  // Decode a sample's variants as batches of rows (greedy_continue_batch) instead of one
  // after another. Tokens are equal on the test fixtures; batched arithmetic may round
  // differently (see models/generation/generate.h).
  bool batch_decode = true;
};

struct EngineTaskStats {
  std::size_t samples = 0;    // samples prefilled in this call
  std::size_t decodes = 0;    // (variant, sample) predictions written in this call
  std::size_t copied = 0;     // (variant, sample) lines copied from the folder's other files
  double prefill_seconds = 0;
  double compress_seconds = 0;
  double decode_seconds = 0;
  double wall_seconds = 0;
};

// A variant's folder name for a method text at a budget: "snapkv_b128",
// "snapkv+ripple@ratio=4_b128", "full" (budgets do not apply to the full cache). A name of
// more than 240 characters (a file name holds 255 bytes) is cut to 200 and followed by a hash
// of the whole text.
std::string variant_folder(const std::string& method_text, const CompressionSpec& spec);

// The samples of `task` that `options.shard` owns and some variant's predictions file lacks
// (and the folder's other files do not hold: see predictions_in_other_files): those run_task
// would prefill now. Reads the files without changing them.
std::size_t pending_samples(const Task& task, const std::vector<EngineVariant>& variants, const EngineOptions& options);

// Runs the samples of `task` that `options.shard` owns for every variant whose predictions
// file lacks them, after copying into it the lines of those the folder's other prediction
// files hold (a whole run's for a shard, the shards' for a whole run: predictions_in_other_files).
// Throws std::invalid_argument when two variants share a folder.
EngineTaskStats run_task(const CausalLM& model, const Task& task, const std::vector<EngineVariant>& variants,
                         const EngineOptions& options);

}  // namespace ripplekv::eval
