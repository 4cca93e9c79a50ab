// The BPE model of a byte-level tokenizer.json: a vocabulary of byte-level pieces and the
// ranked merges, applied to one pre-token at a time exactly as tokenizers' BPE::merge_word
// does (lowest merge rank first, leftmost on ties). Torch-free.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ripplekv::bpe {

struct BpeOptions {
  bool ignore_merges = false;  // a pre-token that is a vocabulary entry is emitted whole (Llama-3)
  bool byte_fallback = false;  // a character outside the vocabulary becomes its "<0xAB>" byte pieces
  int unk_id = -1;             // else this id (-1: an error)
  bool fuse_unk = false;       // consecutive unknown characters give one unk
};

class BpeModel {
 public:
  // `merges` in rank order, as pairs of pieces. Throws std::invalid_argument when a merge
  // names a piece, or yields a piece, that is not in `vocab`.
  BpeModel(std::unordered_map<std::string, int> vocab, const std::vector<std::pair<std::string, std::string>>& merges,
           BpeOptions options = {});

  // The ids of one pre-token. Throws std::invalid_argument for a character outside the
  // vocabulary when there is neither a byte fallback nor an unk token.
  void tokenize(const std::string& pretoken, std::vector<int>& out) const;

  const std::unordered_map<std::string, int>& vocab() const { return vocab_; }

 private:
  struct PairHash {
    std::size_t operator()(const std::pair<int, int>& p) const {
      return std::hash<long long>()((static_cast<long long>(p.first) << 32) ^ static_cast<unsigned>(p.second));
    }
  };
  struct Merge {
    int rank;
    int new_id;
  };

  std::unordered_map<std::string, int> vocab_;
  std::unordered_map<std::pair<int, int>, Merge, PairHash> merges_;
  BpeOptions options_;
};

}  // namespace ripplekv::bpe
