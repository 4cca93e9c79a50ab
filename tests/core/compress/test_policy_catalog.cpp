// The policy catalog is the one place options are declared: every policy reads exactly the
// options of its catalog row and gets their declared defaults; the README's method tables,
// `ripplekv methods` and the sweep's option types come from it.
#include "catch_torch.h"

#include <fstream>
#include <set>
#include <sstream>

#include "core/compress/compression.h"
#include "core/compress/policy_catalog.h"
#include "core/compress/policy_options.h"
#include "core/compress/registry.h"
#include "core/ripple/ripple_options.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace ripplekv;

namespace {

std::set<std::string> declared_names(const PolicyInfo& info) {
  std::set<std::string> out;
  for (const auto& o : info.options) out.insert(o.name);
  return out;
}

std::set<std::string> resolved_names(const PolicyOptions& o) {
  std::set<std::string> out;
  for (const auto& [k, v] : o.resolved_map()) out.insert(k);
  return out;
}

}  // namespace

TEST_CASE("Policies read exactly the options their catalog rows declare, with the declared defaults",
          "[core][registry]") {
  const auto dir = test::scratch_dir("catalog", "defaults");
  test::write_text(dir / "mult.txt", "1\n2\n");
  // The registry lists the catalog's policies, in the same order.
  REQUIRE(selector_names().size() == selector_catalog().size());
  REQUIRE(allocator_names().size() == allocator_catalog().size());
  for (const auto& name : selector_names()) {
    INFO("selector " << name);
    const PolicyInfo* info = find_selector_info(name);
    REQUIRE(info != nullptr);
    PolicyOptions o({});
    (void)make_selector(name, o);
    CHECK_NOTHROW(o.check_all_used(name));
    CHECK(resolved_names(o) == declared_names(*info));
    for (const auto& spec : info->options) CHECK(o.resolved_map().at(spec.name) == spec.default_value);
  }
  for (const auto& name : allocator_names()) {
    INFO("allocator " << name);
    const PolicyInfo* info = find_allocator_info(name);
    REQUIRE(info != nullptr);
    std::map<std::string, std::string> given;
    if (name == "profile") given["file"] = (dir / "mult.txt").string();
    PolicyOptions o(given);
    o.validate_only = true;  // ripple: its profile is made by the run
    (void)make_allocator(name, o);
    CHECK_NOTHROW(o.check_all_used(name));
    auto declared = declared_names(*info);
    if (name == "ripple") {
      // The on-the-fly profiling options are read by core/ripple/profile_runner, not the allocator.
      for (const char* k : {"calibration", "calibration_samples", "calibration_max_tokens", "kl_positions", "draws",
                            "eps", "profile_cache", "calibration_skip", "noise", "positions", "direction", "seed",
                            "profile_dtype"}) {
        CHECK(declared.erase(k) == 1);
      }
    }
    CHECK(resolved_names(o) == declared);
    for (const auto& spec : info->options) {
      if (declared.count(spec.name) && !given.count(spec.name)) {
        CHECK(o.resolved_map().at(spec.name) == spec.default_value);
      }
    }
  }
  // A value of the wrong type names the policy, key and value; a choice lists its values.
  PolicyOptions bad(std::map<std::string, std::string>{{"window", "abc"}});
  CHECK_THROWS_WITH(make_selector("snapkv", bad), Catch::Contains("snapkv: option window=abc is not an integer"));
  PolicyOptions choice(std::map<std::string, std::string>{{"pooling", "median"}});
  CHECK_THROWS_WITH(make_selector("snapkv", choice), Catch::Contains("one of max, avg, none"));
  CHECK(ripple_option_default("calibration_samples") == "16");
  CHECK_THROWS_AS(ripple_option_default("nonsense"), std::logic_error);
}

TEST_CASE("The README's method tables are the policy catalog's (ripplekv methods --markdown)", "[core][registry]") {
  std::ifstream in(std::string(RIPPLEKV_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  const std::string tables = policy_tables_markdown();
  INFO("regenerate with: build/ripplekv methods --markdown\n" << tables);
  CHECK(readme.find(tables) != std::string::npos);
  // Every option of every policy is shown with its default.
  for (const auto* rows : {&selector_catalog(), &allocator_catalog()}) {
    for (const auto& r : *rows) {
      for (const auto& o : r.options) CHECK(tables.find(o.name + "=") != std::string::npos);
    }
  }
  const OptionSpec* ratio = find_policy_option("ratio");
  REQUIRE(ratio != nullptr);
  CHECK(ratio->kind == OptionKind::kNumber);
  CHECK(find_policy_option("window")->kind == OptionKind::kInt);
  CHECK(find_policy_option("no_such_option") == nullptr);
}
