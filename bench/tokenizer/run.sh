#!/usr/bin/env bash
# Builds and runs the tokenizer benchmark: pagedserve vs @lenml/tokenizers on Node.
# usage: bench/tokenizer/run.sh [build_dir] [tokenizer_dir] [bytes]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
if command -v npm >/dev/null && [ ! -d "$here/js/node_modules/@lenml/tokenizers" ]; then
  (cd "$here/js" && npm install --no-audit --no-fund >/dev/null) || echo "npm install failed"
fi
cmake --build "$build" --target bench_tokenizer -j2
shift || true
exec "$build/bench/tokenizer/bench_tokenizer" "$@"
