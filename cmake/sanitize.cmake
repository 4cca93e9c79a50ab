# AddressSanitizer + UndefinedBehaviorSanitizer for ripplekv's own code (RIPPLEKV_SANITIZE=ON).
#
# Linked PUBLIC into ripplekv_models, so every library above it, the command-line program, the
# benchmarks and the tests are instrumented. LibTorch, OpenBLAS and the other system libraries
# are not (they are prebuilt); ASan still sees every heap block they allocate through malloc.
# Not instrumented on purpose: the sentencepiece shim (models/tokenizer/spm_shim.cpp), which
# lives in a link-map namespace of its own with its own heap and could not reach the ASan
# runtime there.
#
# -fno-sanitize=vptr: the vptr check needs RTTI of every polymorphic class it meets, and
# LibTorch's (uninstrumented, hidden-visibility) classes would make it report false positives.
# Runtime options (leak checking off, halt on the first error) are set by scripts/test.sh.
add_library(ripplekv_sanitize INTERFACE)
target_compile_options(ripplekv_sanitize INTERFACE
  -fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined
  -fno-omit-frame-pointer -g)
target_link_options(ripplekv_sanitize INTERFACE -fsanitize=address,undefined)
