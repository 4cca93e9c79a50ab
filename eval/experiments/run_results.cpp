#include "eval/experiments/run_results.h"
#include "models/io/input_file.h"
#include "models/io/json_error.h"
#include "eval/run_config.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "core/compress/policy_catalog.h"
#include "eval/experiments/paired_comparison.h"
#include "eval/experiments/run_kinds.h"
#include "eval/longbench_score.h"
#include "eval/longbench_tasks.h"

namespace ripplekv::experiments {
namespace fs = std::filesystem;
namespace {

nlohmann::json read_json(const fs::path& path) {
  require_input_file(path.string(), "a JSON file of a ripplekv run");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not JSON ({})", path.string(), json_error_text(e)));
  }
}

std::string model_name(const std::string& model_path) {
  fs::path p(model_path);
  if (!p.has_filename()) p = p.parent_path();
  return p.extension() == ".bin" ? p.stem().string() : p.filename().string();
}

std::map<std::string, std::string> string_map(const nlohmann::json& j) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

std::optional<RunIdentity> sweep_identity(const fs::path& dir) {
  const auto path = dir / "sweep_run.json";
  if (!fs::exists(path)) return std::nullopt;
  const auto j = read_json(path);
  RunIdentity id;
  try {
    id.method = j.at("method").get<std::string>();
    id.full = j.at("full").get<bool>();
    id.budget = j.at("budget").get<int64_t>();
    const auto& m = j.at("config").at("method");
    id.selector = m.at("selector").get<std::string>();
    id.allocator = m.at("allocator").get<std::string>();
    id.options = string_map(m.at("options"));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a sweep run record ({})", path.string(), json_error_text(e)));
  }
  return id;
}

std::size_t task_order(const std::string& task) {
  const auto& tasks = eval::longbench_tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].name == task) return i;
  }
  return tasks.size();
}

LongBenchResult read_longbench_run(const fs::path& dir, const nlohmann::json& config, const MethodNamer& name_of) {
  LongBenchResult r;
  r.dir = dir;
  const auto& run = config.at("run");
  r.model = model_name(run.at("model").get<std::string>());
  if (auto id = sweep_identity(dir)) {
    r.id = *id;
  } else {
    const auto& m = run.at("method");
    r.id.selector = m.at("selector").get<std::string>();
    r.id.allocator = m.at("allocator").get<std::string>();
    r.id.budget = m.at("budget").get<int64_t>();
    r.id.options = string_map(m.at("options"));
    r.id.full = r.id.selector == "full";
    r.id.method = name_of(r.id.selector, r.id.allocator);
  }
  if (const auto info = config.value("info", nlohmann::json::object());
      info.is_object() && info.contains(eval::kMethodOptionsKey) && info.at(eval::kMethodOptionsKey).is_object()) {
    r.id.in_force = string_map(info.at(eval::kMethodOptionsKey));
  }
  if (r.id.full) r.id.budget = 0;
  r.settings = run;
  for (const char* key : {"seed", "samples", "data", "tasks", "method"}) r.settings.erase(key);
  if (run.contains("seed") && run.value("data", nlohmann::json()) == "generated") {
    r.sample_set = fmt::format("seed {}", run.at("seed").get<uint64_t>());
  }
  for (const auto& t : run.at("tasks")) r.tasks.push_back(t.get<std::string>());
  // Stable: tasks outside the LongBench table (RULER, needle) keep the run's own order.
  std::stable_sort(r.tasks.begin(), r.tasks.end(),
            [](const std::string& a, const std::string& b) { return task_order(a) < task_order(b); });
  const auto result = read_json(dir / "result.json");
  std::vector<eval::TaskResult> scores;
  for (const auto& task : r.tasks) {
    const auto& v = result.at(task);
    if (v.is_object()) {
      throw std::invalid_argument(fmt::format("{}: {} is scored per length bucket (LongBench-E); tables take plain "
                                              "LongBench runs",
                                              (dir / "result.json").string(), task));
    }
    if (!v.is_number()) {
      throw std::invalid_argument(fmt::format("{}: the score of {} is {}, not a number; re-score the run with "
                                              "`ripplekv longbench-score`",
                                              (dir / "result.json").string(), task, v.dump()));
    }
    r.scores[task] = v.get<double>();
    scores.push_back(eval::TaskResult{task, {}, v.get<double>(), std::nullopt});
  }
  r.avg = eval::average_score(scores);
  r.kept = eval::summarize_kept_tokens(dir);
  if (fs::exists(dir / "sample_scores.json")) {
    auto samples = eval::read_sample_scores(dir / "sample_scores.json");
    const bool complete = std::all_of(r.tasks.begin(), r.tasks.end(), [&](const std::string& t) {
      const auto it = samples.find(t);
      return it != samples.end() && !it->second.scores.empty();
    });
    if (complete) {
      for (const auto& t : r.tasks) r.samples[t] = std::move(samples.at(t));
    }
  }
  return r;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool is_full_method_text(const std::string& m) {
  return m == "full" || m.rfind("full@", 0) == 0 || m.rfind("full:", 0) == 0;
}

// Calls `row(line number, fields)` for each non-empty line after the header of a CSV file
// whose lines all have `fields` fields; a line with another count is an error naming the file
// and line (`hint` is appended to it).
void for_each_csv_row(const fs::path& path, std::size_t fields, const std::string& hint,
                      const std::function<void(std::size_t, const std::vector<std::string>&)>& row) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);  // header
  std::size_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const auto f = split_csv_line(line);
    if (f.size() != fields) {
      throw std::runtime_error(fmt::format("{}:{}: {} fields, expected {}{}", path.string(), number, f.size(), fields, hint));
    }
    row(number, f);
  }
}

// fidelity_texts.csv: (method, budget) -> per-text mean KL and top-1 agreement, texts in order.
std::map<std::pair<std::string, int64_t>, std::pair<std::vector<double>, std::vector<double>>> read_fidelity_texts(
    const fs::path& dir) {
  std::map<std::pair<std::string, int64_t>, std::pair<std::vector<double>, std::vector<double>>> out;
  const auto path = dir / "fidelity_texts.csv";
  if (!fs::exists(path)) return out;
  for_each_csv_row(path, 5, " (method,budget,text,kl_mean,top1_agreement); rerun the fidelity run or delete the file",
                   [&](std::size_t number, const std::vector<std::string>& f) {
    try {
      auto& [kl, top1] = out[{f[0], std::stoll(f[1])}];
      if (std::stoul(f[2]) != kl.size()) {
        throw std::runtime_error(fmt::format("{}:{}: text {} out of order (expected {})", path.string(), number, f[2],
                                             kl.size()));
      }
      kl.push_back(std::stod(f[3]));
      top1.push_back(std::stod(f[4]));
    } catch (const std::invalid_argument&) {
      throw std::runtime_error(fmt::format("{}:{}: a field is not a number", path.string(), number));
    } catch (const std::out_of_range&) {
      throw std::runtime_error(fmt::format("{}:{}: a field is out of range", path.string(), number));
    }
  });
  return out;
}

std::vector<FidelityResult> read_fidelity_run(const fs::path& dir, const MethodParts& parts_of) {
  std::string model, settings;
  nlohmann::json in_force = nlohmann::json::object();  // method text -> options in force
  if (fs::exists(dir / "config.json")) {
    const auto config = read_json(dir / "config.json");
    if (config.contains("methods_in_force") && config.at("methods_in_force").is_object()) {
      in_force = config.at("methods_in_force");
    }
    if (config.contains("options")) {
      const auto& o = config["options"];
      auto get = [&](const char* key) { return o.contains(key) ? (o[key].is_string() ? o[key].get<std::string>() : o[key].dump()) : std::string("?"); };
      model = model_name(get("model"));
      settings = fmt::format("texts={} texts-format={} text-field={} prompt-tokens={} continuation={} max-texts={} "
                             "skip-texts={}",
                             get("texts"), get("texts-format"), get("text-field"), get("prompt-tokens"),
                             get("continuation"), get("max-texts"), get("skip-texts"));
    }
  }
  const auto sweep = sweep_identity(dir);
  const auto per_text = read_fidelity_texts(dir);
  std::vector<FidelityResult> out;
  for_each_csv_row(dir / "fidelity.csv", 10, "", [&](std::size_t number, const std::vector<std::string>& f) {
    FidelityResult r;
    r.dir = dir;
    r.model = model;
    r.settings = settings;
    try {
      r.id.budget = std::stoll(f[1]);
      r.texts = std::stoll(f[2]);
      r.positions = std::stoll(f[3]);
      r.kl_mean = std::stod(f[4]);
      r.kl_p90 = std::stod(f[5]);
      r.kl_max = std::stod(f[6]);
      r.top1 = std::stod(f[7]);
      r.kv_fraction = std::stod(f[8]);
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("{}:{}: a field is not a number", (dir / "fidelity.csv").string(), number));
    }
    if (const auto t = per_text.find({f[0], r.id.budget}); t != per_text.end()) {
      if (static_cast<int64_t>(t->second.first.size()) != r.texts) {
        throw std::runtime_error(fmt::format("{}: {} texts for {} at budget {}, but fidelity.csv says {}; rerun the "
                                             "fidelity run",
                                             (dir / "fidelity_texts.csv").string(), t->second.first.size(), f[0],
                                             r.id.budget, r.texts));
      }
      r.text_kl = t->second.first;
      r.text_top1 = t->second.second;
    }
    if (sweep) {
      const auto budget = r.id.budget;
      r.id = *sweep;
      r.id.budget = sweep->full ? 0 : budget;
    } else {
      // The method text: "name" or "selector:allocator", then "@key=value,..." options.
      const auto at = f[0].find('@');
      const auto base = f[0].substr(0, at);
      r.id.method = base;
      if (at != std::string::npos) {
        std::stringstream options(f[0].substr(at + 1));
        std::string kv;
        while (std::getline(options, kv, ',')) {
          const auto eq = kv.find('=');
          if (eq != std::string::npos) r.id.options[kv.substr(0, eq)] = kv.substr(eq + 1);
        }
      }
      if (const auto colon = base.find(':'); colon != std::string::npos) {
        r.id.selector = base.substr(0, colon);
        r.id.allocator = base.substr(colon + 1);
      } else if (parts_of) {
        if (const auto parts = parts_of(base)) std::tie(r.id.selector, r.id.allocator) = *parts;
      }
      r.id.full = is_full_method_text(f[0]);
      if (r.id.full) r.id.budget = 0;
    }
    if (in_force.contains(f[0]) && in_force.at(f[0]).is_object()) r.id.in_force = string_map(in_force.at(f[0]));
    out.push_back(std::move(r));
  });
  return out;
}

std::string first_line(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string value_for_label(const std::string& v) {
  if (v.find('/') == std::string::npos) return v;
  return fs::path(v).filename().string();
}

}  // namespace

std::string method_display_name(const std::string& method) {
  static const std::map<std::string, std::string> names = {
      {"full", "FullKV"},       {"snapkv", "SnapKV"}, {"pyramidkv", "PyramidKV"},     {"streamingllm", "StreamingLLM"},
      {"h2o", "H2O"},           {"cake", "CAKE"},     {"squeeze", "SqueezeAttention"}, {"ripple", "RippleKV"},
      {"ripple_prompt", "RippleKV per prompt"}, {"random", "Random"},     {"knorm", "K-norm"},
  };
  const auto it = names.find(method);
  return it == names.end() ? method : it->second;
}

std::size_t sample_count(const LongBenchResult& run) {
  std::size_t n = 0;
  for (const auto& [task, column] : run.samples) n += column.scores.size();
  return n;
}

std::string run_source(const LongBenchResult& run) {
  if (run.pooled_from.empty()) return run.dir.string();
  std::string out;
  for (const auto& d : run.pooled_from) out += (out.empty() ? "" : " + ") + d.string();
  return out;
}

GatheredResults gather_results(const std::vector<fs::path>& roots, const MethodNamer& name_of,
                               const MethodParts& parts_of) {
  GatheredResults out;
  std::set<fs::path> seen;
  for (const auto& root : roots) {
    if (!fs::is_directory(root)) {
      throw std::invalid_argument(fmt::format("--runs {}: not a folder of results", root.string()));
    }
    std::vector<fs::path> dirs = {root};
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.is_directory()) dirs.push_back(entry.path());
    }
    std::size_t found = 0;
    for (const auto& dir : dirs) {
      const auto canonical = fs::weakly_canonical(dir);
      const bool longbench = fs::exists(dir / "config.json") && !fs::exists(dir / "fidelity.csv") &&
                             read_json(dir / "config.json").contains("ripplekv_longbench_config");
      // fidelity.csv of `ripplekv fidelity`, not the table of that name `ripplekv table` writes.
      const bool fidelity = fs::exists(dir / "fidelity.csv") && !fs::exists(dir / "table_config.json") &&
                            first_line(dir / "fidelity.csv").rfind("method,budget,texts,", 0) == 0;
      if (!longbench && !fidelity) continue;
      ++found;
      if (!seen.insert(canonical).second) continue;
      if (longbench) {
        const auto status = longbench_run_status(dir);
        if (!status.complete) {
          out.incomplete.push_back(fmt::format("{}: {}", dir.string(), status.why));
          continue;
        }
        try {
          out.longbench.push_back(read_longbench_run(dir, read_json(dir / "config.json"), name_of));
        } catch (const nlohmann::json::exception& e) {
          throw std::invalid_argument(fmt::format("{}: config.json or result.json of this run has an unexpected "
                                                  "shape, {}",
                                                  dir.string(), json_error_text(e)));
        }
      } else {
        const auto status = fidelity_run_status(dir);
        // A plain `ripplekv fidelity --out` folder from before config.json was written counts too.
        if (!status.complete && fs::exists(dir / "config.json")) {
          out.incomplete.push_back(fmt::format("{}: {}", dir.string(), status.why));
          continue;
        }
        for (auto& r : read_fidelity_run(dir, parts_of)) out.fidelity.push_back(std::move(r));
      }
    }
    if (found == 0) {
      throw std::invalid_argument(fmt::format("--runs {}: no `ripplekv longbench` or `ripplekv fidelity` results in "
                                              "it or below it",
                                              root.string()));
    }
  }
  auto by_dir = [](const auto& a, const auto& b) { return a.dir < b.dir; };
  std::sort(out.longbench.begin(), out.longbench.end(), by_dir);
  std::stable_sort(out.fidelity.begin(), out.fidelity.end(), by_dir);
  return out;
}

namespace {
// A run's value of a policy option: as given, else as in force when the run was made, else
// the default its selector's or allocator's catalog row declares now (empty when neither
// declares the key or it has no default).
std::string option_value(const RunIdentity& id, const std::string& key) {
  if (id.options.count(key)) return id.options.at(key);
  if (id.in_force.count(key)) return id.in_force.at(key);
  for (const PolicyInfo* info : {find_selector_info(id.selector), find_allocator_info(id.allocator)}) {
    const OptionSpec* o = info ? find_option(*info, key) : nullptr;
    if (o) return o->default_value;
  }
  return {};
}
}  // namespace

std::map<std::string, std::string> effective_options(const RunIdentity& id) {
  std::map<std::string, std::string> out;
  for (const PolicyInfo* info : {find_selector_info(id.selector), find_allocator_info(id.allocator)}) {
    if (!info) continue;
    for (const auto& o : info->options) out.emplace(o.name, o.default_value);
  }
  for (const auto& [k, v] : id.in_force) out[k] = v;
  for (const auto& [k, v] : id.options) out[k] = v;
  return out;
}

std::vector<std::string> run_labels(const std::vector<std::pair<std::string, RunIdentity>>& runs) {
  // Per (model, method): the option keys whose values are not the same in all its runs.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> varying;
  std::map<std::pair<std::string, std::string>, std::vector<const RunIdentity*>> groups;
  for (const auto& [model, id] : runs) groups[{model, id.method}].push_back(&id);
  for (const auto& [key, ids] : groups) {
    std::set<std::string> given, recorded;
    for (const auto* id : ids) {
      for (const auto& [k, v] : id->options) given.insert(k);
      for (const auto& [k, v] : id->in_force) recorded.insert(k);
    }
    std::set<std::string> keys = given;
    keys.insert(recorded.begin(), recorded.end());
    for (const auto& k : keys) {
      std::set<std::string> values;
      bool unknown = false;  // a run that neither gave nor recorded it, without a default
      for (const auto* id : ids) {
        const auto v = option_value(*id, k);
        unknown = unknown || (v.empty() && !id->options.count(k) && !id->in_force.count(k));
        values.insert(v);
      }
      // A key only recorded (never given) says nothing about a run from before the record
      // that has no default for it (a fidelity run's --profile): not a difference to show.
      if (unknown && !given.count(k)) continue;
      if (values.size() > 1) varying[key].insert(k);
    }
  }
  std::vector<std::string> labels;
  for (const auto& [model, run_id] : runs) {
    const auto& id = run_id;  // a structured binding cannot be captured by a lambda in C++17 (clang)
    std::string suffix;
    auto add = [&](const std::string& k) {
      const auto given = option_value(id, k);
      const auto v = given.empty() ? std::string("default") : value_for_label(given);
      suffix += fmt::format("{}{}={}", suffix.empty() ? "" : ", ", k == "ratio" ? "r" : k, v);
    };
    const auto& keys = varying[{model, id.method}];
    if (keys.count("ratio")) add("ratio");
    for (const auto& k : keys) {
      if (k != "ratio") add(k);
    }
    labels.push_back(method_display_name(id.method) + (suffix.empty() ? "" : " (" + suffix + ")"));
  }
  return labels;
}

nlohmann::ordered_json results_summary(const GatheredResults& results, const BootstrapOptions& bootstrap) {
  auto identity = [](nlohmann::ordered_json& j, const RunIdentity& id, const std::string& label) {
    j["method"] = id.method;
    j["label"] = label;
    j["selector"] = id.selector;
    j["allocator"] = id.allocator;
    j["full"] = id.full;
    j["budget"] = id.budget;
    j["ratio"] = nullptr;  // given, else as in force when recorded (RippleKV's allocators)
    const auto& ratio_from = id.options.count("ratio") ? id.options : id.in_force;
    if (ratio_from.count("ratio")) {
      try {
        j["ratio"] = std::stod(ratio_from.at("ratio"));
      } catch (const std::exception&) {
      }
    }
    j["options"] = id.options;
    if (!id.in_force.empty()) j["options_in_force"] = id.in_force;
  };
  nlohmann::ordered_json out;
  out["ripplekv_results_summary"] = 1;
  std::vector<std::pair<std::string, RunIdentity>> lb_ids, fid_ids;
  for (const auto& r : results.longbench) lb_ids.emplace_back(r.model, r.id);
  for (const auto& r : results.fidelity) fid_ids.emplace_back(r.model, r.id);
  const auto lb_labels = run_labels(lb_ids);
  const auto fid_labels = run_labels(fid_ids);
  out["longbench"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < results.longbench.size(); ++i) {
    const auto& r = results.longbench[i];
    nlohmann::ordered_json j;
    j["dir"] = r.dir.string();
    if (!r.pooled_from.empty()) {
      j["pooled_from"] = nlohmann::ordered_json::array();
      for (const auto& d : r.pooled_from) j["pooled_from"].push_back(d.string());
    }
    j["model"] = r.model;
    identity(j, r.id, lb_labels[i]);
    j["tasks"] = r.tasks;
    j["samples"] = sample_count(r);
    j["scores"] = r.scores;
    j["avg"] = r.avg ? nlohmann::ordered_json(*r.avg) : nlohmann::ordered_json(nullptr);
    const auto ci = avg_interval(r, bootstrap);  // 95% bootstrap interval, when the run has per-sample scores
    j["avg_ci95"] = ci ? nlohmann::ordered_json::array({ci->lo, ci->hi}) : nlohmann::ordered_json(nullptr);
    j["kept_per_layer"] = r.kept.mean_kept;
    j["kept_samples"] = r.kept.samples;
    j["mean_prompt_tokens"] = r.kept.mean_prompt_tokens;
    out["longbench"].push_back(j);
  }
  out["fidelity"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < results.fidelity.size(); ++i) {
    const auto& r = results.fidelity[i];
    nlohmann::ordered_json j;
    j["dir"] = r.dir.string();
    j["model"] = r.model;
    identity(j, r.id, fid_labels[i]);
    j["kl_mean"] = r.kl_mean;
    j["kl_p90"] = r.kl_p90;
    j["kl_max"] = r.kl_max;
    j["top1_agreement"] = r.top1;
    j["kv_fraction"] = r.kv_fraction;
    const auto ci = kl_interval(r, bootstrap);  // 95% bootstrap interval over texts, when the run has per-text values
    j["kl_mean_ci95"] = ci ? nlohmann::ordered_json::array({ci->lo, ci->hi}) : nlohmann::ordered_json(nullptr);
    j["texts"] = r.texts;
    j["positions"] = r.positions;
    out["fidelity"].push_back(j);
  }
  out["incomplete"] = results.incomplete;
  return out;
}

}  // namespace ripplekv::experiments
