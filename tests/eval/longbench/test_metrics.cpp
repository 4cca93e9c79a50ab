// Hand-checked cases for each metric; the expected values were printed by the
// official metric functions (see scripts/make_metric_fixtures.py for the bulk check).
#include <catch2/catch.hpp>

#include "eval/metrics.h"

using namespace ripplekv::eval;

TEST_CASE("normalize_answer and qa_f1_score", "[eval][metrics]") {
  CHECK(normalize_answer("The  Cat, an apple!") == "cat apple");
  CHECK(normalize_answer("theatre a-b") == "theatre ab");
  CHECK(normalize_answer("\u0391\u03a3") == "\u03b1\u03c2");
  CHECK(qa_f1_score("The cat", "a cat") == 1.0);
  CHECK(qa_f1_score("", "cat") == 0.0);
  CHECK(qa_f1_score("cat dog", "cat") == (2 * 0.5 * 1.0) / (0.5 + 1.0));
  CHECK(qa_f1_score("cat cat dog", "cat cat") == (2 * (2.0 / 3) * 1.0) / (2.0 / 3 + 1.0));
}

TEST_CASE("rouge_score follows the rouge package", "[eval][metrics][rouge]") {
  // Identical single sentence: p = r = 1, f = 2 / (2 + 1e-8).
  CHECK(rouge_score("the cat sat", "the cat sat") == 2.0 * ((1.0 * 1.0) / (1.0 + 1.0 + 1e-8)));
  // No sentence at all: the package raises, LongBench scores 0.
  CHECK(rouge_l_summary_level("", "x").status == RougeStatus::kEmptyHypothesis);
  CHECK(rouge_l_summary_level("...", "x").status == RougeStatus::kEmptyHypothesis);
  CHECK(rouge_l_summary_level("x", ".").status == RougeStatus::kEmptyReference);
  CHECK(rouge_score("...", "x") == 0.0);
  // A whitespace-only piece is a sentence holding the empty word.
  const auto ws = rouge_l_summary_level(" ", " ");
  CHECK(ws.status == RougeStatus::kOk);
  CHECK(ws.hyp_words == 1);
  CHECK(ws.overlap == 1);
  // Words are counted distinct (exclusive=True).
  const auto r = rouge_l_summary_level("a a a b", "a b");
  CHECK(r.hyp_words == 2);
  CHECK(r.ref_words == 2);
  CHECK(r.overlap == 2);
  // 990 hypothesis words against a one-word reference fit in Python's stack; 991 do not.
  std::string h990;
  for (int i = 0; i < 990; ++i) h990 += "w" + std::to_string(i) + " ";
  h990.pop_back();
  CHECK(rouge_l_summary_level(h990, "zz").status == RougeStatus::kOk);
  CHECK(rouge_l_summary_level(h990 + " w990", "zz").status == RougeStatus::kRecursionLimit);
}

TEST_CASE("classification_score reproduces the list-mutation quirk", "[eval][metrics]") {
  const std::vector<std::string> classes = {"Location", "Other location", "City"};
  CHECK(classification_score("Other location", "Other location", classes) == 1.0);
  CHECK(classification_score("City", "Other location", classes) == 0.0);
  // "a" and "ab" are both substrings of the gold "abc" and both match: removing "a"
  // shifts "ab" into the visited slot, so "ab" survives and the score is 1/2.
  const std::vector<std::string> nested = {"a", "ab", "abc"};
  CHECK(classification_score("abc", "abc", nested) == 0.5);
  // Without the quirk both would go and the score would be 1.
  CHECK(classification_score("xyz", "abc", nested) == 0.0);
}

TEST_CASE("count, retrieval and their Unicode digits", "[eval][metrics]") {
  CHECK(count_score("There are 12 paragraphs, 12 unique", "12") == 1.0);
  CHECK(count_score("12 or 13", "12") == 0.5);
  CHECK(count_score("none", "12") == 0.0);
  CHECK(count_score("\u0661\u0662 12", "12") == 0.5);  // Arabic-Indic digits are \d
  CHECK(retrieval_score("Paragraph 19", "Paragraph 19") == 1.0);
  CHECK(retrieval_score("Paragraph 1 or Paragraph 19", "Paragraph 19") == 0.5);
  CHECK_THROWS_AS(retrieval_score("1", "no id"), std::invalid_argument);
  CHECK(retrieval_zh_score("\u6bb5\u843d5", "\u6bb5\u843d5") == 1.0);
}

TEST_CASE("code_sim_score: first usable line and fuzz.ratio", "[eval][metrics]") {
  CHECK(code_sim_line("\n\n# comment\n```\nx = 1\ny") == "x = 1");
  CHECK(code_sim_line("// a\n#b") == "");
  CHECK(fuzz_ratio("abc", "abc") == 100);
  CHECK(fuzz_ratio("", "abc") == 0);
  CHECK(fuzz_ratio("", "") == 100);  // equality is checked before emptiness
  // Levenshtein.ratio("lewenstein", "levenshtein") = 1 - 3/21.
  CHECK(levenshtein_ratio(U"lewenstein", U"levenshtein") == 1.0 - 3.0 / 21.0);
  CHECK(fuzz_ratio("lewenstein", "levenshtein") == 86);
  // Code points, not bytes: one differing CJK character.
  CHECK(fuzz_ratio("\u4e2d\u6587", "\u4e2d\u6587x") == 80);
  CHECK(code_sim_score("x = 1\n", "x = 1") == 1.0);
}

TEST_CASE("score_sample: first-line cut, max over answers, refusals", "[eval][metrics]") {
  const auto& triviaqa = find_longbench_task("triviaqa");
  CHECK(score_sample(triviaqa, "\n\nParis\nQuestion: more", {"Paris"}, nullptr) == 1.0);
  const auto& hotpot = find_longbench_task("hotpotqa");
  CHECK(score_sample(hotpot, "Paris\nsomething", {"London", "Paris"}, nullptr) ==
        qa_f1_score("Paris\nsomething", "Paris"));
  CHECK(score_sample(hotpot, "x", {}, nullptr) == 0.0);
  CHECK_THROWS_AS(score_sample(find_longbench_task("trec"), "x", {"x"}, nullptr),
                  std::invalid_argument);
  try {
    score_sample(find_longbench_task("dureader"), "x", {"x"}, nullptr);
    FAIL("expected dureader to be refused");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("jieba") != std::string::npos);
  }
}

TEST_CASE("task_score rounds like eval.py", "[eval][metrics]") {
  CHECK(task_score({1.0, 0.0, 0.5}) == 50.0);
  CHECK(task_score({1.0 / 3}) == 33.33);
  CHECK_THROWS_AS(task_score({}), std::invalid_argument);
  const auto b = task_score_by_length({1.0, 0.0, 0.5}, {100, 5000, 9000});
  CHECK(b.k0_4k == 100.0);
  CHECK(b.k4_8k == 0.0);
  CHECK(b.k8k_plus == 50.0);
  CHECK_THROWS_AS(task_score_by_length({1.0}, {}), std::invalid_argument);
}
