#include "models/tokenizer/bpe_tokenizer.h"
#include "models/io/input_file.h"

#include <fmt/format.h>

#include "models/io/json_error.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "models/tokenizer/utf8.h"

namespace ripplekv::bpe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const std::string& path) {
  require_input_file(path, "a JSON file");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not valid JSON ({})", path, json_error_text(e)));
  }
}

// A null/absent field, or one equal to `allowed`; anything else is unsupported.
void require_field(const std::string& path, const json& obj, const std::string& where, const char* key,
                   const json& allowed) {
  if (!obj.contains(key) || obj[key].is_null() || obj[key] == allowed) return;
  throw std::invalid_argument(fmt::format("{}: {}.{} = {} is not supported (only {})", path, where, key,
                                          obj[key].dump(), allowed.dump()));
}

std::vector<std::pair<std::string, std::string>> parse_merges(const std::string& path, const json& merges) {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(merges.size());
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const json& m = merges[i];
    if (m.is_string()) {  // "a b" (the older format: pieces never contain a space)
      const auto s = m.get<std::string>();
      const auto space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        throw std::invalid_argument(fmt::format("{}: model.merges[{}] = {} is not two pieces", path, i, m.dump()));
      }
      out.emplace_back(s.substr(0, space), s.substr(space + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      out.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      throw std::invalid_argument(fmt::format("{}: model.merges[{}] = {} is not two pieces", path, i, m.dump()));
    }
  }
  return out;
}

// tokenizer_config.json names special tokens as a string, an AddedToken object or null.
std::string token_name(const std::string& config_path, const json& config, const char* key) {
  if (!config.contains(key) || config[key].is_null()) return "";
  const json& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  throw std::invalid_argument(fmt::format("{}: {} = {} is not a token", config_path, key, v.dump()));
}

}  // namespace

BpeTokenizer::BpeTokenizer(const std::string& tokenizer_json_path) try : path_(tokenizer_json_path) {
  const std::string& path = path_;
  const json root = read_json(path);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) {
    throw std::invalid_argument(fmt::format(
        "{}: not a sentencepiece model, nor a Hugging Face tokenizer.json (no \"model\" object)", path));
  }
  const json& model = root["model"];
  const std::string type = model.value("type", "BPE");
  if (type != "BPE") {
    throw std::invalid_argument(
        fmt::format("{}: model.type \"{}\" is not supported (only \"BPE\")", path, type));
  }
  require_field(path, model, "model", "dropout", json());
  require_field(path, model, "model", "continuing_subword_prefix", "");
  require_field(path, model, "model", "end_of_word_suffix", "");
  if (!model.contains("vocab") || !model["vocab"].is_object()) {
    throw std::invalid_argument(fmt::format("{}: model.vocab is missing or not an object", path));
  }
  if (!model.contains("merges") || !model["merges"].is_array()) {
    throw std::invalid_argument(fmt::format("{}: model.merges is missing or not a list", path));
  }

  std::unordered_map<std::string, int> vocab;
  vocab.reserve(model["vocab"].size());
  int max_id = -1;
  // Ids index a table: they must be non-negative ints, and not absurdly beyond the number of
  // tokens the file defines (a corrupt id would otherwise ask for gigabytes).
  static const json no_added_tokens = json::array();
  // References into root (not copies), so that JSON errors name their place in the file.
  const json& added_list = root.contains("added_tokens") ? root["added_tokens"] : no_added_tokens;
  const int64_t defined = static_cast<int64_t>(model["vocab"].size() + (added_list.is_array() ? added_list.size() : 0));
  const int64_t id_limit = 4 * defined + 65536;
  const auto valid_id = [&](const json& id) {
    return id.is_number_integer() && id.get<int64_t>() >= 0 && id.get<int64_t>() < id_limit;
  };
  for (const auto& [piece, id] : model["vocab"].items()) {
    if (!valid_id(id)) {
      throw std::invalid_argument(fmt::format("{}: model.vocab[{}] = {} is not an id (ids are integers from 0 to about "
                                              "the number of tokens, here below {})",
                                              path, json(piece).dump(), id.dump(), id_limit));
    }
    vocab.emplace(piece, id.get<int>());
    max_id = std::max(max_id, id.get<int>());
  }
  const json& added = added_list;
  if (!added.is_array()) throw std::invalid_argument(fmt::format("{}: added_tokens is not a list", path));
  for (const auto& t : added) {
    if (!t.is_object() || !t.contains("id") || !valid_id(t["id"]) || !t.contains("content") ||
        !t["content"].is_string() || t["content"].get<std::string>().empty()) {
      throw std::invalid_argument(
          fmt::format("{}: added_tokens entry {} lacks a valid id (below {}) or content", path, t.dump(), id_limit));
    }
    for (const char* flag : {"single_word", "lstrip", "rstrip"}) {  // never set by the models supported
      if (t.value(flag, false)) {
        throw std::invalid_argument(fmt::format("{}: added token {} sets {}, which is not supported", path,
                                                t["content"].dump(), flag));
      }
    }
    const auto content = t["content"].get<std::string>();
    const int id = t["id"].get<int>();
    if (id < 0) throw std::invalid_argument(fmt::format("{}: added token {} has id {}", path, t["content"].dump(), id));
    added_ids_[content] = id;
    if (t.value("special", false)) special_ids_.insert(id);
    max_id = std::max(max_id, id);
  }

  pieces_.assign(static_cast<std::size_t>(max_id + 1), std::string());
  for (const auto& [piece, id] : vocab) pieces_[static_cast<std::size_t>(id)] = piece;
  added_by_first_byte_.resize(256);
  for (const auto& [content, id] : added_ids_) {
    pieces_[static_cast<std::size_t>(id)] = content;
    added_by_first_byte_[static_cast<unsigned char>(content[0])].push_back({content, id});
  }
  for (auto& bucket : added_by_first_byte_) {
    std::sort(bucket.begin(), bucket.end(), [](const AddedToken& a, const AddedToken& b) {
      return a.content.size() != b.content.size() ? a.content.size() > b.content.size() : a.content < b.content;
    });
  }

  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    const auto it = vocab.find(model["unk_token"].get<std::string>());
    if (it == vocab.end()) {
      throw std::invalid_argument(fmt::format("{}: model.unk_token {} is not in the vocab", path, model["unk_token"].dump()));
    }
    unk_id_ = it->second;
  }

  normalizer_ = make_normalizer({path, "normalizer"}, root.value("normalizer", json()));
  pre_tokenizer_ = make_pre_tokenizer({path, "pre_tokenizer"}, root.value("pre_tokenizer", json()));
  decoder_ = make_decoder({path, "decoder"}, root.value("decoder", json()));
  // Added tokens are matched in the raw text. One marked "normalized" would be matched after
  // normalization by tokenizers: the same thing only when normalizing leaves it unchanged.
  for (const auto& t : added) {
    const auto content = t["content"].get<std::string>();
    if (normalizer_ && t.value("normalized", false) && normalizer_->normalize(content) != content) {
      throw std::invalid_argument(fmt::format(
          "{}: added token {} is \"normalized\" and the normalizer changes it, which is not supported", path,
          t["content"].dump()));
    }
  }

  BpeOptions options;
  options.ignore_merges = get_bool({path, "model"}, model, "ignore_merges", false);
  options.byte_fallback = get_bool({path, "model"}, model, "byte_fallback", false);
  options.fuse_unk = get_bool({path, "model"}, model, "fuse_unk", false);
  options.unk_id = unk_id_;
  try {
    model_ = std::make_unique<BpeModel>(std::move(vocab), parse_merges(path, model["merges"]), options);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: model.merges: {}", path, e.what()));
  }

  const auto config_path = (fs::path(path).parent_path() / "tokenizer_config.json").string();
  if (fs::exists(config_path)) load_config(config_path);
} catch (const json::exception& e) {
  // A value of the wrong type somewhere in the file (e.g. "special": "yes").
  throw std::invalid_argument(fmt::format("{}: {}", tokenizer_json_path, json_error_text(e)));
}

void BpeTokenizer::load_config(const std::string& config_path) {
  const json config = read_json(config_path);
  if (!config.is_object()) throw std::invalid_argument(fmt::format("{}: not a JSON object", config_path));
  const auto id_of = [&](const char* key) {
    const auto name = token_name(config_path, config, key);
    if (name.empty()) return -1;
    const int id = piece_to_id(name);
    if (id < 0) {
      throw std::invalid_argument(fmt::format("{}: {} \"{}\" is not a token of {}", config_path, key, name, path_));
    }
    return id;
  };
  bos_id_ = id_of("bos_token");
  eos_id_ = id_of("eos_token");
  pad_id_ = id_of("pad_token");
  if (const int unk = id_of("unk_token"); unk >= 0) unk_id_ = unk;
  // Llama-3 has no add_bos_token: its post-processor prepends BOS. Qwen2 has no BOS at all.
  add_bos_ = bos_id_ >= 0 && config.value("add_bos_token", true);
}

void BpeTokenizer::encode_ordinary(std::string_view text, bool at_start, std::vector<int>& out) const {
  if (text.empty()) return;
  std::vector<PreToken> pieces{{std::string(text), at_start}};
  if (normalizer_) pieces[0].text = normalizer_->normalize(std::move(pieces[0].text));
  if (pre_tokenizer_) pre_tokenizer_->split(pieces);
  for (const auto& piece : pieces) model_->tokenize(piece.text, out);
}

std::vector<int> BpeTokenizer::encode(const std::string& text) const {
  if (!is_valid_utf8(text)) decode_utf8(text);  // throws naming the first bad byte
  std::vector<int> out;
  std::size_t start = 0;  // start of the text not yet encoded
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto& bucket = added_by_first_byte_[static_cast<unsigned char>(text[i])];
    for (const auto& t : bucket) {
      if (text.compare(i, t.content.size(), t.content) != 0) continue;
      encode_ordinary(std::string_view(text).substr(start, i - start), start == 0, out);
      out.push_back(t.id);
      i += t.content.size() - 1;
      start = i + 1;
      break;
    }
  }
  encode_ordinary(std::string_view(text).substr(start), start == 0, out);
  return out;
}

std::string BpeTokenizer::decode(const std::vector<int>& ids) const {
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int id : ids) pieces.push_back(id_to_piece(id));
  if (decoder_) pieces = decoder_->decode(std::move(pieces));
  std::string out;
  for (const auto& p : pieces) out += p;
  return out;
}

std::string BpeTokenizer::id_to_piece(int id) const {
  if (id < 0 || id >= vocab_size()) {
    throw std::invalid_argument(fmt::format("id_to_piece: id {} outside the vocabulary [0, {})", id, vocab_size()));
  }
  return pieces_[static_cast<std::size_t>(id)];
}

int BpeTokenizer::piece_to_id(const std::string& piece) const {
  if (const auto it = added_ids_.find(piece); it != added_ids_.end()) return it->second;
  const auto& vocab = model_->vocab();
  const auto it = vocab.find(piece);
  return it == vocab.end() ? -1 : it->second;
}

}  // namespace ripplekv::bpe
