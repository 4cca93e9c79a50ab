// The table of subcommands: one line per command.
#include "eval/cli/command.h"

namespace ripplekv::cli {

int run_generate(const std::vector<std::string>& args);
int run_profile(const std::vector<std::string>& args);
int run_allocate(const std::vector<std::string>& args);
int run_fidelity_command(const std::vector<std::string>& args);
int run_tokenize(const std::vector<std::string>& args);
int run_methods(const std::vector<std::string>& args);
#if RIPPLEKV_WITH_EVAL
int run_longbench(const std::vector<std::string>& args);
int run_longbench_score(const std::vector<std::string>& args);
int run_longbench_merge(const std::vector<std::string>& args);
int run_sweep(const std::vector<std::string>& args);
int run_table(const std::vector<std::string>& args);
int run_ruler(const std::vector<std::string>& args);
int run_needle(const std::vector<std::string>& args);
#endif

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"generate", "greedy generation from a prompt (prints text and tokens/s)", run_generate},
      {"profile", "RippleKV: per-layer KL sensitivity to value-cache noise, as a profile JSON + CSV", run_profile},
      {"allocate", "RippleKV: per-layer budgets from a profile for one or more ratios", run_allocate},
      {"fidelity", "KL and top-1 agreement of compressed vs full cache, methods x budgets", run_fidelity_command},
      {"tokenize", "token ids of each line of a JSON-lines file (one JSON line out per line in)", run_tokenize},
      {"methods", "the compression methods: selectors, allocators and presets, with every option's default and help",
       run_methods},
#if RIPPLEKV_WITH_EVAL
      {"longbench", "LongBench predictions with a KV-cache method, resumable and shardable, then scores",
       run_longbench},
      {"longbench-score", "score a folder of LongBench predictions as the official eval.py does", run_longbench_score},
      {"longbench-merge", "merge the shards of a `longbench --shard i/n` run and score it", run_longbench_merge},
      {"ruler", "RULER synthetic tasks (needles, variable tracking, common/frequent words) at chosen lengths, "
                "methods x budgets, resumable and shardable, then scores",
       run_ruler},
      {"needle", "needle in a haystack over depths x lengths, methods x budgets; heatmap data for plot_needle.py",
       run_needle},
      {"sweep", "run a grid of longbench / fidelity runs from a sweep file; skips complete runs, shardable",
       run_sweep},
      {"table", "LongBench and fidelity results as paper tables (Markdown, CSV, LaTeX) + summary.json for plots",
       run_table},
#endif
  };
  return table;
}

}  // namespace ripplekv::cli
