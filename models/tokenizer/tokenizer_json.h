// Reading the parts of a Hugging Face tokenizer.json: the shared checks that turn an
// unsupported or malformed field into an error naming the file and the field. Torch-free.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/tokenizer/regex.h"

namespace ripplekv::bpe {

// Where a component sits: the file and the JSON path ("pre_tokenizer.pretokenizers[1]").
struct JsonSite {
  std::string file;
  std::string field;
  JsonSite at(const std::string& key) const { return {file, field + "." + key}; }
  JsonSite at(std::size_t index) const { return {file, field + "[" + std::to_string(index) + "]"}; }
};

// std::invalid_argument "FILE: FIELD: message".
[[noreturn]] void fail(const JsonSite& site, const std::string& message);

// The "type" of a component object; fails when there is none.
std::string component_type(const JsonSite& site, const nlohmann::json& component);

// obj[key] when present and of the JSON type `fallback` has, else `fallback`; a present value
// of another type fails naming the field.
bool get_bool(const JsonSite& site, const nlohmann::json& obj, const char* key, bool fallback);
std::string get_string(const JsonSite& site, const nlohmann::json& obj, const char* key, const std::string& fallback);
std::size_t get_count(const JsonSite& site, const nlohmann::json& obj, const char* key, std::size_t fallback);
// A string that is exactly one Unicode character (Metaspace's replacement, Strip's content).
std::string get_char(const JsonSite& site, const nlohmann::json& obj, const char* key, const std::string& fallback);

// A Split/Replace pattern, {"String": "..."} (literal) or {"Regex": "..."}.
Regex get_pattern(const JsonSite& site, const nlohmann::json& obj, const char* key = "pattern");

// The string obj[key], required.
std::string require_string(const JsonSite& site, const nlohmann::json& obj, const char* key);

// The components of a Sequence: obj[key] must be a list; `make(site, spec)` builds each (null
// entries are dropped).
template <typename Component, typename Make>
std::vector<std::unique_ptr<Component>> parse_sequence(const JsonSite& site, const nlohmann::json& obj, const char* key,
                                                       Make make) {
  if (!obj.contains(key) || !obj[key].is_array()) fail(site.at(key), "missing or not a list");
  std::vector<std::unique_ptr<Component>> parts;
  for (std::size_t i = 0; i < obj[key].size(); ++i) {
    auto part = make(site.at(key).at(i), obj[key][i]);
    if (part) parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace ripplekv::bpe
