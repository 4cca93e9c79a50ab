// What the evaluation engine (eval/engine/engine.h) needs of a benchmark: a list of samples,
// each with a model input built once, a generation rule, how generated tokens become a
// prediction, and the line a finished sample writes to its predictions file. LongBench
// (eval/longbench_task.h), RULER and the needle test implement it; the engine runs every
// compression variant of a comparison on one prefill per sample.
//
// A sample may instead carry a forced continuation (fidelity, eval/fidelity/fidelity_task.h):
// the engine then feeds those tokens after the prompt, one at a time (teacher forcing), and
// compares each variant's next-token distributions with the full cache's. Torch-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/tokenizer/token_id.h"

namespace ripplekv::eval {

// The model input of one sample.
struct TaskPrompt {
  TokenIds ids;         // what the model reads: template applied, BOS included, truncated
  std::string text;             // the prompt text the ids encode (for --save-prompts)
  int64_t original_tokens = 0;  // before truncation (= ids.size() when nothing was cut)
  bool truncated = false;
};

// How long and until what a sample's answer is generated.
struct TaskDecoding {
  int64_t max_new_tokens = 0;
  TokenIds extra_stop_tokens;  // beyond the model's end-of-sequence tokens
  // No stop token may be chosen for the first this-many new tokens (HF's min_length: their
  // logits are masked, so the next-best token is taken).
  int64_t min_new_tokens = 0;
  // Non-empty: nothing is generated; the engine feeds these tokens and compares distributions.
  TokenIds forced;
};

// One variant against the full cache along a sample's forced continuation of n tokens:
// position 0 is the distribution after the prompt (computed before compression, so equal),
// position i the one after forced tokens 0..i-1.
struct ForcedComparison {
  std::vector<double> kl;        // KL(full || variant) per position, in nats
  int64_t top1_agree = 0;        // positions whose most likely token is the same
  double kv_fraction = 1;        // kept / full prompt KV bytes
  bool compressed = false;
};

class Task {
 public:
  virtual ~Task() = default;
  // The predictions file of a run folder is <name>.jsonl.
  virtual const std::string& name() const = 0;
  virtual std::size_t size() const = 0;
  // Unique within the task; the key a resumed run skips finished samples by.
  virtual const std::string& sample_id(std::size_t k) const = 0;
  virtual TaskPrompt prompt(std::size_t k) const = 0;
  virtual TaskDecoding decoding(std::size_t k) const = 0;
  // The prediction text from the generated tokens (stop token excluded; `stop_token` is the
  // one generation ended on, or -1).
  virtual std::string prediction(const TokenIds& generated, TokenId stop_token) const = 0;
  // The predictions-file line of sample k (JSON, no newline); it carries "_id": sample_id(k).
  virtual std::string record(std::size_t k, const std::string& prediction) const = 0;
  // The line of sample k when its decoding has a forced continuation (JSON, no newline, with
  // "_id"). Tasks without forced continuations never receive one.
  virtual std::string forced_record(std::size_t k, const ForcedComparison& comparison) const;
  // A key every line of the task's records file carries: a file whose lines lack it was not
  // written by this task (and is refused rather than appended to).
  virtual std::string record_key() const { return "pred"; }
};

}  // namespace ripplekv::eval
