#!/usr/bin/env bash
# Packs what the GPU check needs into device_kit/ (git-ignored, about 10 MiB), so that a session
# lent a GPU machine (no network, a 64 MiB working tree, torch 2.11 + CUDA 13 preinstalled)
# spends none of its device time building: the ripplekv and ripplekv_bench binaries built here
# (they link LibTorch with CUDA from the .venv's torch wheel, which is the same torch 2.11+cu130
# as there; check.sh points the loader at that machine's torch), the Debian libraries they need
# beyond glibc and libstdc++, the stories260K model and tokenizer with its greedy reference, and
# a few hundred tokens of calibration text.
#   scripts/device/make_kit.sh          # then, on the GPU: scripts/device/check.sh (carry device_kit)
#
# REAL_MODEL=NAME (a scripts/get_model.sh name; SmolLM2-135M-Instruct fits) adds what
# scripts/device/real_model.sh needs to run that model there: its config and tokenizer files
# (device_kit/real/model), the digest of its weights, the gguf-py wheel that rebuilds them, the
# RULER haystack and word lists, and the float32 profile (PROFILE, default SmolLM2's
# results/NAME/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json), and splits its GGUF into
# device_gguf/part* of PART_MIB (default 47) MiB each: one part travels per call, since the
# 64 MiB a call takes cannot hold the GGUF, let alone the converted weights.
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
if [ -n "${REAL_MODEL:-}" ]; then
  MODEL=$(scripts/get_model.sh "$REAL_MODEL" | tail -1)
  PY=.venv/bin/python
  gguf=$(sed -n 's/^- GGUF: `\(.*\)`, .*/\1/p' "$MODEL/README.md")
  gguf=$(dirname "$MODEL")/downloads/$gguf
  [ -f "$gguf" ] || { echo "make_kit.sh: $gguf (the GGUF of $REAL_MODEL) is missing; delete $MODEL and rerun scripts/get_model.sh $REAL_MODEL" >&2; exit 1; }
  profile=${PROFILE:-results/$REAL_MODEL/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json}
  [ -f "$profile" ] || { echo "make_kit.sh: the profile $profile is missing; set PROFILE to the one the plan uses" >&2; exit 1; }
  R=$KIT/real
  mkdir -p "$R/model" "$R/whl" "$R/profiles" "$R/haystack"
  for f in config.json generation_config.json tokenizer.json tokenizer_config.json chat_template.jinja; do
    cp "$MODEL/$f" "$R/model/"
  done
  "$PY" scripts/device/gguf_weights.py --digest "$MODEL/model.safetensors" > "$R/weights.digest"
  (cd "$(dirname "$gguf")" && sha256sum "$(basename "$gguf")") > "$R/gguf.sha256"
  echo "$REAL_MODEL" > "$R/name.txt"
  # the gguf-py that converted the model here (scripts/setup.sh pins it), pure Python
  gguf_version=$("$PY" -c 'import importlib.metadata as m; print(m.version("gguf"))')
  "$PY" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$R/whl" "gguf==$gguf_version"
  cp "$profile" "$R/profiles/"
  cp -r "$SHARED/data/haystack/PaulGrahamEssays" "$R/haystack/"
  cp -r "$(scripts/get_ruler_data.sh | tail -1)" "$R/words"
  rm -rf device_gguf
  mkdir -p device_gguf
  split -b "$((${PART_MIB:-47} * 1024 * 1024))" -d "$gguf" device_gguf/part
  ls -la device_gguf
  # What a call would carry: the working tree that travels, the kit and one part (64 MiB at most).
  tree=$( (git ls-files -z; git ls-files -z -o --exclude-standard) | xargs -0 stat -c %s 2>/dev/null | awk '{s+=$1} END {print s+0}')
  total=$(( (tree + $(du -sb "$KIT" | cut -f1) + $(stat -c %s device_gguf/part00)) / 1048576 ))
  echo "make_kit.sh: a call carries about $total MiB (tree $((tree / 1048576)), kit, one part)"
  if [ "$total" -ge 64 ]; then
    echo "make_kit.sh: over the device tool's 64 MiB: move results/*/ (not results/gpu_h200) and tests/ out of the checkout for the calls, or lower PART_MIB" >&2
  fi
fi
du -sh "$KIT"
