// A stand-in for libripplekv_spm.so whose sentencepiece answers like a library of another
// version: it loads any file and encodes every text to an id far outside the vocabulary (as
// the H200 host's own libsentencepiece.so.0 did on 2026-12-04). test_cli_errors points
// RIPPLEKV_SPM_LIB at it and expects a clear error, not a run on garbage ids.
#include <cstddef>

extern "C" {
__attribute__((visibility("default"))) void* rkv_spm_load(const char*, char*, size_t) {
  static int handle = 0;
  return &handle;
}
__attribute__((visibility("default"))) void rkv_spm_free(void*) {}
__attribute__((visibility("default"))) long rkv_spm_encode(void*, const char*, size_t, int* out, size_t cap, char*,
                                                          size_t) {
  if (cap > 0) out[0] = 1467033344;
  return 1;
}
__attribute__((visibility("default"))) long rkv_spm_decode(void*, const int*, size_t, char*, size_t, char*, size_t) {
  return 0;
}
__attribute__((visibility("default"))) int rkv_spm_vocab_size(void*) { return 512; }
__attribute__((visibility("default"))) int rkv_spm_special(void*, int which) { return which == 0 ? 1 : which == 1 ? 2 : which == 2 ? 0 : -1; }
__attribute__((visibility("default"))) int rkv_spm_piece_to_id(void*, const char*) { return 0; }
__attribute__((visibility("default"))) long rkv_spm_id_to_piece(void*, int, char*, size_t) { return 0; }
}
