#!/usr/bin/env bash
# The load-test sweeps shown in the README and docs/load-testing.md: pagedserve-bench against
# `pagedserve serve` on the random demo model (demo-random: 4 layers of 256, vocabulary 512;
# the figures predate the trained default), on this machine's CPU. Two sweeps of the same
# workload (random prompts of 128 tokens, 64 output tokens each, EOS ignored):
#   over request rates, one server (docs/images/bench-demo/rates/), and
#   over max_num_seqs, a fresh server per value, all requests at once (.../max-num-seqs/).
# Each folder gets sweep.png, ttft.png, itl.png, result.json and table.txt. Usage:
#   bash scripts/bench-demo-sweep.sh [output folder]     (PAGEDSERVE_BUILD_DIR: default build)
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-docs/images/bench-demo}
build=${PAGEDSERVE_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target pagedserve pagedserve-bench

# config/default.yaml with model: demo-random.
server_config=$(mktemp --suffix=.yaml)
trap 'rm -f "$server_config"' EXIT
sed 's/^model: ""/model: demo-random/' config/default.yaml > "$server_config"

workload=(--num-prompts 96 --random-input-len 128 --random-output-len 64
          --token-id-range 16:272 --ignore-eos --num-warmups 8 --no-progress)
title="pagedserve demo-random model, CPU ($(nproc) cores), 96 requests of 128 in / 64 out"

# sweep NAME ARGS...: plots, JSON and the table into $out/NAME (the plots' data and gnuplot
# scripts stay in a temporary folder: the ITL data alone is most of a megabyte).
sweep() {
  local name=$1
  shift
  local work
  work=$(mktemp -d)
  mkdir -p "$out/$name"
  "$build/bin/pagedserve-bench" --server-config "$server_config" "${workload[@]}" "$@" \
    --plot-dir "$work" --plot-title "$title" --save-result "$out/$name/result.json" \
    | tee "$out/$name/table.txt"
  cp "$work"/*.png "$out/$name/"
  rm -rf "$work"
}

sweep rates --sweep-request-rates 2,4,8,12,16,24,inf
sweep max-num-seqs --sweep-server-key max_num_seqs --sweep-values 4,16,64,256
