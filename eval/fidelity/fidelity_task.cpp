#include "eval/fidelity/fidelity_task.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/ripple/sensitivity_profile.h"
#include "eval/jsonl.h"
#include "models/io/fnv1a.h"

namespace ripplekv::eval {

FidelityTask::FidelityTask(std::vector<TokenIds> texts, FidelityOptions options)
    : texts_(std::move(texts)), options_(options) {
  if (options_.prompt_tokens < 1 || options_.continuation < 1) {
    throw std::invalid_argument("fidelity: prompt and continuation must be >= 1");
  }
  for (std::size_t k = 0; k < texts_.size(); ++k) {
    if (static_cast<int64_t>(texts_[k].size()) < options_.prompt_tokens + options_.continuation) {
      throw std::invalid_argument(fmt::format("fidelity: text {} has {} tokens, fewer than the {} + {} needed", k,
                                              texts_[k].size(), options_.prompt_tokens, options_.continuation));
    }
    ids_.push_back(fmt::format("text-{}", k));
  }
}

TaskPrompt FidelityTask::prompt(std::size_t k) const {
  const auto& t = texts_.at(k);
  TaskPrompt p;
  p.ids.assign(t.begin(), t.begin() + options_.prompt_tokens);
  p.original_tokens = options_.prompt_tokens;
  return p;
}

TaskDecoding FidelityTask::decoding(std::size_t k) const {
  const auto& t = texts_.at(k);
  TaskDecoding d;
  d.forced.assign(t.begin() + options_.prompt_tokens, t.begin() + options_.prompt_tokens + options_.continuation);
  return d;
}

std::string FidelityTask::prediction(const TokenIds&, TokenId) const {
  throw std::logic_error("fidelity: a teacher-forced task generates nothing");
}

std::string FidelityTask::record(std::size_t, const std::string&) const {
  throw std::logic_error("fidelity: a teacher-forced task generates nothing");
}

std::string FidelityTask::forced_record(std::size_t k, const ForcedComparison& c) const {
  nlohmann::ordered_json j;
  j["_id"] = sample_id(k);
  j["positions"] = c.kl.size();
  j["kl"] = c.kl;  // 17 significant digits: the row computed from the file equals the in-memory one
  j["top1_agree"] = c.top1_agree;
  j["kv_fraction"] = c.kv_fraction;
  j["compressed"] = c.compressed;
  return j.dump();
}

std::string FidelityTask::fingerprint() const {
  const int64_t lengths[2] = {options_.prompt_tokens, options_.continuation};
  uint64_t h = fnv1a64(lengths, sizeof(lengths), kFnvOffsetBasis);
  const auto used = static_cast<std::size_t>(options_.prompt_tokens + options_.continuation);
  for (const auto& t : texts_) h = fnv1a64(t.data(), used * sizeof(TokenId), h);
  return fmt::format("{:016x}", h);
}

FidelityRow fidelity_row(const std::string& method, int64_t budget, const std::filesystem::path& records,
                         const std::vector<std::string>& sample_ids) {
  std::map<std::string, nlohmann::json> by_id;
  for_each_jsonl_record(records, {}, [&](const nlohmann::json& r, std::size_t) {
    by_id[json_string_field(r, "_id")] = r;
  });
  FidelityRow row;
  row.method = method;
  row.budget = budget;
  row.texts = static_cast<int64_t>(sample_ids.size());
  std::vector<double> kl;
  int64_t agree = 0;
  double kv_fraction = 0;
  for (const auto& id : sample_ids) {
    const auto it = by_id.find(id);
    if (it == by_id.end()) {
      throw std::runtime_error(fmt::format("{}: no record of {}; rerun the fidelity command to finish it",
                                           records.string(), id));
    }
    try {
      const auto& r = it->second;
      const auto text = r.at("kl").get<std::vector<double>>();
      if (text.empty() || r.at("positions").get<std::size_t>() != text.size()) throw std::invalid_argument("bad kl list");
      double mean = 0;
      for (double x : text) mean += x / static_cast<double>(text.size());
      const auto a = r.at("top1_agree").get<int64_t>();
      row.text_kl_mean.push_back(mean);
      row.text_top1.push_back(static_cast<double>(a) / static_cast<double>(text.size()));
      kl.insert(kl.end(), text.begin(), text.end());
      agree += a;
      kv_fraction += r.at("kv_fraction").get<double>();
      row.compressed_texts += r.at("compressed").get<bool>() ? 1 : 0;
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: the record of {} is damaged ({}); delete the file to redo it",
                                           records.string(), id, e.what()));
    }
  }
  row.positions = static_cast<int64_t>(kl.size());
  for (double x : kl) row.kl_mean += x / static_cast<double>(kl.size());
  row.kl_p90 = percentile(kl, 0.9);
  row.kl_max = kl.empty() ? 0 : *std::max_element(kl.begin(), kl.end());
  row.top1_agreement = kl.empty() ? 0 : static_cast<double>(agree) / static_cast<double>(kl.size());
  row.kv_fraction = sample_ids.empty() ? 0 : kv_fraction / static_cast<double>(sample_ids.size());
  return row;
}

std::string fidelity_markdown(const std::vector<FidelityRow>& rows) {
  std::string s = "| method | budget | KL mean | KL p90 | KL max | top-1 agree | KV kept |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    s += fmt::format("| {} | {} | {:.4f} | {:.4f} | {:.4f} | {:.3f} | {:.1f}% |\n", r.method,
                     r.method == "full" ? std::string("-") : std::to_string(r.budget), r.kl_mean,
                     r.kl_p90, r.kl_max, r.top1_agreement, 100 * r.kv_fraction);
  }
  return s;
}

std::string fidelity_csv(const std::vector<FidelityRow>& rows) {
  std::string s = "method,budget,texts,positions,kl_mean,kl_p90,kl_max,top1_agreement,kv_fraction,compressed_texts\n";
  for (const auto& r : rows) {
    s += fmt::format("\"{}\",{},{},{},{:.9g},{:.9g},{:.9g},{:.6f},{:.6f},{}\n", r.method, r.budget, r.texts, r.positions,
                     r.kl_mean, r.kl_p90, r.kl_max, r.top1_agreement, r.kv_fraction, r.compressed_texts);
  }
  return s;
}

std::string fidelity_texts_csv(const std::vector<FidelityRow>& rows) {
  std::string s = "method,budget,text,kl_mean,top1_agreement\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.text_kl_mean.size(); ++i) {
      s += fmt::format("\"{}\",{},{},{:.9g},{:.9g}\n", r.method, r.budget, i, r.text_kl_mean[i], r.text_top1[i]);
    }
  }
  return s;
}

}  // namespace ripplekv::eval
