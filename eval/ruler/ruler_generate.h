// RULER samples generated natively, for any tokenizer and length, from a seed: the
// generators of RULER's scripts/data/synthetic (niah.py, variable_tracking.py,
// common_words_extraction.py, freq_words_extraction.py) re-implemented with their templates,
// task parameters and length control: a haystack size is found by RULER's binary search so
// that tokens(input + answer_prefix) + tokens_to_generate <= max_seq_length, then each
// sample shrinks its haystack by RULER's increment until it fits.
//
// Not reproduced bit for bit: Python's random streams (each sample here has its own stream,
// seeded from the seed, the task, the length and the sample number, so shards and resumed
// runs regenerate the same samples), nltk punkt (see sentence_split.h), RULER's fixed-seed
// shuffles (a fresh shuffle per sample here) and its `index` quirk (niah writes the answer's
// character position there; here it is the sample number). Structure, answers and lengths
// are compared with RULER's own output in tests/eval/ruler. Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "eval/ruler/ruler_data.h"
#include "eval/ruler/ruler_tasks.h"

namespace ripplekv::eval {

// What the generators draw from.
struct RulerResources {
  std::vector<std::string> essay_words;  // the essays, whitespace runs collapsed, split on " "
  std::vector<std::string> nouns, adjectives, verbs;  // wonderwords' lists
};

// Essays: every *.txt of `essay_dir` in sorted file-name order, concatenated with nothing
// between them (RULER's PaulGrahamEssays.json). Words: nounlist.txt, adjectivelist.txt and
// verblist.txt of `words_dir` (scripts/get_ruler_data.sh), one word per line with trailing whitespace
// removed (as wonderwords reads them). Only what `tasks` need is read; a missing folder or file is an error
// naming it and how to get it.
RulerResources load_ruler_resources(const std::filesystem::path& essay_dir, const std::filesystem::path& words_dir,
                                    const std::vector<const RulerTask*>& tasks);

// Tokens of a text as the model's tokenizer counts them (no BOS), like RULER's
// len(tokenizer.text_to_tokens(text)).
using TokenCounter = std::function<int64_t(const std::string&)>;

struct RulerGenerateOptions {
  int64_t max_seq_length = 4096;  // input + answer prefix + generated tokens
  int64_t num_samples = 10;
  uint64_t seed = 42;
};

// Throws std::invalid_argument when the length cannot hold the task (e.g. a needle and the
// question alone exceed it), or when cwe needs more distinct words than the lists hold.
std::vector<RulerSample> generate_ruler_samples(const RulerTask& task, const RulerResources& resources,
                                                const TokenCounter& count_tokens, const RulerGenerateOptions& options);

}  // namespace ripplekv::eval
