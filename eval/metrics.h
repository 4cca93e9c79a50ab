// The official LongBench v1 metrics (THUDM/LongBench metrics.py + eval.py), one
// stateless function each, reproducing the Python results bit for bit, quirks
// included. Strings are UTF-8; where Python works on str (code points) these work
// on UTF-32 code points too (see eval/python_text.h).
//
// Not reproduced: qa_f1_zh_score and rouge_zh_score (multifieldqa_zh, dureader,
// vcsum) tokenize with jieba; score_pair() refuses them with an error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "eval/longbench_tasks.h"
#include "eval/rouge_l.h"

namespace ripplekv::eval {

// --- per (prediction, ground truth) pair -------------------------------------

// normalize_answer: lower(), drop ASCII string.punctuation, replace \b(a|an|the)\b
// with a space, collapse Unicode whitespace.
std::string normalize_answer(std::string_view text);

// qa_f1_score: bag-of-words F1 over normalize_answer(...).split().
double qa_f1_score(std::string_view prediction, std::string_view ground_truth);

// rouge_score: ROUGE-L F of the `rouge` package; 0.0 wherever the package raises.
double rouge_score(std::string_view prediction, std::string_view ground_truth,
                   const RougeOptions& options = {});

// classification_score, with the official loop that removes from the list it is
// iterating over (so a removal skips the next element) and that removes the first
// equal element. The difflib fallback of metrics.py is unreachable there
// (`em_match_list != 0` is always true) and so is absent here too.
double classification_score(std::string_view prediction, std::string_view ground_truth,
                            const std::vector<std::string>& all_classes);

// count_score: share of the \d+ runs in the prediction equal to the ground truth.
// \d is Unicode-aware (Python str regex), so e.g. "٣" counts as a number.
double count_score(std::string_view prediction, std::string_view ground_truth);

// retrieval_score / retrieval_zh_score: as count_score with the id taken from the
// first "Paragraph (\d+)" / "段落(\d+)" in the ground truth. A ground truth without
// one makes eval.py fail (IndexError); here it throws std::invalid_argument.
double retrieval_score(std::string_view prediction, std::string_view ground_truth);
double retrieval_zh_score(std::string_view prediction, std::string_view ground_truth);

// code_sim_score: fuzz_ratio(first line of prediction.lstrip('\n') holding none of
// '`', '#', "//" (or "" when none), ground_truth) / 100.
double code_sim_score(std::string_view prediction, std::string_view ground_truth);
std::string code_sim_line(std::string_view prediction);

// fuzzywuzzy 0.18.0 fuzz.ratio with python-Levenshtein installed: 100 when equal,
// 0 when either is empty, else int(round(100 * Levenshtein.ratio(a, b))).
int fuzz_ratio(std::string_view a, std::string_view b);

// Levenshtein.ratio of python-Levenshtein >= 0.20 (RapidFuzz's Indel normalized
// similarity) on code points: 1.0 - indel_distance / (len(a) + len(b)), 1.0 if both
// are empty. (python-Levenshtein < 0.20 computed (lensum - dist) / lensum, which can
// differ in the last bit and, rarely, in fuzz.ratio's rounding.)
double levenshtein_ratio(std::u32string_view a, std::u32string_view b);

// --- per sample and per task (eval.py's scorer) --------------------------------

// pred.lstrip('\n').split('\n')[0], applied for tasks with first_line_only.
std::string first_line(std::string_view prediction);

// The metric of `task` for one pair. `all_classes` is required for classification.
// Throws std::invalid_argument for the jieba metrics and for missing all_classes.
double score_pair(const LongBenchTask& task, std::string_view prediction,
                  std::string_view ground_truth, const std::vector<std::string>* all_classes,
                  const RougeOptions& rouge_options = {});

// eval.py per sample: first-line cut when the task asks for it, then the max over
// ground truths starting from 0.0 (0.0 for no ground truth).
double score_sample(const LongBenchTask& task, std::string_view prediction,
                    const std::vector<std::string>& ground_truths,
                    const std::vector<std::string>* all_classes,
                    const RougeOptions& rouge_options = {});

// eval.py's scorer: round(100 * total / n, 2), total summed in order, Python round.
// Throws std::invalid_argument for an empty list (eval.py divides by zero).
double task_score(const std::vector<double>& sample_scores);

// eval.py's scorer_e (LongBench-E): samples bucketed by `length` into <4000,
// 4000..7999 and >=8000; each bucket round(100 * np.mean(scores), 2) with numpy's
// mean and round. An empty bucket is NaN, as in eval.py.
struct LengthBucketScores {
  double k0_4k;
  double k4_8k;
  double k8k_plus;
};
LengthBucketScores task_score_by_length(const std::vector<double>& sample_scores,
                                        const std::vector<long long>& lengths);

}  // namespace ripplekv::eval
