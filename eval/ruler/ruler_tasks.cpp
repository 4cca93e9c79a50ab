#include "eval/ruler/ruler_tasks.h"

#include "eval/list_option.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ripplekv::eval {

namespace {
RulerTask niah(std::string name, std::string haystack, std::string k, std::string v, int nk, int nv, int nq) {
  RulerTask t{std::move(name), RulerKind::kNiah};
  t.haystack = std::move(haystack);
  t.type_k = std::move(k);
  t.type_v = std::move(v);
  t.num_k = nk;
  t.num_v = nv;
  t.num_q = nq;
  t.tokens_to_generate = 128;
  return t;
}
}  // namespace

const std::vector<RulerTask>& ruler_tasks() {
  static const std::vector<RulerTask> tasks = [] {
    std::vector<RulerTask> t;
    t.push_back(niah("niah_single_1", "noise", "words", "numbers", 1, 1, 1));
    t.push_back(niah("niah_single_2", "essay", "words", "numbers", 1, 1, 1));
    t.push_back(niah("niah_single_3", "essay", "words", "uuids", 1, 1, 1));
    t.push_back(niah("niah_multikey_1", "essay", "words", "numbers", 4, 1, 1));
    t.push_back(niah("niah_multikey_2", "needle", "words", "numbers", 1, 1, 1));
    t.push_back(niah("niah_multikey_3", "needle", "uuids", "uuids", 1, 1, 1));
    t.push_back(niah("niah_multivalue", "essay", "words", "numbers", 1, 4, 1));
    t.push_back(niah("niah_multiquery", "essay", "words", "numbers", 1, 1, 4));
    RulerTask vt{"vt", RulerKind::kVariableTracking};
    vt.haystack = "noise";
    vt.tokens_to_generate = 30;
    t.push_back(vt);
    RulerTask cwe{"cwe", RulerKind::kCommonWords};
    cwe.tokens_to_generate = 120;
    t.push_back(cwe);
    RulerTask fwe{"fwe", RulerKind::kFreqWords};
    fwe.tokens_to_generate = 50;
    t.push_back(fwe);
    for (const char* qa : {"qa_1", "qa_2"}) {
      RulerTask q{qa, RulerKind::kQa};
      q.tokens_to_generate = 32;
      q.metric = RulerMetric::kStringMatchPart;
      t.push_back(q);
    }
    return t;
  }();
  return tasks;
}

const RulerTask& find_ruler_task(std::string_view name) {
  for (const auto& t : ruler_tasks()) {
    if (t.name != name) continue;
    if (t.kind == RulerKind::kQa) {
      throw std::invalid_argument(fmt::format(
          "RULER task {} needs {} (questions and documents), which is not available here; run the 11 synthetic "
          "tasks (--tasks all) or bring RULER's own {}/validation.jsonl with --data",
          name, name == "qa_1" ? "SQuAD" : "HotpotQA", name));
    }
    return t;
  }
  std::string names;
  for (const auto& t : ruler_tasks()) names += (names.empty() ? "" : ", ") + t.name;
  throw std::invalid_argument(fmt::format("unknown RULER task \"{}\"; choose from {} (or all)", name, names));
}

std::vector<const RulerTask*> parse_ruler_tasks(const std::string& csv) {
  std::vector<const RulerTask*> out;
  auto add = [&](const RulerTask* t) {
    for (const auto* have : out) {
      if (have == t) throw std::invalid_argument(fmt::format("--tasks: \"{}\" is listed twice", t->name));
    }
    out.push_back(t);
  };
  for (const auto& name : split_list(csv)) {
    if (name == "all") {
      for (const auto& t : ruler_tasks()) {
        if (t.kind != RulerKind::kQa) add(&t);
      }
      continue;
    }
    add(&find_ruler_task(name));
  }
  if (out.empty()) throw std::invalid_argument("--tasks: no task given (e.g. --tasks niah_single_1,vt or --tasks all)");
  return out;
}

const std::string& ruler_template(RulerKind kind) {
  static const std::string niah_t =
      "Some special magic {type_needle_v} are hidden within the following text. Make sure to memorize it. I will "
      "quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special magic {type_needle_v} for "
      "{query} mentioned in the provided text?";
  static const std::string vt_t =
      "Memorize and track the chain(s) of variable assignment hidden in the following text.\n\n{context}\nQuestion: "
      "Find all variables that are assigned the value {query} in the text above.";
  static const std::string cwe_t =
      "Below is a numbered list of words. In these words, some appear more often than others. Memorize the ones "
      "that appear most often.\n{context}\nQuestion: What are the 10 most common words in the above list?";
  static const std::string fwe_t =
      "Read the following coded text and track the frequency of each coded word. Find the three most frequently "
      "appeared coded words. {context}\nQuestion: Do not provide any explanation. Please ignore the dots '....'. "
      "What are the three most frequently appeared words in the above coded text?";
  static const std::string qa_t =
      "Answer the question based on the given documents. Only give me the answer and do not output any other "
      "words.\n\nThe following are given documents.\n\n{context}\n\nAnswer the question based on the given "
      "documents. Only give me the answer and do not output any other words.\n\nQuestion: {query}";
  switch (kind) {
    case RulerKind::kNiah: return niah_t;
    case RulerKind::kVariableTracking: return vt_t;
    case RulerKind::kCommonWords: return cwe_t;
    case RulerKind::kFreqWords: return fwe_t;
    case RulerKind::kQa: return qa_t;
  }
  throw std::logic_error("ruler_template: unknown kind");
}

const std::string& ruler_answer_prefix(RulerKind kind) {
  static const std::string niah_p = " The special magic {type_needle_v} for {query} mentioned in the provided text are";
  static const std::string vt_p =
      " Answer: According to the chain(s) of variable assignment in the text above, {num_v} variables are assigned "
      "the value {query}, they are: ";
  static const std::string cwe_p = " Answer: The top 10 words that appear most often in the list are:";
  static const std::string fwe_p = " Answer: According to the coded text above, the three most frequently appeared words are:";
  static const std::string qa_p = " Answer:";
  switch (kind) {
    case RulerKind::kNiah: return niah_p;
    case RulerKind::kVariableTracking: return vt_p;
    case RulerKind::kCommonWords: return cwe_p;
    case RulerKind::kFreqWords: return fwe_p;
    case RulerKind::kQa: return qa_p;
  }
  throw std::logic_error("ruler_answer_prefix: unknown kind");
}

std::string_view ruler_metric_name(RulerMetric metric) {
  return metric == RulerMetric::kStringMatchAll ? "string_match_all" : "string_match_part";
}

}  // namespace ripplekv::eval
