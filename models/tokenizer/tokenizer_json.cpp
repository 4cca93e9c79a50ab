#include "models/tokenizer/tokenizer_json.h"

#include <fmt/format.h>

#include <stdexcept>

#include "models/tokenizer/utf8.h"

namespace ripplekv::bpe {

using nlohmann::json;

void fail(const JsonSite& site, const std::string& message) {
  throw std::invalid_argument(fmt::format("{}: {}: {}", site.file, site.field, message));
}

std::string component_type(const JsonSite& site, const json& component) {
  if (!component.is_object() || !component.contains("type") || !component["type"].is_string()) {
    fail(site, fmt::format("{} has no \"type\"", component.dump()));
  }
  return component["type"].get<std::string>();
}

namespace {

const json* member(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return nullptr;
  return &obj[key];
}

}  // namespace

bool get_bool(const JsonSite& site, const json& obj, const char* key, bool fallback) {
  const json* v = member(obj, key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(site.at(key), fmt::format("{} is not true or false", v->dump()));
  return v->get<bool>();
}

std::string get_string(const JsonSite& site, const json& obj, const char* key, const std::string& fallback) {
  const json* v = member(obj, key);
  if (!v) return fallback;
  if (!v->is_string()) fail(site.at(key), fmt::format("{} is not a string", v->dump()));
  return v->get<std::string>();
}

std::size_t get_count(const JsonSite& site, const json& obj, const char* key, std::size_t fallback) {
  const json* v = member(obj, key);
  if (!v) return fallback;
  if (!v->is_number_unsigned()) fail(site.at(key), fmt::format("{} is not a non-negative integer", v->dump()));
  return v->get<std::size_t>();
}

std::string get_char(const JsonSite& site, const json& obj, const char* key, const std::string& fallback) {
  const std::string s = get_string(site, obj, key, fallback);
  if (decode_utf8(s).size() != 1) fail(site.at(key), fmt::format("{} is not one character", json(s).dump()));
  return s;
}

std::string require_string(const JsonSite& site, const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) fail(site.at(key), "missing or not a string");
  return obj[key].get<std::string>();
}

Regex get_pattern(const JsonSite& site, const json& obj, const char* key) {
  const json* v = member(obj, key);
  const JsonSite where = site.at(key);
  if (!v || !v->is_object() || v->size() != 1) fail(where, "missing, or not {\"String\": ...} or {\"Regex\": ...}");
  try {
    if (v->contains("String") && (*v)["String"].is_string()) return Regex::literal((*v)["String"].get<std::string>());
    if (v->contains("Regex") && (*v)["Regex"].is_string()) return Regex((*v)["Regex"].get<std::string>());
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
  fail(where, fmt::format("{} is not {{\"String\": ...}} or {{\"Regex\": ...}}", v->dump()));
}

}  // namespace ripplekv::bpe
