// A C interface over sentencepiece, built as its own shared library (libripplekv_spm.so) and
// loaded with dlmopen into a link-map namespace of its own: Debian's libsentencepiece carries
// its own protobuf, which clashes with the protobuf symbols LibTorch exports when both are
// linked into one process. Only C types and caller-owned buffers cross this interface, because
// the namespace has its own heap. Kept torch-free, minimal and never built with sanitizers.
#include <sentencepiece_processor.h>

#include <cstring>
#include <string>
#include <vector>

namespace {
void set_error(char* err, size_t cap, const std::string& msg) {
  if (err && cap) {
    std::strncpy(err, msg.c_str(), cap - 1);
    err[cap - 1] = '\0';
  }
}
}  // namespace

extern "C" {

__attribute__((visibility("default"))) void* rkv_spm_load(const char* path, char* err, size_t cap) {
  auto* sp = new sentencepiece::SentencePieceProcessor();
  const auto status = sp->Load(path);
  if (!status.ok()) {
    set_error(err, cap, status.ToString());
    delete sp;
    return nullptr;
  }
  return sp;
}

__attribute__((visibility("default"))) void rkv_spm_free(void* h) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(h);
}

// Returns the number of ids (may exceed cap: call again with a larger buffer); -1 on error.
__attribute__((visibility("default"))) long rkv_spm_encode(void* h, const char* text, size_t len, int* out,
                                                          size_t cap, char* err, size_t err_cap) {
  std::vector<int> ids;
  const auto status = static_cast<sentencepiece::SentencePieceProcessor*>(h)->Encode(std::string(text, len), &ids);
  if (!status.ok()) {
    set_error(err, err_cap, status.ToString());
    return -1;
  }
  for (size_t i = 0; i < ids.size() && i < cap; ++i) out[i] = ids[i];
  return static_cast<long>(ids.size());
}

// Writes the decoded UTF-8 text; returns its length (may exceed cap); -1 on error.
__attribute__((visibility("default"))) long rkv_spm_decode(void* h, const int* ids, size_t n, char* out, size_t cap,
                                                          char* err, size_t err_cap) {
  std::string text;
  const auto status =
      static_cast<sentencepiece::SentencePieceProcessor*>(h)->Decode(std::vector<int>(ids, ids + n), &text);
  if (!status.ok()) {
    set_error(err, err_cap, status.ToString());
    return -1;
  }
  if (cap) std::memcpy(out, text.data(), std::min(cap, text.size()));
  return static_cast<long>(text.size());
}

__attribute__((visibility("default"))) int rkv_spm_vocab_size(void* h) {
  return static_cast<sentencepiece::SentencePieceProcessor*>(h)->GetPieceSize();
}
// which: 0 bos, 1 eos, 2 unk, 3 pad
__attribute__((visibility("default"))) int rkv_spm_special(void* h, int which) {
  auto* sp = static_cast<sentencepiece::SentencePieceProcessor*>(h);
  switch (which) {
    case 0: return sp->bos_id();
    case 1: return sp->eos_id();
    case 2: return sp->unk_id();
    default: return sp->pad_id();
  }
}
__attribute__((visibility("default"))) int rkv_spm_piece_to_id(void* h, const char* piece) {
  return static_cast<sentencepiece::SentencePieceProcessor*>(h)->PieceToId(piece);
}
// Returns the piece's length (may exceed cap); -1 when out of range.
__attribute__((visibility("default"))) long rkv_spm_id_to_piece(void* h, int id, char* out, size_t cap) {
  auto* sp = static_cast<sentencepiece::SentencePieceProcessor*>(h);
  if (id < 0 || id >= sp->GetPieceSize()) return -1;
  const auto piece = sp->IdToPiece(id);
  if (cap) std::memcpy(out, piece.data(), std::min(cap, piece.size()));
  return static_cast<long>(piece.size());
}
}
