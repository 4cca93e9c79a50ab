#include "models/tokenizer/bpe_model.h"

#include <fmt/format.h>

#include <queue>
#include <stdexcept>

namespace ripplekv::bpe {

BpeModel::BpeModel(std::unordered_map<std::string, int> vocab,
                   const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options)
    : vocab_(std::move(vocab)), options_(options) {
  const auto id_of = [&](const std::string& piece, std::size_t rank) {
    const auto it = vocab_.find(piece);
    if (it == vocab_.end()) {
      throw std::invalid_argument(fmt::format("merge {} uses or makes \"{}\", which is not in the vocab", rank, piece));
    }
    return it->second;
  };
  merges_.reserve(merges.size());
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    const int new_id = id_of(a + b, rank);
    // A repeated pair takes its last rank, as tokenizers' HashMap collect does.
    merges_.insert_or_assign(std::make_pair(id_of(a, rank), id_of(b, rank)), Merge{static_cast<int>(rank), new_id});
  }
}

void BpeModel::tokenize(const std::string& pretoken, std::vector<int>& out) const {
  if (pretoken.empty()) return;
  if (options_.ignore_merges) {
    // Llama-3: a pre-token that is itself a vocabulary entry is emitted whole.
    const auto it = vocab_.find(pretoken);
    if (it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  struct Symbol {
    int id;
    int prev;
    int next;
    bool alive;
  };
  std::vector<Symbol> symbols;
  const auto push_symbol = [&](int id) {
    const int n = static_cast<int>(symbols.size());
    symbols.push_back({id, n - 1, -1, true});
    if (n > 0) symbols[static_cast<std::size_t>(n - 1)].next = n;
  };
  bool previous_unk = false;
  for (std::size_t i = 0; i < pretoken.size();) {
    const auto b = static_cast<unsigned char>(pretoken[i]);
    const std::size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    const auto piece = pretoken.substr(i, len);
    i += len;
    if (const auto it = vocab_.find(piece); it != vocab_.end()) {
      push_symbol(it->second);
      previous_unk = false;
      continue;
    }
    if (options_.byte_fallback) {
      std::vector<int> bytes;
      for (unsigned char c : piece) {
        const auto it = vocab_.find(fmt::format("<0x{:02X}>", static_cast<unsigned>(c)));
        if (it == vocab_.end()) break;
        bytes.push_back(it->second);
      }
      if (bytes.size() == piece.size()) {
        for (int id : bytes) push_symbol(id);
        previous_unk = false;
        continue;
      }
    }
    if (options_.unk_id < 0) {
      throw std::invalid_argument(fmt::format("the character \"{}\" is not in the BPE vocab (no unk token)", piece));
    }
    if (!(options_.fuse_unk && previous_unk)) push_symbol(options_.unk_id);
    previous_unk = true;
  }

  struct Candidate {
    int rank;
    int pos;
    int new_id;
    // std::priority_queue pops the largest: make the lowest rank, then the leftmost, largest.
    bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate> queue;
  const auto push_pair = [&](int left) {
    const int right = symbols[static_cast<std::size_t>(left)].next;
    if (right < 0) return;
    const auto it = merges_.find({symbols[static_cast<std::size_t>(left)].id, symbols[static_cast<std::size_t>(right)].id});
    if (it != merges_.end()) queue.push({it->second.rank, left, it->second.new_id});
  };
  for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i) push_pair(i);

  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    auto& left = symbols[static_cast<std::size_t>(top.pos)];
    if (!left.alive || left.next < 0) continue;
    auto& right = symbols[static_cast<std::size_t>(left.next)];
    // Stale entry: one side was merged into something else since it was queued.
    const auto it = merges_.find({left.id, right.id});
    if (it == merges_.end() || it->second.new_id != top.new_id) continue;
    left.id = top.new_id;
    right.alive = false;
    left.next = right.next;
    if (left.next >= 0) symbols[static_cast<std::size_t>(left.next)].prev = top.pos;
    if (left.prev >= 0) push_pair(left.prev);
    push_pair(top.pos);
  }
  for (const auto& s : symbols) {
    if (s.alive) out.push_back(s.id);
  }
}

}  // namespace ripplekv::bpe
