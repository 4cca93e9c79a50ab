#include "eval/experiments/sweep_grid.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "eval/experiments/run_kinds.h"
#include "core/compress/policy_catalog.h"
#include "core/ripple/calibration.h"

namespace ripplekv::experiments {
namespace {

constexpr int kMaxIncludeDepth = 8;
constexpr const char* kMethodSection = "method.";

// The type of a policy option, from the policy catalog (the policies check every option
// again, and reject unknown ones, when a run starts).
OptionType policy_option_type(const std::string& key) {
  const OptionSpec* spec = find_policy_option(key);
  if (spec && spec->kind == OptionKind::kInt) return OptionType::kInt;
  if (spec && spec->kind == OptionKind::kNumber) return OptionType::kNumber;
  return OptionType::kString;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split_values(const IniEntry& e, char sep = '|') {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto bar = e.value.find(sep, start);
    const auto v = trim(e.value.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (v.empty()) {
      throw std::invalid_argument(fmt::format("{}: {} = \"{}\": an empty value in the list (values are separated "
                                              "by '{}')",
                                              e.where(), e.key, e.value, sep));
    }
    out.push_back(v);
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return out;
}

bool is_method_section(const std::string& section) { return section.rfind(kMethodSection, 0) == 0; }
std::string method_of_section(const std::string& section) { return section.substr(std::string(kMethodSection).size()); }

std::string kind_names() {
  std::string s;
  for (const auto& k : run_kinds()) s += fmt::format("{}{}", s.empty() ? "" : ", ", k.name);
  return s;
}

std::string option_names(const RunKind& kind) {
  std::string s;
  for (const auto& o : kind.options) s += fmt::format("{}{}", s.empty() ? "" : " ", o.name);
  return s;
}

void append_with_includes(const IniFile& file, const std::string& section_override, int depth,
                          std::vector<IniEntry>& out) {
  for (const auto& e : file.entries) {
    IniEntry entry = e;
    if (!section_override.empty()) {
      if (!e.section.empty()) {
        throw std::invalid_argument(fmt::format("{}: an included file holds plain key = value lines, no [{}] section",
                                                e.where(), e.section));
      }
      entry.section = section_override;
    }
    if (entry.key != "include") {
      out.push_back(std::move(entry));
      continue;
    }
    if (entry.section == "sweep") {
      throw std::invalid_argument(fmt::format("{}: include goes in [common], a kind's or a method's section", e.where()));
    }
    if (depth >= kMaxIncludeDepth) {
      throw std::invalid_argument(fmt::format("{}: includes nested more than {} deep (a file including itself?)",
                                              e.where(), kMaxIncludeDepth));
    }
    IniFile included;
    try {
      included = read_ini_file(entry.value);
    } catch (const std::exception& err) {
      throw std::invalid_argument(fmt::format("{}: include: {} (paths are relative to the working directory; run "
                                              "from the repository root)",
                                              e.where(), err.what()));
    }
    append_with_includes(included, entry.section.empty() ? "common" : entry.section, depth + 1, out);
  }
}

// Checks one entry outside [sweep]; returns its normalised section.
void check_entry(const SweepSpec& spec, IniEntry& e) {
  if (e.section.empty()) e.section = "common";
  const auto values = split_values(e);
  auto check_type = [&](OptionType type) {
    for (const auto& v : values) {
      const auto why = check_option_value(type, v);
      if (!why.empty()) {
        throw std::invalid_argument(fmt::format("{}: {} = {}: {} (a {} is needed)", e.where(), e.key, e.value, why,
                                                option_type_name(type)));
      }
    }
  };
  if (e.section == "common") {
    if (e.key == "method") return;
    if (e.key == "budget") {
      check_type(OptionType::kInt);
      for (const auto& v : values) {
        if (std::stoll(v) < 1) {
          throw std::invalid_argument(fmt::format("{}: budget {}: budgets are positive token counts per layer (a "
                                                  "full cache is the method `full`)",
                                                  e.where(), v));
        }
      }
      return;
    }
    const KindOption* option = nullptr;
    for (const auto& kind : run_kinds()) {
      if (is_sweep_owned(kind, e.key)) {
        throw std::invalid_argument(fmt::format("{}: {} is not set in a sweep file: {}", e.where(), e.key,
                                                kind.sweep_owned_hint));
      }
      if (!option) option = find_kind_option(kind, e.key);
    }
    if (!option) {
      std::string all;
      for (const auto& kind : run_kinds()) all += fmt::format("\n  {}: {}", kind.name, option_names(kind));
      throw std::invalid_argument(fmt::format("{}: unknown option \"{}\" in [common]; the options are method, "
                                              "budget, include and those of the kinds of run:{}",
                                              e.where(), e.key, all));
    }
    check_type(option->type);
    return;
  }
  if (is_method_section(e.section)) {
    if (method_of_section(e.section).empty()) {
      throw std::invalid_argument(fmt::format("{}: [method.] needs a method name, e.g. [method.ripple]", e.where()));
    }
    if (e.key.find_first_of("=@, ") != std::string::npos) {
      throw std::invalid_argument(fmt::format("{}: \"{}\" is not a policy option name", e.where(), e.key));
    }
    check_type(policy_option_type(e.key));
    return;
  }
  const RunKind* kind = nullptr;
  for (const auto& k : run_kinds()) {
    if (e.section == k.name) kind = &k;
  }
  if (!kind) {
    throw std::invalid_argument(fmt::format("{}: unknown section [{}]; sections are [sweep], [common], one per kind "
                                            "of run ({}) and [method.NAME]",
                                            e.where(), e.section, kind_names()));
  }
  if (std::find(spec.kinds.begin(), spec.kinds.end(), e.section) == spec.kinds.end()) {
    throw std::invalid_argument(fmt::format("{}: a [{}] section, but [sweep] kinds does not list {}: add it there "
                                            "or drop the section",
                                            e.where(), e.section, e.section));
  }
  if (e.key == "method" || e.key == "budget") {
    throw std::invalid_argument(fmt::format("{}: {} goes in [common] (every kind runs the same methods and budgets)",
                                            e.where(), e.key));
  }
  if (is_sweep_owned(*kind, e.key)) {
    throw std::invalid_argument(fmt::format("{}: {} is not set in a sweep file: {}", e.where(), e.key,
                                            kind->sweep_owned_hint));
  }
  const auto* option = find_kind_option(*kind, e.key);
  if (!option) {
    throw std::invalid_argument(fmt::format("{}: `ripplekv {}` has no option \"{}\"; its options: {}", e.where(),
                                            kind->name, e.key, option_names(*kind)));
  }
  check_type(option->type);
}

std::string sanitize(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    out += (std::isalnum(c) || c == '.' || c == '-' || c == '+' || c == '=') ? static_cast<char>(c) : '_';
  }
  return out.size() > 40 ? out.substr(0, 40) : out;
}

struct Axis {
  const IniEntry* entry;
  std::vector<std::string> values;
  enum class Scope { kBudget, kCommand, kPolicy } scope;
  OptionType type;
  bool decides_results;
};

// Steps `at` to the next combination, the last axis fastest; false after the last one.
bool next_combination(std::vector<std::size_t>& at, const std::vector<Axis>& axes) {
  for (std::size_t i = axes.size(); i-- > 0;) {
    if (++at[i] < axes[i].values.size()) return true;
    at[i] = 0;
  }
  return false;
}

}  // namespace

std::string SweepRun::describe() const {
  std::string s = kind;
  for (const auto& [k, v] : point) s += fmt::format(" {}={}", k, v);
  return s;
}

SweepSpec parse_sweep_text(const std::string& text, const std::string& path,
                           const std::vector<std::string>& overrides) {
  IniFile file;
  try {
    file = parse_ini_text(text, path);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  SweepSpec spec;
  spec.path = path;
  std::vector<IniEntry> rest;
  std::map<std::string, const IniEntry*> sweep_keys;
  for (const auto& e : file.entries) {
    if (e.section != "sweep") continue;
    if (!sweep_keys.emplace(e.key, &e).second) {
      throw std::invalid_argument(fmt::format("{}: {} is given twice in [sweep] (also at line {})", e.where(), e.key,
                                              sweep_keys[e.key]->line));
    }
    if (e.key == "kinds") {
      IniEntry list = e;
      std::replace(list.value.begin(), list.value.end(), '|', ',');
      const auto kinds = split_values(list, ',');
      for (const auto& k : kinds) {
        try {
          find_run_kind(k);
        } catch (const std::invalid_argument& err) {
          throw std::invalid_argument(fmt::format("{}: kinds: {}", e.where(), err.what()));
        }
        if (std::find(spec.kinds.begin(), spec.kinds.end(), k) != spec.kinds.end()) {
          throw std::invalid_argument(fmt::format("{}: kinds lists {} twice", e.where(), k));
        }
        spec.kinds.push_back(k);
      }
    } else if (e.key == "out") {
      spec.out = e.value;
    } else if (e.key != "name") {
      throw std::invalid_argument(fmt::format("{}: unknown key \"{}\" in [sweep]; it takes kinds, out and name",
                                              e.where(), e.key));
    }
  }
  if (spec.kinds.empty()) {
    throw std::invalid_argument(fmt::format("{}: no kinds of run: add [sweep] kinds = {} (one or more)", path,
                                            kind_names()));
  }
  IniFile others = file;
  others.entries.erase(std::remove_if(others.entries.begin(), others.entries.end(),
                                      [](const IniEntry& e) { return e.section == "sweep"; }),
                       others.entries.end());
  append_with_includes(others, "", 0, spec.entries);
  for (const auto& text : overrides) {
    const auto eq = text.find('=');
    const auto dotted = trim(text.substr(0, eq == std::string::npos ? 0 : eq));
    if (eq == std::string::npos || dotted.empty()) {
      throw std::invalid_argument(fmt::format("--set {}: expected [section.]key=value, e.g. --set model=/models/x or "
                                              "--set method.ripple.ratio=2",
                                              text));
    }
    const auto dot = dotted.rfind('.');
    IniEntry o{dot == std::string::npos ? "common" : dotted.substr(0, dot),
               dot == std::string::npos ? dotted : dotted.substr(dot + 1), trim(text.substr(eq + 1)), "--set", 0};
    if (o.section == "sweep") {
      throw std::invalid_argument(fmt::format("--set {}: [sweep] settings have their own options (--out)", text));
    }
    bool replaced = false;
    for (auto& e : spec.entries) {
      const auto section = e.section.empty() ? "common" : e.section;
      if (section == o.section && e.key == o.key) {
        e.value = o.value;
        e.file = "--set";
        e.line = 0;
        replaced = true;
      }
    }
    if (!replaced) spec.entries.push_back(o);
  }
  std::map<std::pair<std::string, std::string>, const IniEntry*> seen;
  for (auto& e : spec.entries) {
    check_entry(spec, e);
    const auto [it, fresh] = seen.emplace(std::make_pair(e.section, e.key), &e);
    if (!fresh) {
      throw std::invalid_argument(fmt::format("{}: {} is given twice in [{}] (also at {}); list several values on "
                                              "one line, separated by '|'",
                                              e.where(), e.key, e.section, it->second->where()));
    }
  }
  return spec;
}

SweepSpec read_sweep_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open the sweep file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_sweep_text(ss.str(), path, overrides);
}

std::vector<SweepRun> expand_sweep(const SweepSpec& spec, const MethodResolver& resolve) {
  const IniEntry* method_entry = nullptr;
  const IniEntry* budget_entry = nullptr;
  for (const auto& e : spec.entries) {
    if (e.section == "common" && e.key == "method") method_entry = &e;
    if (e.section == "common" && e.key == "budget") budget_entry = &e;
  }
  if (!method_entry) {
    throw std::invalid_argument(fmt::format("{}: the grid is empty: list the methods in [common], e.g. method = "
                                            "snapkv | pyramidkv | ripple",
                                            spec.path));
  }
  const auto methods = split_values(*method_entry);
  struct MethodInfo {
    std::string name;
    ResolvedMethod resolved;
    bool full;
  };
  std::vector<MethodInfo> infos;
  for (const auto& m : methods) {
    for (const auto& have : infos) {
      if (have.name == m) throw std::invalid_argument(fmt::format("{}: method {} is listed twice", method_entry->where(), m));
    }
    ResolvedMethod r;
    try {
      r = resolve(m);
    } catch (const std::invalid_argument& err) {
      throw std::invalid_argument(fmt::format("{}: method = {}: {}", method_entry->where(), m, err.what()));
    }
    infos.push_back({m, r, r.selector == "full"});
  }
  for (const auto& e : spec.entries) {
    if (!is_method_section(e.section)) continue;
    const auto name = method_of_section(e.section);
    if (std::none_of(infos.begin(), infos.end(), [&](const MethodInfo& i) { return i.name == name; })) {
      throw std::invalid_argument(fmt::format("{}: a [{}] section, but `method =` ({}) does not list {}", e.where(),
                                              e.section, method_entry->value, name));
    }
  }
  const bool any_budgeted = std::any_of(infos.begin(), infos.end(), [](const MethodInfo& i) { return !i.full; });
  if (any_budgeted && !budget_entry) {
    throw std::invalid_argument(fmt::format("{}: no budget: add budget = ... to [common] (tokens per layer, e.g. "
                                            "budget = 128 | 512)",
                                            spec.path));
  }

  std::vector<SweepRun> runs;
  std::map<std::string, std::size_t> by_config;
  for (const auto& kind_name : spec.kinds) {
    const RunKind& kind = find_run_kind(kind_name);
    for (const auto& info : infos) {
      std::vector<Axis> axes;
      for (const auto& e : spec.entries) {
        Axis a{&e, split_values(e), Axis::Scope::kCommand, OptionType::kString, true};
        if (e.section == "common" && e.key == "method") continue;
        if (e.section == "common" && e.key == "budget") {
          if (info.full) continue;
          a.scope = Axis::Scope::kBudget;
          a.type = OptionType::kInt;
        } else if (e.section == "common" || e.section == kind.name) {
          const auto* option = find_kind_option(kind, e.key);
          if (!option) continue;  // a [common] option of another kind
          a.type = option->type;
          a.decides_results = option->decides_results;
        } else if (e.section == std::string(kMethodSection) + info.name) {
          a.scope = Axis::Scope::kPolicy;
          a.type = policy_option_type(e.key);
          if (info.resolved.options.count(e.key)) {
            throw std::invalid_argument(fmt::format("{}: {} is set in the method name \"{}\" and here; keep one",
                                                    e.where(), e.key, info.name));
          }
        } else {
          continue;
        }
        axes.push_back(std::move(a));
      }
      std::vector<std::size_t> at(axes.size(), 0);
      while (true) {
        SweepRun run;
        run.kind = kind.name;
        run.method = info.name;
        run.full = info.full;
        run.resolved = info.resolved;
        run.point.emplace_back("method", info.name);
        std::map<std::string, std::string> canonical_options, canonical_policy;
        for (const auto& [k, v] : info.resolved.options) canonical_policy[k] = canonical_option_value(policy_option_type(k), v);
        for (std::size_t i = 0; i < axes.size(); ++i) {
          const auto& a = axes[i];
          const auto& v = a.values[at[i]];
          const auto& key = a.entry->key;
          if (a.scope == Axis::Scope::kBudget) {
            run.budget = std::stoll(v);
            run.point.insert(run.point.begin() + 1, {"budget", v});
          } else if (a.scope == Axis::Scope::kPolicy) {
            run.resolved.options[key] = v;
            canonical_policy[key] = canonical_option_value(a.type, v);
            if (a.values.size() > 1) run.point.emplace_back(key, v);
          } else {
            run.options[key] = v;
            if (a.decides_results) canonical_options[key] = canonical_option_value(a.type, v);
            if (a.values.size() > 1) run.point.emplace_back(key, v);
          }
        }
        run.config["kind"] = run.kind;
        run.config["method"] = {{"selector", run.resolved.selector},
                                {"allocator", run.resolved.allocator},
                                {"budget", run.budget},
                                {"options", canonical_policy}};
        run.config["options"] = canonical_options;
        run.hash = fnv1a64_hex(run.config.dump()).substr(0, 8);
        std::string readable = sanitize(run.method);
        if (!run.full) readable += fmt::format("-b{}", run.budget);
        for (const auto& [k, v] : run.point) {
          if (k != "method" && k != "budget") readable += "-" + sanitize(k) + sanitize(v);
        }
        run.name = readable + "-" + run.hash;
        run.index = runs.size();
        const auto [it, fresh] = by_config.emplace(run.config.dump(), runs.size());
        if (!fresh) {
          throw std::invalid_argument(fmt::format(
              "{}: two grid points resolve to the same {} configuration, which would run twice:\n  {}\n  {}\nboth are "
              "{} x {} with the same options; drop one of them",
              spec.path, kind.name, runs[it->second].describe(), run.describe(), run.resolved.selector,
              run.resolved.allocator));
        }
        runs.push_back(std::move(run));
        if (!next_combination(at, axes)) break;
      }
    }
  }
  return runs;
}

std::vector<SweepRun> shard_runs(const std::vector<SweepRun>& runs, const eval::Shard& shard) {
  std::vector<SweepRun> out;
  for (const auto& r : runs) {
    if (shard.owns(r.index)) out.push_back(r);
  }
  return out;
}

std::vector<std::string> run_arguments(const SweepRun& run, const ResolvedMethod& method, const std::string& run_dir) {
  const RunKind& kind = find_run_kind(run.kind);
  std::vector<std::string> args;
  for (const auto& [k, v] : run.options) {
    const auto* option = find_kind_option(kind, k);
    if (option && option->type == OptionType::kBool) {
      if (bool_option_value(v)) args.push_back("--" + k);
      continue;
    }
    args.push_back(fmt::format("--{}={}", k, v));
  }
  if (run.kind == "longbench") {
    args.push_back("--selector=" + method.selector);
    args.push_back("--allocator=" + method.allocator);
    args.push_back(fmt::format("--budget={}", run.budget));
    for (const auto& [k, v] : method.options) args.push_back(fmt::format("--method-opt={}={}", k, v));
  } else if (run.kind == "fidelity") {
    std::string text = method.selector + ":" + method.allocator;
    std::string opts;
    for (const auto& [k, v] : method.options) {
      if (v.find(',') != std::string::npos) {
        throw std::invalid_argument(fmt::format("{}: {}={}: a fidelity method text cannot carry a ',' in a value; "
                                                "rename the file",
                                                run.describe(), k, v));
      }
      opts += fmt::format("{}{}={}", opts.empty() ? "" : ",", k, v);
    }
    if (!opts.empty()) text += "@" + opts;
    args.push_back("--methods=" + text);
    args.push_back(fmt::format("--budgets={}", run.budget));
  }
  args.push_back("--out=" + run_dir);
  return args;
}

nlohmann::ordered_json sweep_run_record(const SweepSpec& spec, const SweepRun& run,
                                        const std::vector<std::string>& arguments) {
  nlohmann::ordered_json j;
  j["ripplekv_sweep_run"] = 1;
  j["sweep_file"] = spec.path;
  j["kind"] = run.kind;
  j["name"] = run.name;
  j["hash"] = run.hash;
  j["method"] = run.method;
  j["full"] = run.full;
  j["budget"] = run.budget;
  nlohmann::ordered_json point = nlohmann::ordered_json::object();
  for (const auto& [k, v] : run.point) point[k] = v;
  j["point"] = point;
  j["config"] = run.config;
  std::string command = "ripplekv " + run.kind;
  for (const auto& a : arguments) command += " " + a;
  j["command"] = command;
  return j;
}

}  // namespace ripplekv::experiments
