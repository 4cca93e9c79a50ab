// What the evaluation engine (eval/engine/engine.h) needs of a benchmark: a list of samples,
// each with a model input built once, a generation rule, how generated tokens become a
// prediction, and the line a finished sample writes to its predictions file. LongBench
// (eval/longbench_task.h), RULER and the needle test implement it; the engine runs every
// compression variant of a comparison on one prefill per sample. Torch-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ripplekv::eval {

// The model input of one sample.
struct TaskPrompt {
  std::vector<int> ids;         // what the model reads: template applied, BOS included, truncated
  std::string text;             // the prompt text the ids encode (for --save-prompts)
  int64_t original_tokens = 0;  // before truncation (= ids.size() when nothing was cut)
  bool truncated = false;
};

// How long and until what a sample's answer is generated.
struct TaskDecoding {
  int64_t max_new_tokens = 0;
  std::vector<int> extra_stop_tokens;  // beyond the model's end-of-sequence tokens
  // No stop token may be chosen for the first this-many new tokens (HF's min_length: their
  // logits are masked, so the next-best token is taken).
  int64_t min_new_tokens = 0;
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
  virtual std::string prediction(const std::vector<int64_t>& generated, int64_t stop_token) const = 0;
  // The predictions-file line of sample k (JSON, no newline); it carries "_id": sample_id(k).
  virtual std::string record(std::size_t k, const std::string& prediction) const = 0;
};

}  // namespace ripplekv::eval
