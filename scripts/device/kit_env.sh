# Sourced by the device scripts (check.sh, batched_step.sh, real_model.sh) from the repository root: the kit's
# defaults (KIT, DEVICE, PY, OUT from the caller's default) and its loader settings. Stops the
# caller with exit 2 and a fix where the kit or a torch to load is missing.
#   source scripts/device/kit_env.sh NAME BINARY...   # NAME: the caller, for its messages
kit_name=$1
shift
KIT=${KIT:-device_kit}
DEVICE=${DEVICE:-cuda}
PY=${PY:-python3}
mkdir -p "$OUT"
for kit_binary in "$@" libripplekv_spm.so; do
  if [ ! -e "$KIT/$kit_binary" ]; then
    echo "$kit_name: $KIT/$kit_binary is missing; run scripts/device/make_kit.sh here and carry $KIT" >&2
    exit 2
  fi
done
TORCH_LIB=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))') || {
  echo "$kit_name: $PY cannot import torch; set PY to a python with torch 2.11" >&2
  exit 2
}
export LD_LIBRARY_PATH="$KIT/lib:$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The kit's own sentencepiece shim, also in a trial here (where build/ holds another copy).
export RIPPLEKV_SPM_LIB="$PWD/$KIT/libripplekv_spm.so"
