#!/usr/bin/env bash
# Builds pagedserve and serves the built-in demo model on 127.0.0.1:8000 (no download
# needed; README shows a curl request). Extra arguments go to `pagedserve serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target pagedserve
exec ./build/bin/pagedserve serve "$@"
