#include "eval/needle/needle_task.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>
#include <map>
#include <stdexcept>

#include "eval/jsonl.h"
#include "eval/prompt_builder.h"
#include "eval/sample_scores.h"

namespace ripplekv::eval {

const char* const kNeedle = "\nThe best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny day.\n";
const char* const kNeedleQuestion = "What is the best thing to do in San Francisco?";
const char* const kNeedleAnswer = "eat a sandwich and sit in Dolores Park on a sunny day";

namespace {
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (unsigned char c : text) {
    if (std::isalnum(c)) {
      w += static_cast<char>(std::tolower(c));
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

std::string user_message(const std::string& context) {
  return context + "\n\n" + kNeedleQuestion + " Don't give information outside the document or repeat your findings.";
}
}  // namespace

double needle_score(const std::string& prediction) {
  std::map<std::string, int> have;
  for (const auto& w : words(prediction)) ++have[w];
  const auto ref = words(kNeedleAnswer);
  int hit = 0;
  for (const auto& w : ref) {
    auto it = have.find(w);
    if (it != have.end() && it->second > 0) {
      ++hit;
      --it->second;
    }
  }
  return 100.0 * hit / static_cast<double>(ref.size());
}

NeedleEngineTask::NeedleEngineTask(std::vector<NeedleCell> cells, const std::string& haystack_text,
                                   const Tokenizer& tokenizer, const ChatTemplate& chat, int64_t max_new_tokens)
    : cells_(std::move(cells)), haystack_(tokenizer.encode(haystack_text, false)), tokenizer_(tokenizer), chat_(chat),
      max_new_(max_new_tokens) {
  needle_ = tokenizer.encode(kNeedle, false);
  overhead_ = static_cast<int64_t>(encode_segments(render_chat(chat_, user_message("")), tokenizer, "").size());
  for (const auto& c : cells_) {
    if (c.depth < 0 || c.depth > 100) throw std::invalid_argument(fmt::format("--depths: {} is not a percentage 0..100", c.depth));
    ids_.push_back(c.id());
  }
}

TaskPrompt NeedleEngineTask::prompt(std::size_t k) const {
  const auto& cell = cells_.at(k);
  const auto& needle = needle_;
  const int64_t overhead = overhead_;
  // Room for the essay text; a few tokens of slack for merges at the joins.
  const int64_t room = cell.length - max_new_ - overhead - static_cast<int64_t>(needle.size()) - 8;
  if (room < 16) {
    throw std::invalid_argument(fmt::format("needle: {} tokens leave no room for a haystack (the question, the needle "
                                            "and {} generated tokens take {}); use longer --lengths",
                                            cell.length, max_new_, cell.length - room));
  }
  if (room > static_cast<int64_t>(haystack_.size())) {
    throw std::invalid_argument(fmt::format("needle: {} tokens need {} tokens of essays, the haystack has {}; give "
                                            "more essays with --haystack or shorter --lengths",
                                            cell.length, room, haystack_.size()));
  }
  TokenIds context(haystack_.begin(), haystack_.begin() + room);
  auto at = static_cast<std::size_t>(cell.depth >= 100 ? context.size() : context.size() * static_cast<std::size_t>(cell.depth) / 100);
  if (cell.depth < 100) {
    // Back to the end of a sentence, so the needle does not split one.
    while (at > 0) {
      const auto piece = tokenizer_.decode({context[at - 1]});
      if (!piece.empty() && piece.back() == '.') break;
      --at;
    }
  }
  TokenIds with(context.begin(), context.begin() + static_cast<std::ptrdiff_t>(at));
  with.insert(with.end(), needle.begin(), needle.end());
  with.insert(with.end(), context.begin() + static_cast<std::ptrdiff_t>(at), context.end());
  TaskPrompt p;
  p.text = user_message(tokenizer_.decode(with));
  p.ids = encode_segments(render_chat(chat_, p.text), tokenizer_, chat_template_name(chat_.kind));
  p.original_tokens = static_cast<int64_t>(p.ids.size());
  if (p.original_tokens + max_new_ > cell.length) {
    throw std::logic_error(fmt::format("needle: the {}-token cell's prompt came out at {} tokens", cell.length, p.original_tokens));
  }
  return p;
}

std::string NeedleEngineTask::prediction(const TokenIds& generated, TokenId) const {
  return decode_prediction(tokenizer_, generated, -1);
}

std::string NeedleEngineTask::record(std::size_t k, const std::string& prediction) const {
  const auto& c = cells_.at(k);
  nlohmann::ordered_json j;
  j["_id"] = ids_.at(k);
  j["length"] = c.length;
  j["depth"] = c.depth;
  j["pred"] = prediction;
  j["score"] = needle_score(prediction);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string write_needle_results(const std::filesystem::path& dir, const std::string& label,
                                 const std::vector<int64_t>& lengths, const std::vector<int64_t>& depths) {
  std::map<std::string, double> score;
  JsonlReadOptions o;
  for_each_jsonl_record(dir / "needle.jsonl", o, [&](const nlohmann::json& r, std::size_t) {
    score[r.at("_id").get<std::string>()] = needle_score(r.at("pred").get<std::string>());
  });
  std::vector<std::vector<double>> grid;  // [depth][length]
  for (auto d : depths) {
    grid.emplace_back();
    for (auto len : lengths) {
      const auto id = NeedleCell{len, static_cast<int>(d)}.id();
      const auto it = score.find(id);
      if (it == score.end()) throw std::runtime_error(fmt::format("{}: no prediction for {}", (dir / "needle.jsonl").string(), id));
      grid.back().push_back(it->second);
    }
  }
  nlohmann::ordered_json heat;
  heat["label"] = label;
  heat["metric"] = "rouge-1 recall x 100";
  heat["lengths"] = lengths;
  heat["depths"] = depths;
  heat["scores"] = grid;
  nlohmann::ordered_json result;
  std::string md = fmt::format("Needle in a haystack, {} (ROUGE-1 recall x 100)\n\n| depth % |", label);
  for (auto len : lengths) md += fmt::format(" {} |", len);
  md += "\n|---|";
  for (std::size_t i = 0; i < lengths.size(); ++i) md += "---:|";
  md += "\n";
  for (std::size_t i = 0; i < depths.size(); ++i) {
    md += fmt::format("| {} |", depths[i]);
    for (double v : grid[i]) md += fmt::format(" {:.1f} |", v);
    md += "\n";
  }
  md += "| **mean** |";
  SampleScores samples;  // per length, one sample per depth: the units of a bootstrap interval
  for (std::size_t j = 0; j < lengths.size(); ++j) {
    auto& column = samples[fmt::format("needle@{}", lengths[j])];
    for (std::size_t i = 0; i < depths.size(); ++i) {
      column.ids.push_back(NeedleCell{lengths[j], static_cast<int>(depths[i])}.id());
      column.scores.push_back(grid[i][j]);
    }
  }
  for (std::size_t j = 0; j < lengths.size(); ++j) {
    double sum = 0;
    for (const auto& row : grid) sum += row[j];
    const double mean = sum / static_cast<double>(depths.size());
    result[fmt::format("needle@{}", lengths[j])] = mean;
    md += fmt::format(" **{:.1f}** |", mean);
  }
  md += "\n";
  const auto write = [](const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error(fmt::format("{}: cannot write", p.string()));
  };
  write(dir / "needle.json", heat.dump(1) + "\n");
  write(dir / "result.json", result.dump(1) + "\n");
  write(dir / "sample_scores.json", sample_scores_json(samples));
  write(dir / "results.md", md);
  return md;
}

}  // namespace ripplekv::eval
