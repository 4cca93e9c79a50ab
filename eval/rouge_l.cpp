#include "eval/rouge_l.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "eval/python_text.h"

namespace ripplekv::eval {
namespace {

using Sentence = std::vector<int>;  // word ids

// Interns words so that sentences compare as int vectors.
class WordIds {
 public:
  int id(const std::u32string& word) {
    auto [it, inserted] = ids_.emplace(word, static_cast<int>(ids_.size()));
    return it->second;
  }

 private:
  std::unordered_map<std::u32string, int> ids_;
};

// [" ".join(_.split()) for _ in text.split(".") if len(_) > 0], then each
// sentence.split(" ") (a sentence of no words splits into [""]).
std::vector<Sentence> split_sentences(std::u32string_view text, WordIds& ids) {
  std::vector<Sentence> sentences;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t dot = text.find(U'.', start);
    if (dot == std::u32string_view::npos) dot = text.size();
    const std::u32string_view piece = text.substr(start, dot - start);
    if (!piece.empty()) {
      Sentence sentence;
      const auto words = py_split_whitespace(piece);
      if (words.empty()) {
        sentence.push_back(ids.id(U""));
      } else {
        for (const auto& w : words) sentence.push_back(ids.id(w));
      }
      sentences.push_back(std::move(sentence));
    }
    start = dot + 1;
  }
  return sentences;
}

std::size_t distinct_words(const std::vector<Sentence>& sentences) {
  std::unordered_set<int> set;
  for (const auto& s : sentences) set.insert(s.begin(), s.end());
  return set.size();
}

// The package's _recon_lcs(x=reference words, y=hypothesis words): walks the LCS
// table back from (len(x), len(y)) preferring the diagonal on a match, then "up"
// only when table[i-1][j] > table[i][j-1]. Adds the matched words to `union_words`.
// Returns false when the recursive Python version would need more than
// `max_frames` frames (one per call, the final i==0 or j==0 call included).
bool recon_lcs_words(const Sentence& x, const Sentence& y, int max_frames,
                     std::unordered_set<int>& union_words) {
  const std::size_t n = x.size();
  const std::size_t m = y.size();
  // Every call lowers i or j by at least one until one reaches 0, so at least
  // min(n, m) + 1 frames: skip building a table we cannot use.
  if (static_cast<int64_t>(std::min(n, m)) + 1 > max_frames) return false;
  const std::size_t width = m + 1;
  std::vector<int32_t> table((n + 1) * width, 0);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      if (x[i - 1] == y[j - 1]) {
        table[i * width + j] = table[(i - 1) * width + (j - 1)] + 1;
      } else {
        table[i * width + j] =
            std::max(table[(i - 1) * width + j], table[i * width + (j - 1)]);
      }
    }
  }
  std::vector<int> matched;
  std::size_t i = n, j = m;
  int64_t frames = 1;
  while (i != 0 && j != 0) {
    if (x[i - 1] == y[j - 1]) {
      matched.push_back(x[i - 1]);
      --i;
      --j;
    } else if (table[(i - 1) * width + j] > table[i * width + (j - 1)]) {
      --i;
    } else {
      --j;
    }
    ++frames;
  }
  if (frames > max_frames) return false;
  union_words.insert(matched.begin(), matched.end());
  return true;
}

}  // namespace

RougeLResult rouge_l_summary_level(std::string_view hypothesis, std::string_view reference,
                                   const RougeOptions& options) {
  RougeLResult result;
  WordIds ids;
  const auto hyp = split_sentences(utf8_to_u32(hypothesis), ids);
  const auto ref = split_sentences(utf8_to_u32(reference), ids);
  // get_scores runs rouge-1 first; its rouge_n checks the hypothesis, then the reference.
  if (hyp.empty()) {
    result.status = RougeStatus::kEmptyHypothesis;
    return result;
  }
  if (ref.empty()) {
    result.status = RougeStatus::kEmptyReference;
    return result;
  }
  result.ref_words = static_cast<int64_t>(distinct_words(ref));
  result.hyp_words = static_cast<int64_t>(distinct_words(hyp));
  std::unordered_set<int> union_words;
  for (const auto& ref_sentence : ref) {
    for (const auto& hyp_sentence : hyp) {
      if (!recon_lcs_words(ref_sentence, hyp_sentence, options.max_recon_frames, union_words)) {
        result.status = RougeStatus::kRecursionLimit;
        return result;
      }
    }
  }
  result.overlap = static_cast<int64_t>(union_words.size());
  const double llcs = static_cast<double>(result.overlap);
  result.r = llcs / static_cast<double>(result.ref_words);
  result.p = llcs / static_cast<double>(result.hyp_words);
  result.f = 2.0 * ((result.p * result.r) / (result.p + result.r + 1e-8));
  return result;
}

}  // namespace ripplekv::eval
