#!/usr/bin/env bash
# What each weight format and KV cache dtype costs and buys on one model, on this CPU: for the
# source checkpoint and every `pagedserve quantize` method (each with --kv-cache-dtype auto
# and fp8_e4m3): weight bytes on the backend, KV bytes per token, the most sequences of
# max_model_len a fixed KV budget holds, output tok/s of `pagedserve bench offline`, and
# `pagedserve eval` against the source (mean KL, top-1 agreement, perplexity) on a workload.
# Writes OUT/table.md, OUT/summary.jsonl and, with gnuplot, OUT/formats.png.
set -euo pipefail

usage() {
    cat <<'EOF2'
usage: bash bench/quant/compare-formats.sh [--model DIR] [--workload FILE] [--out DIR]
           [--group-size 64] [--kv-budget-gib 1] [--max-model-len 512] [--threads 2]
           [--bench-requests 8] [--bench-prompt-len 64] [--bench-output-len 64] [--speed-only]
           [--dummy]
  --model DIR      a 16/32-bit HF folder (default: the shipped models/pagedserve-demo)
  --workload FILE  eval lines (default for the demo model: its held-out paragraphs, made by
                   scripts/prepare-demo-corpus.sh and corpus/heldout-workload.mjs)
  --speed-only     no eval (random weights: a KL or a perplexity would mean nothing)
  --dummy          DIR holds only config.json (e.g. config/models/llama-3.2-1b.json): seeded
                   random weights, quantized by `pagedserve quantize --dummy-weights`; speed only
EOF2
}

cd "$(dirname "$0")/../.."
MODEL=models/pagedserve-demo; WORKLOAD=""; OUT=""; GROUP=64; BUDGET_GIB=1; MAX_LEN=512; THREADS=2
REQUESTS=8; PROMPT_LEN=64; OUTPUT_LEN=64; SPEED_ONLY=0; DUMMY=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --model) MODEL="$2"; shift 2 ;;
        --workload) WORKLOAD="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --group-size) GROUP="$2"; shift 2 ;;
        --kv-budget-gib) BUDGET_GIB="$2"; shift 2 ;;
        --max-model-len) MAX_LEN="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --bench-requests) REQUESTS="$2"; shift 2 ;;
        --bench-prompt-len) PROMPT_LEN="$2"; shift 2 ;;
        --bench-output-len) OUTPUT_LEN="$2"; shift 2 ;;
        --speed-only) SPEED_ONLY=1; shift ;;
        --dummy) DUMMY=1; SPEED_ONLY=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
log() { echo "[compare-formats] $*" >&2; }
die() { log "error: $*"; exit 1; }
PAGEDSERVE=${PAGEDSERVE:-build/bin/pagedserve}
[[ -x $PAGEDSERVE ]] || die "no $PAGEDSERVE: build the project first"
OUT=${OUT:-build-quant/$(basename "$MODEL")-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/raw" "$OUT/models"

if [[ $SPEED_ONLY == 0 && -z $WORKLOAD ]]; then
    [[ $MODEL == models/pagedserve-demo ]] || die "--workload FILE (or --speed-only) for $MODEL"
    WORKLOAD=build-corpus/heldout-workload.jsonl
    if [[ ! -f $WORKLOAD ]]; then
        bash scripts/prepare-demo-corpus.sh >&2
        node corpus/heldout-workload.mjs build-corpus/text/heldout.txt > "$WORKLOAD"
    fi
fi
VOCAB=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$MODEL/config.json')).vocab_size)")
node -e "
let s = 7; const lines = [];
for (let r = 0; r < $REQUESTS; r++) {
  const ids = [];
  for (let i = 0; i < $PROMPT_LEN; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; ids.push(s % $VOCAB); }
  lines.push(JSON.stringify({ prompt_token_ids: ids, max_tokens: $OUTPUT_LEN }));
}
require('fs').writeFileSync('$OUT/bench.jsonl', lines.join('\n') + '\n');"

# name, then `pagedserve quantize` flags ("" = the source itself)
FORMATS=(
    "source|"
    "fp8 weight-only|--method fp8-weight-only"
    "fp8 dynamic|--method fp8-dynamic"
    "fp8 block|--method fp8-block"
    "awq w4 g$GROUP|--method awq --group-size $GROUP"
    "gptq w4 g$GROUP|--method gptq --group-size $GROUP --sym"
)

: > "$OUT/summary.jsonl"
measure() {  # measure NAME DIR KV
    local name=$1 dir=$2 kv=$3 tag load=auto
    tag=$(echo "$name-$kv" | tr ' ' '_')
    [[ $DUMMY == 1 && $dir == "$MODEL" ]] && load=dummy
    OMP_NUM_THREADS=$THREADS "$PAGEDSERVE" bench offline --model "$dir" --load-format "$load" --workload "$OUT/bench.jsonl" \
        --max-num-seqs "$REQUESTS" --max-model-len "$MAX_LEN" --kv-cache-dtype "$kv" --json \
        > "$OUT/raw/$tag.bench.json" 2> "$OUT/raw/$tag.bench.log" || die "bench offline failed: $OUT/raw/$tag.bench.log"
    local eval_json=null
    if [[ $SPEED_ONLY == 0 ]]; then
        OMP_NUM_THREADS=$THREADS "$PAGEDSERVE" eval --model "$dir" --kv-cache-dtype "$kv" --reference "$MODEL" \
            --workload "$WORKLOAD" --json > "$OUT/raw/$tag.eval.json" 2> "$OUT/raw/$tag.eval.log" \
            || die "eval failed: $OUT/raw/$tag.eval.log"
        eval_json=$(cat "$OUT/raw/$tag.eval.json")
    fi
    node -e "
const fs = require('fs');
const log = fs.readFileSync('$OUT/raw/$tag.bench.log', 'utf8');
const w = /weights: ([\d.]+) MiB/.exec(log), kv = /(\d+) blocks of (\d+) tokens, (\d+) bytes each/.exec(log);
const bench = JSON.parse(fs.readFileSync('$OUT/raw/$tag.bench.json', 'utf8'));
const kv_per_token = Number(kv[3]) / Number(kv[2]);
console.log(JSON.stringify({ format: '$name', kv_cache_dtype: '$kv', weight_mib: Number(w[1]),
  kv_bytes_per_token: kv_per_token, max_concurrency: ($BUDGET_GIB * 2 ** 30) / (kv_per_token * $MAX_LEN),
  output_tokens_per_s: bench.engine.output_tokens_per_s, eval: $eval_json }));" >> "$OUT/summary.jsonl"
    log "$name, kv $kv: $(tail -1 "$OUT/summary.jsonl")"
}

for entry in "${FORMATS[@]}"; do
    name=${entry%%|*}; flags=${entry#*|}
    dir=$MODEL
    if [[ -n $flags ]]; then
        dir="$OUT/models/$(echo "$name" | tr ' ' '_')"
        # shellcheck disable=SC2086  # flags are words
        dummy_flag=(); [[ $DUMMY == 1 ]] && dummy_flag=(--dummy-weights)
        "$PAGEDSERVE" quantize --model "$MODEL" --out "$dir" $flags "${dummy_flag[@]}" > "$OUT/raw/quantize.log" 2>&1 \
            || die "pagedserve quantize $flags failed: $OUT/raw/quantize.log"
    fi
    for kv in auto fp8_e4m3; do measure "$name" "$dir" "$kv"; done
done
node bench/quant/format-table.mjs "$OUT" "$BUDGET_GIB" "$MAX_LEN"
log "table: $OUT/table.md"
