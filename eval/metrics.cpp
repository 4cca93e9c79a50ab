#include "eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "eval/python_numeric.h"
#include "eval/python_text.h"

namespace ripplekv::eval {
namespace {

bool is_ascii_punctuation(char32_t c) {
  // string.punctuation
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

// re.sub(r"\b(a|an|the)\b", " ", text): leftmost match, alternatives tried in order,
// each needing a word boundary after it; scanning resumes after a match.
std::u32string remove_articles(const std::u32string& t) {
  static const std::u32string_view kArticles[] = {U"a", U"an", U"the"};
  std::u32string out;
  out.reserve(t.size());
  std::size_t i = 0;
  while (i < t.size()) {
    const bool boundary_before = (i == 0) || !py_is_word(t[i - 1]);
    std::size_t matched_len = 0;
    if (boundary_before) {
      for (const auto article : kArticles) {
        if (t.compare(i, article.size(), article) != 0) continue;
        const std::size_t end = i + article.size();
        if (end == t.size() || !py_is_word(t[end])) {
          matched_len = article.size();
          break;
        }
      }
    }
    if (matched_len > 0) {
      out.push_back(U' ');
      i += matched_len;
    } else {
      out.push_back(t[i]);
      ++i;
    }
  }
  return out;
}

std::u32string normalize_answer_u32(std::string_view text) {
  const std::u32string lowered = py_lower(utf8_to_u32(text));
  std::u32string no_punct;
  no_punct.reserve(lowered.size());
  for (char32_t c : lowered) {
    if (!is_ascii_punctuation(c)) no_punct.push_back(c);
  }
  return remove_articles(no_punct);
}

// metrics.py f1_score over token lists.
double token_f1(const std::vector<std::u32string>& prediction,
                const std::vector<std::u32string>& ground_truth) {
  std::map<std::u32string, long long> pred_counts;
  for (const auto& t : prediction) ++pred_counts[t];
  std::map<std::u32string, long long> gt_counts;
  for (const auto& t : ground_truth) ++gt_counts[t];
  long long num_same = 0;
  for (const auto& [token, count] : pred_counts) {
    const auto it = gt_counts.find(token);
    if (it != gt_counts.end()) num_same += std::min(count, it->second);
  }
  if (num_same == 0) return 0.0;
  const double precision = 1.0 * static_cast<double>(num_same) / static_cast<double>(prediction.size());
  const double recall = 1.0 * static_cast<double>(num_same) / static_cast<double>(ground_truth.size());
  return (2 * precision * recall) / (precision + recall);
}

// re.findall(r"\d+", text) with Unicode digits.
std::vector<std::u32string> digit_runs(const std::u32string& text) {
  std::vector<std::u32string> runs;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!py_isdecimal(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && py_isdecimal(text[j])) ++j;
    runs.push_back(text.substr(i, j - i));
    i = j;
  }
  return runs;
}

double share_of_numbers_equal(std::string_view prediction, const std::u32string& target) {
  const auto numbers = digit_runs(utf8_to_u32(prediction));
  if (numbers.empty()) return 0.0;
  long long right = 0;
  for (const auto& n : numbers) {
    if (n == target) ++right;
  }
  return static_cast<double>(right) / static_cast<double>(numbers.size());
}

// First match of `prefix` followed by \d+ (greedy) in `text`.
std::u32string first_id_after(std::string_view text, std::u32string_view prefix,
                              std::string_view metric) {
  const std::u32string t = utf8_to_u32(text);
  std::size_t pos = 0;
  while ((pos = t.find(prefix, pos)) != std::u32string::npos) {
    std::size_t j = pos + prefix.size();
    std::size_t k = j;
    while (k < t.size() && py_isdecimal(t[k])) ++k;
    if (k > j) return t.substr(j, k - j);
    ++pos;
  }
  throw std::invalid_argument(fmt::format(
      "{}: ground truth \"{}\" contains no \"{}<number>\" (the official eval.py fails with "
      "IndexError here); check that the answers belong to this task",
      metric, text, u32_to_utf8(prefix)));
}

}  // namespace

std::string normalize_answer(std::string_view text) {
  const auto words = py_split_whitespace(normalize_answer_u32(text));
  std::u32string joined;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) joined.push_back(U' ');
    joined += words[i];
  }
  return u32_to_utf8(joined);
}

double qa_f1_score(std::string_view prediction, std::string_view ground_truth) {
  // normalize_answer ends with " ".join(split()), and .split() again gives the same tokens.
  const auto pred_tokens = py_split_whitespace(normalize_answer_u32(prediction));
  const auto gt_tokens = py_split_whitespace(normalize_answer_u32(ground_truth));
  return token_f1(pred_tokens, gt_tokens);
}

double rouge_score(std::string_view prediction, std::string_view ground_truth,
                   const RougeOptions& options) {
  const RougeLResult r = rouge_l_summary_level(prediction, ground_truth, options);
  return r.status == RougeStatus::kOk ? r.f : 0.0;
}

double classification_score(std::string_view prediction, std::string_view ground_truth,
                            const std::vector<std::string>& all_classes) {
  std::vector<std::string> em_match_list;
  for (const auto& class_name : all_classes) {
    if (prediction.find(class_name) != std::string_view::npos) em_match_list.push_back(class_name);
  }
  // CPython's list iterator walks an index; list.remove drops the FIRST equal item
  // and shifts the rest left, so the element after a removed one is never visited.
  for (std::size_t index = 0; index < em_match_list.size();) {
    const std::string match_term = em_match_list[index];
    ++index;
    if (ground_truth.find(match_term) != std::string_view::npos && match_term != ground_truth) {
      const auto first = std::find(em_match_list.begin(), em_match_list.end(), match_term);
      em_match_list.erase(first);
    }
  }
  if (std::find(em_match_list.begin(), em_match_list.end(), ground_truth) != em_match_list.end()) {
    return 1.0 / static_cast<double>(em_match_list.size());
  }
  return 0.0;
}

double count_score(std::string_view prediction, std::string_view ground_truth) {
  return share_of_numbers_equal(prediction, utf8_to_u32(ground_truth));
}

double retrieval_score(std::string_view prediction, std::string_view ground_truth) {
  return share_of_numbers_equal(prediction,
                                first_id_after(ground_truth, U"Paragraph ", "retrieval_score"));
}

double retrieval_zh_score(std::string_view prediction, std::string_view ground_truth) {
  return share_of_numbers_equal(prediction,
                                first_id_after(ground_truth, U"段落", "retrieval_zh_score"));
}

std::string code_sim_line(std::string_view prediction) {
  for (const auto& line : py_split_char(py_lstrip_char(prediction, '\n'), '\n')) {
    if (line.find('`') == std::string::npos && line.find('#') == std::string::npos &&
        line.find("//") == std::string::npos) {
      return line;
    }
  }
  return "";
}

double code_sim_score(std::string_view prediction, std::string_view ground_truth) {
  return fuzz_ratio(code_sim_line(prediction), ground_truth) / 100.0;
}

double levenshtein_ratio(std::u32string_view a, std::u32string_view b) {
  const std::size_t lensum = a.size() + b.size();
  if (lensum == 0) return 1.0;
  // Indel distance = lensum - 2 * LCS; LCS by the classic row DP.
  std::vector<int64_t> row(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int64_t diag = 0;  // row[j-1] of the previous row
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int64_t up = row[j];
      row[j] = (a[i - 1] == b[j - 1]) ? diag + 1 : std::max(up, row[j - 1]);
      diag = up;
    }
  }
  const int64_t lcs = row[b.size()];
  const int64_t dist = static_cast<int64_t>(lensum) - 2 * lcs;
  const double norm_dist = static_cast<double>(dist) / static_cast<double>(lensum);
  return 1.0 - norm_dist;
}

int fuzz_ratio(std::string_view a, std::string_view b) {
  if (a == b) return 100;
  if (a.empty() || b.empty()) return 0;
  const double ratio = levenshtein_ratio(utf8_to_u32(a), utf8_to_u32(b));
  // utils.intr: int(round(x)); Python rounds half to even, as nearbyint does.
  return static_cast<int>(std::nearbyint(100 * ratio));
}

std::string first_line(std::string_view prediction) {
  const std::string_view s = py_lstrip_char(prediction, '\n');
  const std::size_t nl = s.find('\n');
  return std::string(nl == std::string_view::npos ? s : s.substr(0, nl));
}

double score_pair(const LongBenchTask& task, std::string_view prediction,
                  std::string_view ground_truth, const std::vector<std::string>* all_classes,
                  const RougeOptions& rouge_options) {
  switch (task.metric) {
    case Metric::kQaF1: return qa_f1_score(prediction, ground_truth);
    case Metric::kRougeL: return rouge_score(prediction, ground_truth, rouge_options);
    case Metric::kClassification:
      if (all_classes == nullptr) {
        throw std::invalid_argument(fmt::format(
            "task '{}' is scored by classification_score, which needs all_classes; the "
            "prediction records must carry a non-null \"all_classes\" list",
            task.name));
      }
      return classification_score(prediction, ground_truth, *all_classes);
    case Metric::kRetrieval: return retrieval_score(prediction, ground_truth);
    case Metric::kRetrievalZh: return retrieval_zh_score(prediction, ground_truth);
    case Metric::kCount: return count_score(prediction, ground_truth);
    case Metric::kCodeSim: return code_sim_score(prediction, ground_truth);
    case Metric::kQaF1Zh:
    case Metric::kRougeLZh:
      throw std::invalid_argument(fmt::format(
          "task '{}' is scored by {}, which segments Chinese text with jieba; ripplekv does "
          "not reproduce jieba, so it cannot match the official score. Leave '{}' out or "
          "score it with the official eval.py",
          task.name, metric_name(task.metric), task.name));
  }
  throw std::logic_error("score_pair: unhandled metric");
}

double score_sample(const LongBenchTask& task, std::string_view prediction,
                    const std::vector<std::string>& ground_truths,
                    const std::vector<std::string>* all_classes,
                    const RougeOptions& rouge_options) {
  std::string cut;
  if (task.first_line_only) {
    cut = first_line(prediction);
    prediction = cut;
  }
  double score = 0.0;
  for (const auto& gt : ground_truths) {
    // Python's max(score, x) keeps `score` unless x is strictly greater.
    const double s = score_pair(task, prediction, gt, all_classes, rouge_options);
    if (s > score) score = s;
  }
  return score;
}

double task_score(const std::vector<double>& sample_scores) {
  if (sample_scores.empty()) {
    throw std::invalid_argument(
        "task_score: no samples to average (the official scorer divides by zero here)");
  }
  double total = 0.0;
  for (double s : sample_scores) total += s;
  return python_round(100 * total / static_cast<double>(sample_scores.size()), 2);
}

LengthBucketScores task_score_by_length(const std::vector<double>& sample_scores,
                                        const std::vector<long long>& lengths) {
  if (sample_scores.size() != lengths.size()) {
    throw std::invalid_argument(fmt::format(
        "task_score_by_length: {} scores but {} lengths; every record needs a \"length\"",
        sample_scores.size(), lengths.size()));
  }
  std::vector<double> b0, b4, b8;
  for (std::size_t i = 0; i < sample_scores.size(); ++i) {
    if (lengths[i] < 4000) {
      b0.push_back(sample_scores[i]);
    } else if (lengths[i] < 8000) {
      b4.push_back(sample_scores[i]);
    } else {
      b8.push_back(sample_scores[i]);
    }
  }
  auto bucket = [](const std::vector<double>& v) { return numpy_round(100 * numpy_mean(v), 2); };
  return {bucket(b0), bucket(b4), bucket(b8)};
}

}  // namespace ripplekv::eval
