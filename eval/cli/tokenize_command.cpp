// `ripplekv tokenize`: the token ids of each line of a JSON-lines file, one JSON line out per
// line in, for checking prompts and for parity checks against other tokenizers.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "eval/cli/command.h"
#include "models/io/input_file.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::cli {

int run_tokenize(const std::vector<std::string>& args) {
  std::string model, tokenizer, input, output, field = "text";
  bool add_bos = false, pieces = false;
  po::options_description desc;
  desc.add_options()("model", po::value<std::string>(&model)->default_value(""),
                     "model directory or file whose tokenizer to use (or give --tokenizer)")(
      "tokenizer", po::value<std::string>(&tokenizer)->default_value(""), "sentencepiece .model or HF tokenizer.json")(
      "input", po::value<std::string>(&input)->required(),
      "JSON lines: objects with a string --field, or JSON strings; `-` reads standard input")(
      "field", po::value<std::string>(&field)->default_value(field), "the field holding the text")(
      "output", po::value<std::string>(&output)->default_value("-"), "where to write; `-` is standard output")(
      "add-bos", po::bool_switch(&add_bos), "prepend BOS where the tokenizer has one (HF add_special_tokens)")(
      "pieces", po::bool_switch(&pieces), "also write each id's vocabulary piece");
  po::variables_map vm;
  if (!parse_options("tokenize", args, desc, vm)) return 0;
  if (model.empty() && tokenizer.empty()) throw UsageError("give --model DIR or --tokenizer PATH");
  const Tokenizer tok(find_tokenizer(model, tokenizer, 0));

  std::ifstream file;
  if (input != "-") {
    require_input_file(input, "a JSON-lines file (--input)");
    file.open(input);
    if (!file) throw std::invalid_argument(fmt::format("--input {}: cannot open", input));
  }
  std::istream& in = input == "-" ? std::cin : file;
  std::ofstream out_file;
  if (output != "-") {
    out_file.open(output);
    if (!out_file) throw std::invalid_argument(fmt::format("--output {}: cannot write", output));
  }
  std::ostream& out = output == "-" ? std::cout : out_file;

  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::invalid_argument(fmt::format("{}:{}: not a JSON line ({})", input, number, e.what()));
    }
    std::string text;
    if (j.is_string()) {
      text = j.get<std::string>();
    } else if (j.is_object() && j.contains(field) && j[field].is_string()) {
      text = j[field].get<std::string>();
    } else {
      throw std::invalid_argument(fmt::format("{}:{}: no string field \"{}\" (choose it with --field)", input, number, field));
    }
    TokenIds ids;
    try {
      ids = tok.encode(text, add_bos);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}:{}: {}", input, number, e.what()));
    }
    nlohmann::json row = {{"ids", ids}, {"n", ids.size()}};
    if (pieces) {
      std::vector<std::string> p;
      for (TokenId id : ids) p.push_back(tok.id_to_piece(id));
      row["pieces"] = p;
    }
    out << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  if (!out) throw std::runtime_error(fmt::format("--output {}: write failed", output));
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("--output {}: writing failed (disk full?)", output));
  return 0;
}

}  // namespace ripplekv::cli
