#!/usr/bin/env bash
# Set up (idempotent), build, fetch SmolLM2-135M-Instruct (its parity tests are in the default
# run), and run the test suite. Long tests (ctest label `long`, e.g. Qwen2.5-Coder-1.5B parity,
# which needs `scripts/get_model.sh qwen2.5-coder-1.5b-instruct` first) are left out; run them
# with `ctest --test-dir build -L long`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/get_model.sh smollm2-135m-instruct >/dev/null
scripts/get_ruler_data.sh >/dev/null
ctest --test-dir "${RIPPLEKV_BUILD_DIR:-build}" -LE '^long$' --output-on-failure -j "$(nproc)" "$@"
