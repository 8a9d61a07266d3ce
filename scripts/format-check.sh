#!/usr/bin/env bash
# Fails when a tracked C++/CUDA file differs from what clang-format (.clang-format) makes of it.
# `scripts/format-check.sh --fix` rewrites the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh')
((${#files[@]})) || exit 0
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
else
  clang-format --dry-run -Werror "${files[@]}"
  echo "format-check: ${#files[@]} files clean"
fi
