#!/usr/bin/env bash
# Installs what ripplekv's build and fixture scripts need on a fresh Debian machine, then
# configures and builds. Idempotent: fast when everything is already present.
#
#   scripts/setup.sh            # Debian packages, .venv with pinned torch (its LibTorch), build/
#   RIPPLEKV_TORCH_ROOT=/opt/libtorch scripts/setup.sh   # use a preinstalled LibTorch, no venv torch
#   CMAKE_PREFIX_PATH=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)') scripts/setup.sh
#                              # use the torch of an existing Python (e.g. a GPU host without network)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${RIPPLEKV_BUILD_DIR:-$ROOT/build}

# Pinned versions (torch's bundled LibTorch is what we build against).
TORCH_VERSION=2.11.0
PY_PACKAGES=(
  "torch==${TORCH_VERSION}"
  "transformers==5.24.0"
  "safetensors==0.8.0"
  "sentencepiece==0.2.3"
  "numpy==2.4.6"
  # official LongBench metric packages (scripts/make_metric_fixtures.py)
  "rouge==1.0.1"
  "six==1.17.0"
  "fuzzywuzzy==0.18.0"
  "python-Levenshtein==0.27.5"
  "Levenshtein==0.27.5"
  "rapidfuzz==3.14.6"
  # plots (scripts/plot_*.py)
  "matplotlib==3.11.2"
  "Jinja2==3.1.6"   # scripts/make_prompt_fixtures.py (HF chat templates)
  # real models from GGUF (scripts/get_model.sh, scripts/gguf_to_hf.py) and their fixtures
  "gguf==0.19.0"
  "accelerate==1.15.0"
  "tokenizers==0.23.3"   # the version transformers 5.24.0 resolves to; pinned for the parity fixtures
  # RULER reference generator (scripts/make_ruler_fixtures.py)
  "wonderwords==3.0.1"
  "nltk==3.10.4"
  "tenacity==9.2.1"
  "PyYAML==6.0.4"
  "scipy==1.17.1"   # RULER's freq_words_extraction.py (scipy.special.zeta)
  "tqdm==4.70.1"
  "pandas==3.1.1"   # RULER's eval/evaluate.py (scoring fixture)
)

log() { echo "[setup] $*" >&2; }

# --- Debian packages ------------------------------------------------------------------
DEB_PACKAGES=(build-essential cmake pkg-config libsentencepiece-dev libboost-program-options-dev catch2
              libfmt-dev nlohmann-json3-dev libpcre2-dev libutf8proc-dev python3-venv ccache
              time)  # /usr/bin/time: the confirmatory runs' peak memory (scripts/results/confirm_run.sh)
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Python virtual environment with the pinned torch ----------------------------------
CMAKE_ARGS=()
if [ -n "${RIPPLEKV_TORCH_ROOT:-}" ]; then
  CMAKE_ARGS+=("-DRIPPLEKV_TORCH_ROOT=${RIPPLEKV_TORCH_ROOT}")
elif [ -n "${CMAKE_PREFIX_PATH:-}" ]; then
  CMAKE_ARGS+=("-DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH}")
else
  PY=python3
  if [ ! -x .venv/bin/python ]; then
    log "creating .venv"
    $PY -m venv .venv
  fi
  stamp=.venv/.ripplekv-packages
  want=$(printf '%s\n' "${PY_PACKAGES[@]}")
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    log "installing Python packages into .venv: ${PY_PACKAGES[*]}"
    .venv/bin/pip install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
    echo "$want" > "$stamp"
  fi
  CMAKE_ARGS+=("-DRIPPLEKV_PYTHON=$ROOT/.venv/bin/python")
fi

# --- Configure and build ---------------------------------------------------------------
JOBS=${RIPPLEKV_JOBS:-$(nproc)}
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  log "configuring $BUILD_DIR"
  # RIPPLEKV_CMAKE_ARGS: extra configure options (scripts/test.sh --sanitize sets one).
  # shellcheck disable=SC2086
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${CMAKE_ARGS[@]}" ${RIPPLEKV_CMAKE_ARGS:-} >/dev/null
fi
log "building ($JOBS jobs)"
cmake --build "$BUILD_DIR" -j "$JOBS"
