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

int64_t PolicyOptions::get_int(const std::string& key, int64_t fallback, const std::string& policy) {
  read_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) {
    resolved_[key] = std::to_string(fallback);
    return fallback;
  }
  size_t pos = 0;
  int64_t v = 0;
  try {
    v = std::stoll(it->second, &pos);
  } catch (const std::exception&) {
    bad_value(policy, key, it->second, "an integer");
  }
  if (pos != it->second.size()) bad_value(policy, key, it->second, "an integer");
  resolved_[key] = it->second;
  return v;
}

double PolicyOptions::get_double(const std::string& key, double fallback, const std::string& policy) {
  read_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) {
    resolved_[key] = fmt::format("{}", fallback);
    return fallback;
  }
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(it->second, &pos);
  } catch (const std::exception&) {
    bad_value(policy, key, it->second, "a number");
  }
  if (pos != it->second.size()) bad_value(policy, key, it->second, "a number");
  resolved_[key] = it->second;
  return v;
}

std::string PolicyOptions::get_string(const std::string& key, const std::string& fallback, const std::string& policy,
                                      const std::vector<std::string>& choices) {
  read_.insert(key);
  auto it = values_.find(key);
  const std::string v = it == values_.end() ? fallback : it->second;
  if (!choices.empty() && std::find(choices.begin(), choices.end(), v) == choices.end()) {
    bad_value(policy, key, v, fmt::format("one of {}", fmt::join(choices, ", ")));
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

std::string PolicyOptions::resolved() const {
  std::ostringstream s;
  bool first = true;
  for (const auto& [k, v] : resolved_) {
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
