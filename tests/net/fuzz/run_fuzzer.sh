#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS from the committed seeds, in a fresh temporary corpus
# (the seeds folder is only read), and prints libFuzzer's final figures. A crash, a leak, a
# sanitizer report or a hang (a single input over 10 s) fails the test; the input that did it
# is kept and its path printed.
#   run_fuzzer.sh BINARY SEEDS_DIR SECONDS
set -euo pipefail
binary=$1 seeds=$2 seconds=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/pagedserve-fuzz.XXXXXX")
mkdir -p "$work/corpus" "$work/artifacts"
status=0
"$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" || status=$?
if [ "$status" -ne 0 ]; then
  echo "run_fuzzer: $binary failed ($status); inputs kept in $work/artifacts:" >&2
  ls -l "$work/artifacts" >&2
  exit "$status"
fi
rm -rf "$work"
