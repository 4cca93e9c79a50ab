// Options of one compression method (selector + allocator), key -> value strings, read by
// the policies themselves. The registry declares each policy's options (its catalog row:
// type, default, help; core/compress/policy_catalog.h) before the policy is made, so that a
// policy reads a key by name only and defaults live in one place; unknown keys are reported
// with the valid ones. Torch-free.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/compress/option_schema.h"
#include "models/config/model_identity.h"

namespace ripplekv {

// "key=value key=value ...", in key order: how a method's options in force are written in
// logs and descriptions.
std::string format_options(const std::map<std::string, std::string>& options);

class PolicyOptions {
 public:
  explicit PolicyOptions(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  // The model the method will run on (set by CompressionMethod::create), for policies that
  // must check a file against it (e.g. a sensitivity profile).
  int64_t model_layers = 0;
  ModelIdentity model;
  // What a run should say once in its log and saved config (e.g. a profile measured at
  // another dtype), added by the policies.
  std::vector<std::string> notes;
  // Checking keys and values only, before any model is loaded (sweep --dry-run): a file the
  // run itself will make (an on-the-fly ripple profile) does not exist yet and is not asked for.
  bool validate_only = false;

  // The options `policy` reads (done by make_selector / make_allocator from its catalog row).
  void declare(const std::string& policy, const std::vector<OptionSpec>& options);

  // The value given, else the declared default; a value of the wrong type (or not among a
  // choice's values) is std::invalid_argument naming policy, key and value. Reading a key the
  // policy did not declare is a std::logic_error (a bug).
  int64_t get_int(const std::string& key);
  double get_double(const std::string& key);
  std::string get_string(const std::string& key);
  bool has(const std::string& key) const { return values_.count(key) > 0; }

  // Throws std::invalid_argument naming unread keys and listing the keys the policies read.
  void check_all_used(const std::string& method) const;
  // "key=value ..." of every key read, with the values in force (defaults included).
  std::string resolved() const { return format_options(resolved_); }
  const std::map<std::string, std::string>& resolved_map() const { return resolved_; }

 private:
  struct Declared {
    std::string policy;
    OptionSpec spec;
  };
  const Declared& declared(const std::string& key, OptionKind kind) const;
  std::map<std::string, Declared> declared_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> resolved_;
  std::set<std::string> read_;
};

// Parses "key=value" (as given to --method-opt); throws naming the text on a missing '='.
std::pair<std::string, std::string> parse_key_value(const std::string& text);

}  // namespace ripplekv
