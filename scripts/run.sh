#!/usr/bin/env bash
# Builds pagedserve and runs it on the built-in demo model (no download needed).
# Extra arguments go to `pagedserve generate`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target pagedserve
exec ./build/bin/pagedserve generate --prompt-ids 1,2,3,4 --max-tokens 16 "$@"
