// Needle in a haystack: the score, and prompts that put the needle at the asked depth and fit the length.
#include <catch2/catch.hpp>

#include <fstream>

#include "eval/needle/needle_task.h"
#include "test_paths.h"

using namespace ripplekv;
using namespace ripplekv::eval;

TEST_CASE("needle: ROUGE-1 recall of the answer words", "[needle]") {
  CHECK(needle_score("The best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny day.") == 100.0);
  CHECK(needle_score("Sit in Dolores Park.") == Approx(100.0 * 4 / 12));  // sit in dolores park of 12 words
  CHECK(needle_score("") == 0.0);
  CHECK(needle_score("a a a a") == Approx(100.0 * 2 / 12));  // counts are clipped: "a" twice in the answer
}

TEST_CASE("needle: each cell's prompt fits its length and holds the needle at its depth", "[needle]") {
  const Tokenizer tok(test::real_model("smollm2-135m-instruct") + "/tokenizer.json");
  std::ifstream f(test::shared_data("haystack/PaulGrahamEssays/addiction.txt"));
  std::string essays((std::istreambuf_iterator<char>(f)), {});
  essays += essays + essays;
  const NeedleEngineTask task({{512, 0}, {512, 50}, {512, 100}, {1024, 50}}, essays, tok, ChatTemplate{}, 32);
  std::vector<double> where;
  for (std::size_t k = 0; k < task.size(); ++k) {
    const auto p = task.prompt(k);
    INFO(task.sample_id(k));
    CHECK(static_cast<int64_t>(p.ids.size()) + 32 <= task.cells()[k].length);
    CHECK(static_cast<int64_t>(p.ids.size()) + 32 >= task.cells()[k].length - 24);  // and fills it
    const auto at = p.text.find("The best thing to do in San Francisco is eat a sandwich");
    REQUIRE(at != std::string::npos);
    where.push_back(static_cast<double>(at) / static_cast<double>(p.text.size()));
  }
  CHECK(where[0] < 0.02);
  CHECK(where[1] == Approx(0.5).margin(0.08));
  CHECK(where[2] > 0.85);  // the question follows the haystack
  CHECK_THROWS_WITH(NeedleEngineTask({{64, 50}}, essays, tok, ChatTemplate{}, 32).prompt(0), Catch::Contains("no room"));
  CHECK_THROWS_WITH(NeedleEngineTask({{512, 101}}, essays, tok, ChatTemplate{}, 32), Catch::Contains("0..100"));
}
