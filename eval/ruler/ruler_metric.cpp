#include "eval/ruler/ruler_metric.h"

#include <fmt/format.h>

#include <stdexcept>

#include "eval/python_numeric.h"
#include "eval/python_text.h"

namespace ripplekv::eval {

namespace {
// Python's str.strip(): Unicode whitespace at both ends.
std::u32string strip(std::u32string s) {
  std::size_t b = 0, e = s.size();
  while (b < e && py_isspace(s[b])) ++b;
  while (e > b && py_isspace(s[e - 1])) --e;
  return s.substr(b, e - b);
}
}  // namespace

std::string ruler_postprocess(const std::string& prediction) {
  std::u32string s = strip(utf8_to_u32(prediction));
  for (auto& c : s) {
    if (c <= 0x1f) c = U'\n';
  }
  return u32_to_utf8(strip(s));
}

namespace {
// What the metric function adds up for one sample: the fraction of references found (all) or
// 1 / 0 (part).
double sample_fraction(RulerMetric metric, const std::string& postprocessed, const std::vector<std::string>& refs) {
  if (refs.empty()) throw std::invalid_argument("RULER scoring: a sample has no reference answers (\"outputs\")");
  const auto pred = py_lower(utf8_to_u32(postprocessed));
  double found = 0;
  for (const auto& r : refs) found += pred.find(py_lower(utf8_to_u32(r))) != std::u32string::npos ? 1.0 : 0.0;
  if (metric == RulerMetric::kStringMatchPart) return found > 0 ? 1.0 : 0.0;
  return found / static_cast<double>(refs.size());
}
}  // namespace

double ruler_sample_score(RulerMetric metric, const std::string& postprocessed, const std::vector<std::string>& refs) {
  return sample_fraction(metric, postprocessed, refs) * 100.0;
}

double ruler_task_score(RulerMetric metric, const std::vector<std::string>& predictions,
                        const std::vector<std::vector<std::string>>& references) {
  if (predictions.size() != references.size() || predictions.empty()) {
    throw std::invalid_argument("RULER scoring: need one reference list per prediction, and at least one");
  }
  // sum(per-sample fraction) / n * 100, in Python's order of operations.
  double sum = 0;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    sum += sample_fraction(metric, ruler_postprocess(predictions[i]), references[i]);
  }
  return python_round(sum / static_cast<double>(predictions.size()) * 100.0, 2);
}

std::string ruler_nulls(const std::vector<std::string>& predictions) {
  std::size_t empty = 0;
  for (const auto& p : predictions) empty += ruler_postprocess(p).empty() ? 1 : 0;
  return fmt::format("{}/{}", empty, predictions.size());
}

}  // namespace ripplekv::eval
