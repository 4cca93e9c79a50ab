// ROUGE-L (summary level) exactly as the `rouge` package 1.0.1 (pltrdy) computes it
// through Rouge().get_scores([hyp], [ref], avg=True)["rouge-l"], the call LongBench's
// rouge_score makes. Behaviour reproduced on purpose:
//  * sentences are hyp.split(".") pieces of non-zero length, each whitespace-normalised
//    with " ".join(piece.split()); words are sentence.split(" "), so a whitespace-only
//    piece contributes the empty word "";
//  * exclusive=True: hypothesis/reference word counts are counts of DISTINCT words, and
//    the overlap is the number of distinct words in the union of one reconstructed LCS
//    per (reference sentence, hypothesis sentence) pair, with the package's tie-breaking;
//  * f = 2 * ((p * r) / (p + r + 1e-8));
//  * get_scores raises (and LongBench then scores 0) when either side has no sentence,
//    or when the package's recursive LCS reconstruction exceeds Python's recursion
//    limit (1000 frames, 991 of them left for the recursion under eval.py).
#pragma once

#include <cstdint>
#include <string_view>

namespace ripplekv::eval {

struct RougeOptions {
  // Frames available to rouge_score's recursive _recon under `python eval.py` with
  // the default sys.getrecursionlimit() of 1000 (nine frames are already in use:
  // <module>, scorer, rouge_score, get_scores, _get_avg_scores, the metric lambda,
  // rouge_l_summary_level, _union_lcs, _recon_lcs). Measured with CPython 3.11.
  int max_recon_frames = 991;
};

enum class RougeStatus {
  kOk,
  kEmptyHypothesis,  // ValueError("Hypothesis is empty.") from rouge-1
  kEmptyReference,   // ValueError("Reference is empty.") from rouge-1
  kRecursionLimit,   // RecursionError from rouge-l's _recon
};

struct RougeLResult {
  RougeStatus status = RougeStatus::kOk;
  // The raw_results=True numbers: distinct hypothesis words, distinct reference
  // words, union-LCS overlap.
  int64_t hyp_words = 0;
  int64_t ref_words = 0;
  int64_t overlap = 0;
  double p = 0.0;
  double r = 0.0;
  double f = 0.0;
};

RougeLResult rouge_l_summary_level(std::string_view hypothesis, std::string_view reference,
                                   const RougeOptions& options = {});

}  // namespace ripplekv::eval
