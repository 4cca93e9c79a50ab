#include "eval/ruler/ruler_data.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <fstream>
#include <set>
#include <stdexcept>

#include "eval/jsonl.h"
#include "models/io/input_file.h"

namespace ripplekv::eval {
namespace fs = std::filesystem;

std::vector<RulerSample> read_ruler_samples(const fs::path& path) {
  require_input_file(path.string(), "a RULER validation.jsonl (made by RULER's prepare.py or `ripplekv ruler`)");
  std::vector<RulerSample> out;
  std::set<int64_t> seen;
  JsonlReadOptions o;
  for_each_jsonl_record(path, o, [&](const nlohmann::json& r, std::size_t line) {
    if (!r.is_object()) throw std::invalid_argument("a record must be a JSON object");
    RulerSample s;
    if (!r.contains("index") || !r.at("index").is_number_integer()) {
      throw std::invalid_argument("\"index\" must be an integer (RULER's sample number)");
    }
    s.index = r.at("index").get<int64_t>();
    s.input = json_string_field(r, "input");
    s.outputs = json_string_list_field(r, "outputs");
    if (s.outputs.empty()) throw std::invalid_argument("\"outputs\" is empty: a sample needs its reference answers");
    if (r.contains("answer_prefix")) s.answer_prefix = json_string_field(r, "answer_prefix");
    if (r.contains("length") && r.at("length").is_number_integer()) s.length = r.at("length").get<int64_t>();
    if (!seen.insert(s.index).second) {
      throw std::invalid_argument(fmt::format("\"index\" {} appears twice (line {}); indices identify samples", s.index, line));
    }
    out.push_back(std::move(s));
  });
  if (out.empty()) throw std::runtime_error(fmt::format("{}: no samples", path.string()));
  return out;
}

std::string ruler_sample_line(const RulerSample& s) {
  nlohmann::ordered_json j;
  j["index"] = s.index;
  j["input"] = s.input;
  j["outputs"] = s.outputs;
  j["length"] = s.length;
  j["length_w_model_temp"] = s.length;
  j["answer_prefix"] = s.answer_prefix;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void write_ruler_samples(const fs::path& path, const std::vector<RulerSample>& samples) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  const auto tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    for (const auto& s : samples) f << ruler_sample_line(s) << '\n';
    f.flush();
    if (!f) throw std::runtime_error(fmt::format("{}: cannot write (disk full?)", tmp));
  }
  fs::rename(tmp, path);
}

}  // namespace ripplekv::eval
