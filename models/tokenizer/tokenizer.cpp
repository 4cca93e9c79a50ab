#include "models/tokenizer/tokenizer.h"

#include "models/tokenizer/bpe_tokenizer.h"

#include <limits>
#include <dlfcn.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

namespace ripplekv {

namespace fs = std::filesystem;

struct Tokenizer::Api {
  void* (*load)(const char*, char*, size_t);
  void (*free)(void*);
  long (*encode)(void*, const char*, size_t, int*, size_t, char*, size_t);
  long (*decode)(void*, const int*, size_t, char*, size_t, char*, size_t);
  int (*vocab_size)(void*);
  int (*special)(void*, int);
  int (*piece_to_id)(void*, const char*);
  long (*id_to_piece)(void*, int, char*, size_t);
};

namespace {

std::string self_dir() {
  char buf[4096];
  const auto n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  return fs::path(buf).parent_path().string();
}

const Tokenizer::Api& load_api() {
  static std::once_flag once;
  static Tokenizer::Api api{};
  static std::string error;
  std::call_once(once, [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("RIPPLEKV_SPM_LIB")) candidates.emplace_back(env);
#ifdef RIPPLEKV_SPM_LIB_PATH
    candidates.emplace_back(RIPPLEKV_SPM_LIB_PATH);
#endif
    candidates.push_back(self_dir() + "/libripplekv_spm.so");
    void* lib = nullptr;
    std::string tried;
    for (const auto& c : candidates) {
      // A namespace of its own: the shim's sentencepiece and protobuf never bind to LibTorch's
      // protobuf symbols. Unlike RTLD_DEEPBIND, this also works under AddressSanitizer. Only C
      // types and caller-owned buffers cross the boundary, so the two heaps never mix.
      lib = ::dlmopen(LM_ID_NEWLM, c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
      tried += fmt::format("\n  {}: {}", c, ::dlerror());
    }
    if (!lib) {
      error = "cannot load the sentencepiece shim libripplekv_spm.so (set RIPPLEKV_SPM_LIB to its path); tried:" + tried;
      return;
    }
    auto sym = [&](const char* name) {
      void* s = ::dlsym(lib, name);
      if (!s) error = fmt::format("libripplekv_spm.so lacks {}", name);
      return s;
    };
    api.load = reinterpret_cast<decltype(api.load)>(sym("rkv_spm_load"));
    api.free = reinterpret_cast<decltype(api.free)>(sym("rkv_spm_free"));
    api.encode = reinterpret_cast<decltype(api.encode)>(sym("rkv_spm_encode"));
    api.decode = reinterpret_cast<decltype(api.decode)>(sym("rkv_spm_decode"));
    api.vocab_size = reinterpret_cast<decltype(api.vocab_size)>(sym("rkv_spm_vocab_size"));
    api.special = reinterpret_cast<decltype(api.special)>(sym("rkv_spm_special"));
    api.piece_to_id = reinterpret_cast<decltype(api.piece_to_id)>(sym("rkv_spm_piece_to_id"));
    api.id_to_piece = reinterpret_cast<decltype(api.id_to_piece)>(sym("rkv_spm_id_to_piece"));
  });
  if (!error.empty()) throw std::runtime_error(error);
  return api;
}

// A sentencepiece model is a protobuf; a tokenizer.json is a JSON object. Only the first
// non-blank byte is looked at.
bool looks_like_json_object(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c == '{';
  }
  return false;
}

// What a sentencepiece library of another version than the shim was built against looks like
// from here: ids outside the vocabulary, or none at all (seen on a GPU host whose own
// libsentencepiece.so.0 was loaded instead of the build machine's).
std::string library_mismatch(const std::string& path, const std::string& what) {
  return fmt::format("{}: sentencepiece answered {}; the libsentencepiece.so.0 that libripplekv_spm.so loaded is "
                     "probably another version than the one it was built against: put the build machine's copy "
                     "first on LD_LIBRARY_PATH (scripts/device/make_kit.sh packs it) or rebuild here",
                     path, what);
}

}  // namespace

Tokenizer::Tokenizer(const std::string& model_path) : path_(model_path) {
  if (!fs::exists(model_path) || fs::is_directory(model_path)) {
    throw std::invalid_argument(fmt::format("{}: {} (give a sentencepiece .model file or a Hugging Face "
                                            "tokenizer.json with --tokenizer)",
                                            model_path, fs::is_directory(model_path) ? "is a folder, not a tokenizer file"
                                                                                     : "tokenizer model not found"));
  }
  if (fs::is_regular_file(model_path) && fs::file_size(model_path) == 0) {
    throw std::invalid_argument(fmt::format("{}: the tokenizer file is empty (give a sentencepiece .model file or a "
                                            "Hugging Face tokenizer.json)",
                                            model_path));
  }
  if (looks_like_json_object(model_path)) {
    bpe_ = std::make_unique<bpe::BpeTokenizer>(model_path);
    return;
  }
  api_ = &load_api();
  char err[512] = {0};
  handle_ = api_->load(model_path.c_str(), err, sizeof(err));
  if (!handle_) {
    throw std::invalid_argument(fmt::format("{}: neither a sentencepiece .model nor a Hugging Face tokenizer.json "
                                            "(sentencepiece could not read it: {})",
                                            model_path, err));
  }
  // The library's answers, checked once: garbage here would otherwise become wrong token ids.
  const int vs = vocab_size();
  if (vs <= 0) throw std::runtime_error(library_mismatch(path_, fmt::format("a vocabulary of {} pieces", vs)));
  for (const TokenId id : {bos_id(), eos_id(), unk_id()}) {
    if (id < -1 || id >= vs) {
      throw std::runtime_error(library_mismatch(path_, fmt::format("a special id {} outside [0, {})", id, vs)));
    }
  }
  if (encode("Hello world, 0123.", /*add_bos=*/false).empty()) {
    throw std::runtime_error(library_mismatch(path_, "no tokens for \"Hello world, 0123.\""));
  }
}

Tokenizer::~Tokenizer() {
  if (handle_) api_->free(handle_);
}

TokenIds Tokenizer::encode(const std::string& text, bool add_bos) const {
  if (bpe_) {
    const auto ids = bpe_->encode(text);
    TokenIds out;
    out.reserve(ids.size() + 1);
    if (add_bos && bpe_->add_bos()) out.push_back(bpe_->bos_id());
    out.insert(out.end(), ids.begin(), ids.end());
    return out;
  }
  std::vector<int> ids(text.size() + 16);
  char err[512] = {0};
  long n = api_->encode(handle_, text.data(), text.size(), ids.data(), ids.size(), err, sizeof(err));
  if (n < 0) throw std::runtime_error(fmt::format("{}: encode failed: {}", path_, err));
  if (static_cast<size_t>(n) > ids.size()) {
    ids.resize(static_cast<size_t>(n));
    n = api_->encode(handle_, text.data(), text.size(), ids.data(), ids.size(), err, sizeof(err));
  }
  ids.resize(static_cast<size_t>(n));
  const int vs = vocab_size();
  for (const int id : ids) {
    if (id < 0 || id >= vs) {
      throw std::runtime_error(library_mismatch(path_, fmt::format("the id {} outside [0, {})", id, vs)));
    }
  }
  TokenIds out;
  out.reserve(ids.size() + 1);
  if (add_bos && bos_id() >= 0) out.push_back(bos_id());
  out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

std::string Tokenizer::decode(const TokenIds& wide) const {
  const int vs = bpe_ ? std::numeric_limits<int>::max() : vocab_size();
  for (TokenId id : wide) {
    if (id < 0 || id >= vs) throw std::invalid_argument(fmt::format("decode: id {} outside the vocabulary [0, {})", id, vs));
  }
  // The sentencepiece shim and the BPE model index their vocabularies with int.
  const std::vector<int> ids(wide.begin(), wide.end());
  if (bpe_) return bpe_->decode(ids);
  std::string out(ids.size() * 8 + 16, '\0');
  char err[512] = {0};
  long n = api_->decode(handle_, ids.data(), ids.size(), out.data(), out.size(), err, sizeof(err));
  if (n < 0) throw std::runtime_error(fmt::format("{}: decode failed: {}", path_, err));
  if (static_cast<size_t>(n) > out.size()) {
    out.resize(static_cast<size_t>(n));
    n = api_->decode(handle_, ids.data(), ids.size(), out.data(), out.size(), err, sizeof(err));
  }
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string Tokenizer::id_to_piece(TokenId wide) const {
  if (wide < 0 || wide > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(fmt::format("id_to_piece: id {} outside the vocabulary", wide));
  }
  const int id = static_cast<int>(wide);
  if (bpe_) return bpe_->id_to_piece(id);
  std::string out(64, '\0');
  long n = api_->id_to_piece(handle_, id, out.data(), out.size());
  if (n < 0) throw std::invalid_argument(fmt::format("id_to_piece: id {} outside the vocabulary", id));
  if (static_cast<size_t>(n) > out.size()) {
    out.resize(static_cast<size_t>(n));
    n = api_->id_to_piece(handle_, id, out.data(), out.size());
  }
  out.resize(static_cast<size_t>(n));
  return out;
}

TokenId Tokenizer::piece_to_id(const std::string& piece) const {
  return bpe_ ? bpe_->piece_to_id(piece) : api_->piece_to_id(handle_, piece.c_str());
}
int Tokenizer::vocab_size() const { return bpe_ ? bpe_->vocab_size() : api_->vocab_size(handle_); }
TokenId Tokenizer::bos_id() const { return bpe_ ? bpe_->bos_id() : api_->special(handle_, 0); }
TokenId Tokenizer::eos_id() const { return bpe_ ? bpe_->eos_id() : api_->special(handle_, 1); }
TokenId Tokenizer::unk_id() const { return bpe_ ? bpe_->unk_id() : api_->special(handle_, 2); }
bool Tokenizer::is_special(TokenId id) const {
  if (id < 0 || id > std::numeric_limits<int>::max()) return false;
  if (bpe_) return bpe_->is_special(static_cast<int>(id));
  return id >= 0 && (id == bos_id() || id == eos_id() || id == unk_id() || id == pad_id());
}

TokenId Tokenizer::pad_id() const { return bpe_ ? bpe_->pad_id() : api_->special(handle_, 3); }

std::string find_tokenizer(const std::string& model_path, const std::string& explicit_path, int vocab_size) {
  if (!explicit_path.empty()) return explicit_path;
  const fs::path p(model_path);
  std::vector<fs::path> candidates;
  if (fs::is_directory(p)) {
    candidates.push_back(p / "tokenizer.model");
    candidates.push_back(p / "tokenizer.json");
  } else {
    candidates.push_back(p.parent_path() / "tokenizer.model");
    candidates.push_back(p.parent_path() / fmt::format("tok{}.model", vocab_size));
  }
  std::string looked;
  for (const auto& c : candidates) {
    if (fs::exists(c)) return c.string();
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw std::invalid_argument(fmt::format(
      "{}: no tokenizer found (looked for {}); pass --tokenizer PATH to a sentencepiece .model file or a "
      "Hugging Face tokenizer.json", model_path, looked));
}

}  // namespace ripplekv
