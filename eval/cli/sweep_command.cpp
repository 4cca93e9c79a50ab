// `ripplekv sweep --config SWEEP.ini`: expands a sweep file's grid (eval/experiments/sweep_grid.h)
// into runs, skips the complete ones, and makes the others in this process by calling the
// `longbench` and `fidelity` commands with each run's arguments, each into its own folder
// <out>/<kind>/<name>-<hash> beside a sweep_run.json. Runs that differ only in method and
// budget are made by one call (eval/cli/run_groups.h): each sample is prefilled once for all. `--shard i/n` makes only every n-th run,
// so that n machines (or an array job) split a grid; a rerun after a kill redoes what is
// missing (the longbench runner resumes within a run, sample by sample).
#include <fmt/format.h>

#include <memory>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "eval/cli/command.h"
#include "eval/cli/run_groups.h"
#include "eval/run_lock.h"
#include "core/compress/method_presets.h"
#include "core/compress/policy_catalog.h"
#include "core/ripple/profile_runner.h"
#include "eval/experiments/run_kinds.h"
#include "eval/experiments/sweep_grid.h"

namespace ripplekv::cli {

namespace {

namespace fs = std::filesystem;
using namespace ripplekv::experiments;

ResolvedMethod resolve_method(const std::string& name) {
  const CompressionSpec spec = parse_method(name, 0);
  auto known = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (!known(selector_names(), spec.selector)) {
    throw std::invalid_argument(fmt::format("unknown selector \"{}\"; valid selectors: {}", spec.selector,
                                            fmt::join(selector_names(), ", ")));
  }
  if (!known(allocator_names(), spec.allocator)) {
    throw std::invalid_argument(fmt::format("unknown allocator \"{}\"; valid allocators: {}", spec.allocator,
                                            fmt::join(allocator_names(), ", ")));
  }
  return {spec.selector, spec.allocator, spec.options};
}

int run_group(const std::string& kind, const std::vector<std::vector<std::string>>& runs) {
  if (kind == "longbench") return run_longbench_group(runs);
  if (kind == "fidelity") return run_fidelity_group(runs);
  throw std::logic_error("sweep: no command for kind " + kind);
}

void write_json_atomically(const fs::path& path, const nlohmann::ordered_json& j) {
  fs::create_directories(path.parent_path());
  const auto tmp = fs::path(path.string() + fmt::format(".tmp-{}", ::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", tmp.string()));
  }
  fs::rename(tmp, path);
}

// A ripple method without profile= is profiled by the command it runs in (its registry prepare step),
// cached under <out>/profiles: one profile per model and calibration setting, shared by every
// run of the sweep that asks for it.
ResolvedMethod with_profile_cache(ResolvedMethod m, const fs::path& root) {
  if (allocator_declares(m.allocator, "profile_cache") && !m.options.count("profile") &&
      !m.options.count("profile_cache")) {
    m.options["profile_cache"] = (root / "profiles").string();
  }
  return m;
}

void claim_sweep_run_dir(const fs::path& dir, const nlohmann::ordered_json& record) {
  const auto path = dir / "sweep_run.json";
  if (fs::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    nlohmann::json existing;
    try {
      existing = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: damaged ({}); delete the folder to redo the run", path.string(),
                                           e.what()));
    }
    if (existing.value("config", nlohmann::json()) != nlohmann::json::parse(record.at("config").dump())) {
      throw std::runtime_error(fmt::format("{}: this folder holds a run of another configuration (a hash "
                                           "collision?); move it away",
                                           path.string()));
    }
  }
  write_json_atomically(path, record);
}

}  // namespace

int run_sweep(const std::vector<std::string>& args) {
  std::string config, out, shard_text;
  std::vector<std::string> overrides;
  bool dry_run = false;
  po::options_description desc("ripplekv sweep options");
  desc.add_options()("help,h", "show this help and exit")(
      "config", po::value<std::string>(&config),
      "the sweep file: an INI grid of runs (see configs/sweeps/demo.ini); its [sweep] section holds this "
      "command's own settings, which the command line overrides")(
      "out", po::value<std::string>(&out)->default_value(""), "results folder (default: [sweep] out in the file)")(
      "set", po::value<std::vector<std::string>>(&overrides)->composing(),
      "[section.]key=value, repeatable: overrides the file (section common when none), e.g. --set "
      "model=/models/Mistral-7B-Instruct-v0.2 --set method.ripple.ratio=2|4")(
      "shard", po::value<std::string>(&shard_text)->default_value(""),
      "i/n: make only the runs k of the grid with k % n == i (several machines split a grid)")(
      "dry-run", po::bool_switch(&dry_run), "list the runs, their folders and whether each is complete; run nothing");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    if (vm.count("help")) {
      std::cout << desc << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(fmt::format("ripplekv sweep: {}", e.what()));
  }
  if (config.empty()) throw UsageError("ripplekv sweep: give the sweep file with --config FILE (e.g. configs/sweeps/demo.ini)");

  const SweepSpec spec = read_sweep_file(config, overrides);
  if (out.empty()) out = spec.out;
  if (out.empty()) throw UsageError(fmt::format("ripplekv sweep: no results folder: pass --out DIR or add [sweep] out = DIR to {}", config));
  require_out_folder(out);
  const eval::Shard shard = shard_text.empty() ? eval::Shard{} : eval::parse_shard(shard_text);
  const auto runs = expand_sweep(spec, resolve_method);
  const auto mine = shard_runs(runs, shard);
  const fs::path root(out);

  // The whole grid, beside the runs (the same for every shard).
  nlohmann::ordered_json grid;
  grid["ripplekv_sweep"] = 1;
  grid["sweep_file"] = config;
  grid["kinds"] = spec.kinds;
  grid["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : runs) {
    nlohmann::ordered_json j;
    j["index"] = r.index;
    j["folder"] = r.folder();
    j["describe"] = r.describe();
    j["hash"] = r.hash;
    j["config"] = r.config;
    grid["runs"].push_back(j);
  }
  std::unique_ptr<eval::RunLock> lock;  // one sweep per folder and shard at a time
  if (!dry_run) {
    lock = std::make_unique<eval::RunLock>(
        root, shard.is_whole() ? ".ripplekv-sweep-lock" : fmt::format(".ripplekv-sweep-lock-shard-{}-of-{}", shard.index, shard.count),
        shard.is_whole() ? "this sweep folder" : fmt::format("shard {}/{} of this sweep folder", shard.index, shard.count));
    write_json_atomically(root / "sweep.json", grid);
  }

  // Every run's method keys and values, before anything runs (a typo in [method.X] or
  // ratio = 0 is found by --dry-run, not hours into the grid).
  for (const auto& r : mine) {
    try {
      check_method_spec(CompressionSpec{r.resolved.selector, r.resolved.allocator, r.budget, r.resolved.options});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: sweep run {} ({}): {}", config, r.folder(), r.describe(), e.what()));
    }
  }

  std::vector<const SweepRun*> pending;
  std::size_t complete = 0;
  std::cerr << fmt::format("sweep {}: {} runs in the grid{}\n", config, runs.size(),
                           shard.is_whole() ? "" : fmt::format(", {} in shard {}/{}", mine.size(), shard.index,
                                                               shard.count));
  for (const auto& r : mine) {
    const auto status = find_run_kind(r.kind).status(root / r.folder());
    const std::string where = fmt::format("[{}/{}] {}", r.index + 1, runs.size(), r.folder());
    if (status.complete) {
      ++complete;
      std::cerr << where << ": complete, skipped\n";
      continue;
    }
    pending.push_back(&r);
    if (dry_run) {
      std::cerr << where << ": to run (" << status.why << ")\n";
      std::cerr << "    " << r.describe() << "\n";
    }
  }
  if (dry_run) {
    std::cerr << fmt::format("dry run: {} to run, {} complete\n", pending.size(), complete);
    return 0;
  }

  // Runs that share every setting but their method and budget make one group: one call, in
  // which each sample (or text) is prefilled once for all of them (eval/cli/run_groups.h).
  std::vector<std::vector<const SweepRun*>> groups;
  std::map<std::string, std::size_t> group_of;
  for (const auto* r : pending) {
    std::string key = r->kind + "\n" + nlohmann::json(r->options).dump();
    // A run that saves its prompts writes them into its own folder: it runs alone.
    const auto save = r->options.find("save-prompts");
    if (save != r->options.end() && bool_option_value(save->second)) key += fmt::format("\n{}", r->index);
    const auto [it, fresh] = group_of.emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(r);
  }
  std::size_t ran = 0;
  for (const auto& group : groups) {
    std::vector<std::vector<std::string>> arguments;
    std::vector<std::string> names;
    for (const auto* r : group) {
      const fs::path dir = root / r->folder();
      arguments.push_back(run_arguments(*r, with_profile_cache(r->resolved, root), dir.string()));
      fs::create_directories(dir);
      claim_sweep_run_dir(dir, sweep_run_record(spec, *r, arguments.back()));
      std::cerr << fmt::format("[{}/{}] {}: running ({})\n", r->index + 1, runs.size(), r->folder(), r->describe());
      names.push_back(r->folder());
    }
    if (group.size() > 1) {
      std::cerr << fmt::format("  these {} runs share their settings: one {} call, one prefill per sample for all\n",
                               group.size(), group.front()->kind);
    }
    const std::string context =
        group.size() == 1 ? fmt::format("sweep run {} ({})", group.front()->folder(), group.front()->describe())
                          : fmt::format("sweep runs {}", fmt::join(names, ", "));
    try {
      run_group(group.front()->kind, arguments);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", context, e.what()));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", context, e.what()));
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: {}", context, e.what()));
    }
    for (const auto* r : group) {
      const auto status = find_run_kind(r->kind).status(root / r->folder());
      if (!status.complete) {
        throw std::runtime_error(fmt::format("sweep run {} ({}): ended without complete results ({})", r->folder(),
                                             r->describe(), status.why));
      }
      ++ran;
    }
  }
  std::cerr << fmt::format("sweep done: {} ran, {} were complete; results under {} (tables: ripplekv table --runs {} "
                           "--out {}/tables)\n",
                           ran, complete, root.string(), root.string(), root.string());
  return 0;
}

}  // namespace ripplekv::cli
