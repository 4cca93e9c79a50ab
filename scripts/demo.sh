#!/usr/bin/env bash
# Set up (idempotent), build, and run the main job on the embedded default: the pretrained
# stories260K model from ../shared/data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
DATA=${RIPPLEKV_SHARED_DATA:-$(cd .. && pwd)/shared/data}
exec "${RIPPLEKV_BUILD_DIR:-build}"/ripplekv generate --model "$DATA/stories260K/stories260K.bin" \
  --max-new-tokens 256 "$@"
