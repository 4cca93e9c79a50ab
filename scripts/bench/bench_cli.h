// Command-line pieces the benchmark programs share (header-only, benchmarks only): a random
// model's shape as options, parsing with --help, and the thread count.
#pragma once

#include <ATen/Parallel.h>
#include <boost/program_options.hpp>

#include <cstdint>
#include <iostream>
#include <thread>

namespace ripplekv::bench {

// A random model's shape as options; each program starts from its own defaults.
struct ShapeOptions {
  int64_t layers, hidden, heads, kv_heads, inter, vocab;

  void add_to(boost::program_options::options_description& desc) {
    namespace po = boost::program_options;
    desc.add_options()("layers", po::value(&layers)->default_value(layers), "layers")(
        "hidden", po::value(&hidden)->default_value(hidden), "hidden size")(
        "heads", po::value(&heads)->default_value(heads), "query heads")(
        "kv-heads", po::value(&kv_heads)->default_value(kv_heads), "KV heads")(
        "intermediate", po::value(&inter)->default_value(inter), "MLP size")(
        "vocab", po::value(&vocab)->default_value(vocab), "vocabulary");
  }
};

// Parses argv into the variables desc's options point at. For --help (which desc declares as
// "help,h") it prints the options and returns false: the program then exits with 0.
inline bool parse_args(const boost::program_options::options_description& desc, int argc, char** argv) {
  namespace po = boost::program_options;
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return false;
  }
  return true;
}

// --threads, for set_threads: 0 is every core.
inline void add_threads_option(boost::program_options::options_description& desc, int& threads) {
  desc.add_options()("threads", boost::program_options::value(&threads)->default_value(0),
                     "CPU threads (0 = all cores)");
}

// LibTorch may otherwise start with one thread.
inline void set_threads(int threads) {
  at::set_num_threads(threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace ripplekv::bench
