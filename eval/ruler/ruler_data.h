// RULER samples in the format RULER's prepare.py writes (<task>/validation.jsonl):
//   {"index": 0, "input": "...", "outputs": ["..."], "length": 4012, "length_w_model_temp": 4012,
//    "answer_prefix": " The special magic number ... are", ...}
// `input` is the task text without the answer prefix; the model reads input + answer_prefix
// (ripplekv puts the input in the model's chat template and starts the answer with the
// prefix). Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ripplekv::eval {

struct RulerSample {
  int64_t index = 0;
  std::string input;
  std::vector<std::string> outputs;  // the reference answers
  int64_t length = 0;                // tokens of input + answer_prefix, plus tokens_to_generate
  std::string answer_prefix;
  // Generator bookkeeping (not in the file): haystack units this sample used (sentences, noise
  // lines, essay words, list words) and the size RULER's search settled on for the task.
  int64_t haystack = 0;
  int64_t haystack_searched = 0;
};

// Reads a validation.jsonl. Throws std::runtime_error naming the file and line for a record
// without "input" (string), "outputs" (list of strings) or "index" (integer), or with an
// index seen twice; and for a file with no records.
std::vector<RulerSample> read_ruler_samples(const std::filesystem::path& path);
// One line of validation.jsonl (no newline).
std::string ruler_sample_line(const RulerSample& sample);
// Writes all samples (to a temporary file renamed into place).
void write_ruler_samples(const std::filesystem::path& path, const std::vector<RulerSample>& samples);

}  // namespace ripplekv::eval
