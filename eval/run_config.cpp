#include "eval/run_config.h"
#include "eval/arithmetic_changes.h"
#include "models/io/input_file.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::eval {
namespace fs = std::filesystem;
namespace {

constexpr int kConfigVersion = 1;

void collect_differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& prefix,
                         std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& item : a.items()) keys.insert(item.key());
    for (const auto& item : b.items()) keys.insert(item.key());
    for (const auto& key : keys) {
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      if (!a.contains(key) || !b.contains(key)) {
        out.push_back(path);
      } else {
        collect_differences(a.at(key), b.at(key), path, out);
      }
    }
    return;
  }
  if (a != b) out.push_back(prefix.empty() ? "(whole config)" : prefix);
}

std::string value_text(const nlohmann::json& j, const std::string& dotted) {
  const nlohmann::json* at = &j;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(key)) return "(absent)";
    at = &at->at(key);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::string text = at->dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

nlohmann::json read_config_file(const fs::path& path) {
  require_input_file(path.string(), "a run's config.json");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the file", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    auto j = nlohmann::json::parse(ss.str());
    if (!j.is_object() || !j.contains("run")) throw std::invalid_argument("no \"run\" object");
    return j;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format(
        "{}: not a ripplekv LongBench config ({}); this folder holds something else: use another --out",
        path.string(), e.what()));
  }
}

// A config's "info" record of the options in force, or nullptr when it has none.
const nlohmann::json* in_force_of(const nlohmann::json& info) {
  if (!info.is_object() || !info.contains(kMethodOptionsKey) || !info.at(kMethodOptionsKey).is_object()) return nullptr;
  return &info.at(kMethodOptionsKey);
}

// The "run" objects to compare for a folder: when both configs record the options in force,
// "method.options" becomes those values on the keys both record, and the given values on the
// keys only one records (an option added or removed between versions).
std::pair<nlohmann::json, nlohmann::json> comparable_runs(const nlohmann::json& existing, const nlohmann::json& existing_info,
                                                          const nlohmann::json& wanted, const nlohmann::json& wanted_info) {
  nlohmann::json a = existing, b = wanted;
  auto given = [](const nlohmann::json& run) -> const nlohmann::json* {
    if (!run.contains("method") || !run.at("method").is_object()) return nullptr;
    const auto& m = run.at("method");
    return m.contains("options") && m.at("options").is_object() ? &m.at("options") : nullptr;
  };
  const nlohmann::json *fa = in_force_of(existing_info), *fb = in_force_of(wanted_info);
  const nlohmann::json *ga = given(existing), *gb = given(wanted);
  if (!fa || !fb || !ga || !gb) return {a, b};
  auto options = [](const nlohmann::json& force, const nlohmann::json& other_force, const nlohmann::json& given_here) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& item : force.items()) {
      if (other_force.contains(item.key())) out[item.key()] = item.value();
    }
    for (const auto& item : given_here.items()) {
      if (!out.contains(item.key())) out[item.key()] = item.value();
    }
    return out;
  };
  a["method"]["options"] = options(*fa, *fb, *ga);
  b["method"]["options"] = options(*fb, *fa, *gb);
  return {a, b};
}

// The task of a "data.<task>.samples" key (a LongBench run's sample count of one task), or "".
std::string sample_count_task(const std::string& key) {
  const auto first_dot = key.find('.');
  const auto last_dot = key.rfind('.');
  if (key.rfind("data.", 0) != 0 || last_dot == first_dot || key.substr(last_dot) != ".samples") return "";
  return key.substr(first_dot + 1, last_dot - first_dot - 1);
}

// How a run that differs from a folder's only in sample counts (LongBench's "max_samples" and
// "data.<task>.samples"; RULER's "samples") relates to it.
enum class CountChange {
  kNotCounts,    // another key differs too
  kSameSamples,  // only max_samples differs, and no task's count moves: the same predictions
  kMore,         // a larger cap takes more of files the folder's cap had cut (or RULER's more of its
                 // seeded samples): an extension
  kFewer,        // a smaller cap than the folder's
  kDataChanged,  // a count moved without the cap explaining it: the file changed
};

CountChange count_change(const nlohmann::json& existing, const nlohmann::json& wanted, const std::vector<std::string>& diff) {
  // RULER's generated samples of a task are the first N of a stream seeded per sample, the same
  // for any larger N: a larger count extends the folder, a smaller one is refused. (A --data
  // run's files may change under it, and its count is only a cap: no extension there.)
  if (diff == std::vector<std::string>{"samples"}) {
    if (existing.value("data", nlohmann::json()) != "generated" || wanted.value("data", nlohmann::json()) != "generated") {
      return CountChange::kNotCounts;
    }
    const auto& a = existing.value("samples", nlohmann::json());
    const auto& b = wanted.value("samples", nlohmann::json());
    if (!a.is_number_integer() || !b.is_number_integer()) return CountChange::kNotCounts;
    return b.get<int64_t>() > a.get<int64_t>() ? CountChange::kMore : CountChange::kFewer;
  }
  std::vector<std::string> moved;
  for (const auto& key : diff) {
    if (key == "max_samples") continue;
    const auto task = sample_count_task(key);
    if (task.empty()) return CountChange::kNotCounts;
    moved.push_back(task);
  }
  if (moved.empty()) return CountChange::kSameSamples;
  const auto cap_of = [](const nlohmann::json& run) {
    const auto& m = run.value("max_samples", nlohmann::json());
    return m.is_number_integer() ? m.get<int64_t>() : int64_t{-1};
  };
  const int64_t old_cap = cap_of(existing), new_cap = cap_of(wanted);
  if (old_cap < 0 || new_cap < 0) return CountChange::kDataChanged;
  const bool cap_grew = old_cap > 0 && (new_cap == 0 || new_cap > old_cap);
  const bool cap_shrank = new_cap > 0 && (old_cap == 0 || new_cap < old_cap);
  for (const auto& task : moved) {
    const auto& a = existing.at("data").at(task).value("samples", nlohmann::json());
    const auto& b = wanted.at("data").at(task).value("samples", nlohmann::json());
    if (!a.is_number_integer() || !b.is_number_integer()) return CountChange::kDataChanged;
    const int64_t before = a.get<int64_t>(), now = b.get<int64_t>();
    // More samples only where the old cap cut the file; fewer only under a smaller cap.
    const bool more = now > before && cap_grew && before == old_cap;
    const bool fewer = now < before && cap_shrank && now == new_cap;
    if (!more && !fewer) return CountChange::kDataChanged;
  }
  return cap_grew ? CountChange::kMore : CountChange::kFewer;
}

// Writes config.json through a temporary file: `replace` renames it over the one there; else it
// is hard-linked into place, which fails (false) if config.json appeared meanwhile (another
// shard of the same folder starting at the same moment).
bool write_config(const fs::path& path, const nlohmann::ordered_json& doc, bool replace) {
  const auto tmp = fs::path(path.string() + fmt::format(".tmp-{}", ::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", tmp.string()));
  }
  if (replace) {
    fs::rename(tmp, path);
    return true;
  }
  std::error_code ec;
  fs::create_hard_link(tmp, path, ec);
  fs::remove(tmp);
  if (ec && !fs::exists(path)) throw std::runtime_error(fmt::format("{}: cannot write: {}", path.string(), ec.message()));
  return !ec;
}

}  // namespace

std::vector<std::string> differing_keys(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  collect_differences(a, b, "", out);
  return out;
}

namespace {

// The state of `dir` for this run, checking an existing config.json (a refusal throws); with
// `apply`, config.json is written (created, or rewritten for an extension).
RunDirState examine_run_dir(const fs::path& dir, const nlohmann::ordered_json& run, const nlohmann::ordered_json& info,
                            const char* marker, bool apply) {
  const auto path = dir / "config.json";
  const nlohmann::json wanted_run = nlohmann::json::parse(run.dump());
  const nlohmann::json wanted_info =
      nlohmann::json::parse(info.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  auto document = [&] {
    nlohmann::ordered_json doc;
    doc[marker] = kConfigVersion;
    doc["run"] = run;
    doc["info"] = info;
    return doc;
  };
  auto check_existing = [&] {
    const auto existing_config = read_config_file(path);
    const auto existing_info = existing_config.value("info", nlohmann::json::object());
    const auto [existing, wanted] = comparable_runs(existing_config.at("run"), existing_info, wanted_run, wanted_info);
    const auto diff = differing_keys(existing, wanted);
    if (diff.empty()) return RunDirState::kMatches;
    const auto change = count_change(existing, wanted, diff);
    if (change == CountChange::kSameSamples) return RunDirState::kMatches;
    if (change == CountChange::kMore) {
      if (apply) write_config(path, document(), true);
      return RunDirState::kExtended;
    }
    std::string lines;
    for (const auto& key : diff) {
      lines += fmt::format("\n  {}: {} there, {} now", key, value_text(existing, key), value_text(wanted, key));
    }
    // Only when both record the options in force can a changed default be the reason.
    const bool defaults_differ =
        in_force_of(existing_info) && in_force_of(wanted_info) &&
        std::any_of(diff.begin(), diff.end(), [](const std::string& k) { return k.rfind("method.options", 0) == 0; });
    std::string hint;
    if (change == CountChange::kFewer) {
      hint = "(a run may take more samples of the same data than the folder holds, never fewer: give --max-samples "
             "(longbench) or --samples (ruler) as large as the folder's, or larger)\n";
    } else if (change == CountChange::kDataChanged) {
      hint = "(a task's sample count changed without --max-samples explaining it: its data file is not the one the "
             "folder was made from)\n";
    } else if (defaults_differ) {
      hint = "(method options are compared as in force, defaults included: if the folder was made under another "
             "default, a single-method run resumes it by giving the folder's value, e.g. --method-opt ratio=2; a "
             "--methods grid names its folders from the method text, so it needs the ripplekv that made the folder)\n";
    }
    throw std::runtime_error(fmt::format(
        "{}: this folder holds the predictions of a different run; results of different configurations are never "
        "mixed:{}\n{}use another --out, or delete the folder to start over",
        path.string(), lines, hint));
  };
  if (fs::exists(path)) return check_existing();
  if (!apply) return RunDirState::kCreated;
  fs::create_directories(dir);
  if (!write_config(path, document(), false)) return check_existing();
  return RunDirState::kCreated;
}

}  // namespace

RunDirState check_run_dir(const fs::path& dir, const nlohmann::ordered_json& run, const nlohmann::ordered_json& info,
                          const char* marker) {
  return examine_run_dir(dir, run, info, marker, false);
}

RunDirState claim_run_dir(const fs::path& dir, const nlohmann::ordered_json& run, const nlohmann::ordered_json& info,
                          const char* marker) {
  return examine_run_dir(dir, run, info, marker, true);
}

void claim_run_dirs(const std::vector<RunDirClaim>& claims, const ClaimedRunDir& claimed, const char* marker,
                    const WarningSink& warn) {
  for (const auto& c : claims) (void)check_run_dir(c.dir, c.run, c.info, marker);
  for (const auto& c : claims) {
    for (const auto& note : arithmetic_changes(c.dir, c.info)) {  // before the claim rewrites an extended one's info
      if (warn) warn(note);
      else std::cerr << note << "\n";
    }
    const auto state = claim_run_dir(c.dir, c.run, c.info, marker);
    if (claimed) claimed(c, state);
  }
}

nlohmann::json read_run_config(const fs::path& dir) {
  const auto path = dir / "config.json";
  if (!fs::exists(path)) {
    throw std::runtime_error(fmt::format("{}: missing; is {} the --out folder of a `ripplekv longbench` run?",
                                         path.string(), dir.string()));
  }
  return read_config_file(path).at("run");
}

bool extended_by_another_run(const fs::path& dir, const nlohmann::json& run) {
  if (!fs::exists(dir / "config.json")) return false;  // nothing claimed there: nothing extended
  // The sample counts alone, classified as claim_run_dir classifies them: the folder now takes
  // more of the same files exactly when this run would be a smaller cap than the folder's.
  const auto counts = [](const nlohmann::json& r) {
    nlohmann::json out = nlohmann::json::object();
    for (const char* key : {"data", "max_samples", "samples"}) {
      if (r.is_object() && r.contains(key)) out[key] = r.at(key);
    }
    return out;
  };
  const auto folder = counts(read_run_config(dir)), mine = counts(run);
  const auto diff = differing_keys(folder, mine);
  return !diff.empty() && count_change(folder, mine, diff) == CountChange::kFewer;
}

}  // namespace ripplekv::eval
