#include "eval/haystack.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace ripplekv::eval {
namespace fs = std::filesystem;

std::string read_essay_haystack(const fs::path& dir) {
  if (!fs::is_directory(dir)) {
    throw std::invalid_argument(fmt::format("--haystack {}: not a folder of essay .txt files (e.g. "
                                            "../shared/data/haystack/PaulGrahamEssays)",
                                            dir.string()));
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".txt") files.push_back(e.path());
  }
  if (files.empty()) throw std::invalid_argument(fmt::format("--haystack {}: no .txt files", dir.string()));
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& p : files) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::invalid_argument(fmt::format("{}: cannot read", p.string()));
    text.append(std::istreambuf_iterator<char>(f), {});
  }
  return text;
}

}  // namespace ripplekv::eval
