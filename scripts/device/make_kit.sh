#!/usr/bin/env bash
# Packs what the GPU check needs into device_kit/ (git-ignored, about 10 MiB), so that a session
# lent a GPU machine (no network, a 64 MiB working tree, torch 2.11 + CUDA 13 preinstalled)
# spends none of its device time building: the ripplekv and ripplekv_bench binaries built here
# (they link LibTorch with CUDA from the .venv's torch wheel, which is the same torch 2.11+cu130
# as there; check.sh points the loader at that machine's torch), the Debian libraries they need
# beyond glibc and libstdc++, the stories260K model and tokenizer with its greedy reference, and
# a few hundred tokens of calibration text.
#   scripts/device/make_kit.sh          # then, on the GPU: scripts/device/check.sh (carry device_kit)
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=${SHARED:-../shared}
KIT=device_kit
for b in ripplekv ripplekv_bench; do
  if [ ! -x "build/$b" ]; then
    echo "make_kit.sh: build/$b is missing; build it first (scripts/setup.sh)" >&2
    exit 1
  fi
done
if [ ! -f "$SHARED/data/stories260K/stories260K.bin" ]; then
  echo "make_kit.sh: $SHARED/data/stories260K/stories260K.bin is missing; set SHARED to the folder holding data/" >&2
  exit 1
fi
rm -rf "$KIT"
mkdir -p "$KIT/lib" "$KIT/stories260K"
cp build/ripplekv build/ripplekv_bench "$KIT/"
# The sentencepiece shim is loaded at run time (dlopen), so ldd does not list it; check.sh
# points RIPPLEKV_SPM_LIB at this copy.
cp build/libripplekv_spm.so "$KIT/"
# Shared libraries outside LibTorch, glibc and the compiler's runtime (Boost.Program_options,
# PCRE2, utf8proc, and the shim's sentencepiece on Debian 12): the GPU machine's system may lack
# them or hold other versions. (Its own libsentencepiece.so.0, another version, loaded silently
# and returned garbage token ids on the 2026-12-04 H200 run: every tokenised prompt failed.)
ldd build/ripplekv build/ripplekv_bench build/libripplekv_spm.so | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -v -e site-packages -e '/libc\.so' -e '/libm\.so' -e '/libdl\.so' -e '/libpthread\.so' -e '/librt\.so' \
    -e '/libutil\.so' -e '/libgcc_s\.so' -e '/libstdc++\.so' -e '/ld-linux' |
  while read -r lib; do cp -L "$lib" "$KIT/lib/"; done
cp "$SHARED"/data/stories260K/{stories260K.bin,tok512.model,greedy_reference.json} "$KIT/stories260K/"
# Calibration and fidelity text: the first essays of the needle haystack, as blank-line blocks.
find "$SHARED/data/haystack/PaulGrahamEssays" -name '*.txt' | sort | head -3 | xargs cat |
  tr -s '\n' | awk 'NF {print; if (++n % 24 == 0) print ""}' > "$KIT/texts.txt"
git rev-parse HEAD > "$KIT/commit.txt"
du -sh "$KIT"
