#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "eval/longbench_tasks.h"
#include "../eval_test_paths.h"

using namespace ripplekv::eval;

TEST_CASE("task table equals the official dataset2prompt.json and dataset2maxlen.json",
          "[eval][tasks]") {
  const auto config = test::longbench_data_dir() / "config";
  const auto prompts = nlohmann::ordered_json::parse(test::read_text(config / "dataset2prompt.json"));
  const auto maxlen = nlohmann::ordered_json::parse(test::read_text(config / "dataset2maxlen.json"));
  const auto& tasks = longbench_tasks();
  REQUIRE(tasks.size() == 21);
  REQUIRE(prompts.size() == tasks.size());
  REQUIRE(maxlen.size() == tasks.size());
  std::size_t i = 0;
  for (const auto& [name, tmpl] : prompts.items()) {
    INFO("task " << name);
    CHECK(tasks[i].name == name);  // same order as the official config
    const auto& task = find_longbench_task(name);
    CHECK(task.prompt_template == tmpl.get<std::string>());
    CHECK(task.max_new_tokens == maxlen.at(name).get<int>());
    ++i;
  }
}

TEST_CASE("task table facts from eval.py and pred.py", "[eval][tasks]") {
  for (const auto& task : longbench_tasks()) {
    INFO("task " << task.name);
    const std::string name(task.name);
    const bool raw = name == "trec" || name == "triviaqa" || name == "samsum" || name == "lsht" ||
                     name == "lcc" || name == "repobench-p";
    CHECK(task.skip_chat_template == raw);
    const bool first = name == "trec" || name == "triviaqa" || name == "samsum" || name == "lsht";
    CHECK(task.first_line_only == first);
  }
  CHECK(find_longbench_task("narrativeqa").prompt_template.find("asconcisely") !=
        std::string_view::npos);
  CHECK(find_longbench_task("gov_report").metric == Metric::kRougeL);
  CHECK(find_longbench_task("lsht").metric == Metric::kClassification);
  CHECK(find_longbench_task("lsht").language == Language::kChinese);
  CHECK(find_longbench_task("repobench-p").category == TaskCategory::kCode);
  CHECK(find_longbench_task("multifieldqa_en").official_num_samples == 150);
  CHECK_FALSE(metric_is_supported(find_longbench_task("dureader").metric));
  CHECK_FALSE(metric_is_supported(find_longbench_task("vcsum").metric));
  CHECK_FALSE(metric_is_supported(find_longbench_task("multifieldqa_zh").metric));
  CHECK(metric_is_supported(find_longbench_task("passage_retrieval_zh").metric));
  int per_category[6] = {0, 0, 0, 0, 0, 0};
  for (const auto& task : longbench_tasks()) ++per_category[static_cast<int>(task.category)];
  CHECK(per_category[static_cast<int>(TaskCategory::kSingleDocQa)] == 4);
  CHECK(per_category[static_cast<int>(TaskCategory::kMultiDocQa)] == 4);
  CHECK(per_category[static_cast<int>(TaskCategory::kSummarization)] == 4);
  CHECK(per_category[static_cast<int>(TaskCategory::kFewShot)] == 4);
  CHECK(per_category[static_cast<int>(TaskCategory::kSynthetic)] == 3);
  CHECK(per_category[static_cast<int>(TaskCategory::kCode)] == 2);
}

TEST_CASE("unknown task error lists the valid names", "[eval][tasks]") {
  try {
    find_longbench_task("narrative_qa");
    FAIL("expected an exception");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    CHECK(msg.find("narrative_qa") != std::string::npos);
    CHECK(msg.find("narrativeqa") != std::string::npos);
    CHECK(msg.find("repobench-p") != std::string::npos);
  }
}

TEST_CASE("format_prompt follows str.format for {context} and {input}", "[eval][tasks]") {
  CHECK(format_prompt("A {context} B {input} C", "ctx", "in") == "A ctx B in C");
  // Braces inside the substituted values are not re-parsed.
  CHECK(format_prompt("{context}|{input}", "{input}", "}{") == "{input}|}{");
  CHECK(format_prompt("{{literal}} {context}", "x", "") == "{literal} x");
  CHECK_THROWS_AS(format_prompt("{other}", "", ""), std::invalid_argument);
  CHECK_THROWS_AS(format_prompt("{context:>5}", "", ""), std::invalid_argument);
  CHECK_THROWS_AS(format_prompt("oops }", "", ""), std::invalid_argument);
  CHECK_THROWS_AS(format_prompt("open {context", "", ""), std::invalid_argument);
  const auto& trec = find_longbench_task("trec");
  CHECK(format_prompt(trec, "EXAMPLES", "Q") ==
        "Please determine the type of the question below. Here are some examples of "
        "questions.\n\nEXAMPLES\nQ");
  const auto& lcc = find_longbench_task("lcc");
  CHECK(format_prompt(lcc, "def f():\n", "ignored") ==
        "Please complete the code given below. \ndef f():\nNext line of code:\n");
}
