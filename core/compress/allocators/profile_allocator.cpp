// Per-layer multipliers read from a file, normalized so the total is exactly L * B
// (largest remainder), then clamped to [selector minimum, prompt length] with the excess
// redistributed. The file is a JSON array, a JSON object with "multipliers" (e.g. written
// by `ripplekv allocate`), or plain text with one number per line.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/compress/allocators/allocators.h"
#include "models/io/json_error.h"
#include "models/io/input_file.h"
#include "core/compress/budget_math.h"

namespace ripplekv {

namespace {

std::vector<double> read_multipliers(const std::string& path) {
  require_input_file(path, "a per-layer multipliers file (option file=)");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("profile: cannot open multipliers file \"{}\" (option file=)", path));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<double> out;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '[' || text[first] == '{')) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::invalid_argument(fmt::format("{}: not valid JSON ({})", path, json_error_text(e)));
    }
    const auto& arr = j.is_object() ? j.value("multipliers", nlohmann::json()) : j;
    if (!arr.is_array()) throw std::invalid_argument(fmt::format("{}: expected an array or {{\"multipliers\": [...]}}", path));
    for (const auto& v : arr) {
      if (!v.is_number()) throw std::invalid_argument(fmt::format("{}: multipliers must be numbers", path));
      out.push_back(v.get<double>());
    }
  } else {
    std::istringstream lines(text);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
      ++n;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        std::size_t used = 0;
        out.push_back(std::stod(line, &used));
        if (line.find_first_not_of(" \t\r", used) != std::string::npos) throw std::invalid_argument(line);
      } catch (const std::exception&) {
        // Shown escaped and cut: the file may be binary.
        std::string shown = nlohmann::json(line.substr(0, 60)).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
        throw std::invalid_argument(fmt::format("{}:{}: {}{} is not a number (the file holds one multiplier per line, "
                                                "or a JSON array)",
                                                path, n, shown, line.size() > 60 ? "..." : ""));
      }
    }
  }
  double sum = 0;
  for (double v : out) {
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument(fmt::format("{}: multipliers must be finite and > 0", path));
    sum += v;
  }
  if (!std::isfinite(sum)) {
    throw std::invalid_argument(fmt::format("{}: the multipliers are so large that their sum overflows; they are "
                                            "relative, so scale them down (e.g. divide by the largest)",
                                            path));
  }
  return out;
}

class ProfileAllocator final : public LayerBudgetAllocator {
 public:
  explicit ProfileAllocator(PolicyOptions& o) : path_(o.get_string("file")) {
    if (path_.empty()) throw std::invalid_argument("profile: give the multipliers file with file=PATH");
    multipliers_ = read_multipliers(path_);
  }
  std::string name() const override { return "profile"; }
  std::vector<int64_t> allocate(const AllocationInput& in) const override {
    if (static_cast<int64_t>(multipliers_.size()) != in.num_layers) {
      throw std::invalid_argument(fmt::format("profile: {} has {} multipliers but the model has {} layers", path_,
                                              multipliers_.size(), in.num_layers));
    }
    const int64_t total = in.num_layers * in.budget;
    auto b = apportion_largest_remainder(multipliers_, total);
    return clamp_redistribute(b, in.min_per_layer, in.prompt_len, total, multipliers_);
  }

 private:
  std::string path_;
  std::vector<double> multipliers_;
};

}  // namespace

std::unique_ptr<LayerBudgetAllocator> make_profile_allocator(PolicyOptions& o) {
  return std::make_unique<ProfileAllocator>(o);
}

}  // namespace ripplekv
