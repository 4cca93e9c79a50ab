#include "core/compress/policy_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ripplekv {

namespace {
[[noreturn]] void bad_value(const std::string& policy, const std::string& key, const std::string& value,
                            const std::string& want) {
  throw std::invalid_argument(fmt::format("{}: option {}={} is not {}", policy, key, value, want));
}
}  // namespace

void PolicyOptions::declare(const std::string& policy, const std::vector<OptionSpec>& options) {
  for (const auto& o : options) declared_.emplace(o.name, Declared{policy, o});  // the first declaration wins
}

const PolicyOptions::Declared& PolicyOptions::declared(const std::string& key, OptionKind kind) const {
  const auto it = declared_.find(key);
  if (it == declared_.end()) {
    throw std::logic_error(fmt::format("a policy reads option {}, which its catalog row does not declare", key));
  }
  const auto have = it->second.spec.kind;
  const bool text = kind == OptionKind::kText && (have == OptionKind::kText || have == OptionKind::kChoice);
  if (have != kind && !text) {
    throw std::logic_error(fmt::format("{}: option {} is read with another type than its declaration", it->second.policy, key));
  }
  return it->second;
}

int64_t PolicyOptions::get_int(const std::string& key) {
  const auto& d = declared(key, OptionKind::kInt);
  read_.insert(key);
  auto it = values_.find(key);
  const std::string text = it == values_.end() ? d.spec.default_value : it->second;
  size_t pos = 0;
  int64_t v = 0;
  try {
    v = std::stoll(text, &pos);
  } catch (const std::exception&) {
    bad_value(d.policy, key, text, "an integer");
  }
  if (pos != text.size()) bad_value(d.policy, key, text, "an integer");
  resolved_[key] = text;
  return v;
}

double PolicyOptions::get_double(const std::string& key) {
  const auto& d = declared(key, OptionKind::kNumber);
  read_.insert(key);
  auto it = values_.find(key);
  const std::string text = it == values_.end() ? d.spec.default_value : it->second;
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (const std::exception&) {
    bad_value(d.policy, key, text, "a number");
  }
  if (pos != text.size()) bad_value(d.policy, key, text, "a number");
  resolved_[key] = text;
  return v;
}

std::string PolicyOptions::get_string(const std::string& key) {
  const auto& d = declared(key, OptionKind::kText);
  read_.insert(key);
  auto it = values_.find(key);
  const std::string v = it == values_.end() ? d.spec.default_value : it->second;
  const auto& choices = d.spec.choices;
  if (!choices.empty() && std::find(choices.begin(), choices.end(), v) == choices.end()) {
    bad_value(d.policy, key, v, fmt::format("one of {}", fmt::join(choices, ", ")));
  }
  resolved_[key] = v;
  return v;
}

void PolicyOptions::check_all_used(const std::string& method) const {
  std::vector<std::string> unknown;
  for (const auto& [k, v] : values_) {
    if (!read_.count(k)) unknown.push_back(k);
  }
  if (!unknown.empty()) {
    throw std::invalid_argument(fmt::format("{}: unknown option(s) {}; valid options: {}", method,
                                            fmt::join(unknown, ", "),
                                            read_.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(read_, ", "))));
  }
}

std::string format_options(const std::map<std::string, std::string>& options) {
  std::ostringstream s;
  bool first = true;
  for (const auto& [k, v] : options) {
    s << (first ? "" : " ") << k << "=" << v;
    first = false;
  }
  return s.str();
}

std::pair<std::string, std::string> parse_key_value(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw std::invalid_argument(fmt::format("\"{}\": expected key=value (e.g. window=32)", text));
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace ripplekv
