#!/usr/bin/env bash
# Quantized decode on the CPU against our fp32 and against llama.cpp's quantized types, on
# the same weights (make-weights.mjs), interleaved: every round runs each figure on every
# configuration. Ours: `pagedserve quantize` folders (GPTQ int4 and compressed-tensors FP8,
# both with the lm_head quantized as llama.cpp quantizes its output tensor; AWQ int4 with an
# fp32 lm_head, as AutoAWQ writes it); llama.cpp: llama-quantize's Q4_0 and Q8_0 of the f32
# GGUF. Ours also runs GPTQ int4 with int8 activations (gptq-int4-a8: cpu_activation_dtype
# int8, llama.cpp's own numerics). Prints medians and the ratios the quantization work is
# judged by. The weights may be any make-weights.mjs folder, the Qwen3-MoE shape included
# (`pagedserve quantize` quantizes every expert and keeps the routers dense; llama-quantize
# quantizes the stacked ffn_*_exps tensors); --ours / --theirs pick configurations.
set -euo pipefail

usage() {
    cat <<'EOF2'
usage: bash bench/peers/compare-quantized.sh [--weights DIR | --shape "MAKE-WEIGHTS FLAGS"]
           [--rounds 2] [--threads 2] [--decode-len 128] [--batch-sizes 16]
           [--batch-prompt-len 128] [--batch-output-len 128] [--ours LIST] [--theirs LIST]
           [--out DIR]

  --weights DIR   a folder made by make-weights.mjs (llama or --arch qwen3_moe); --shape FLAGS
                  makes (or reuses) one with those flags (neither: the default 156M Llama shape)
  --ours LIST     pagedserve configurations (default fp32,gptq-int4,gptq-int4-a8,awq-int4,fp8)
  --theirs LIST   llama.cpp types (default f32,q4_0,q8_0)
                  int4 against Q4_0 only: --ours fp32,gptq-int4,gptq-int4-a8 --theirs f32,q4_0
Needs: bench/peers/setup-llama-cpp.sh run once (llama-bench, llama-batched-bench,
llama-quantize), the project built in build/. Figures as compare-engine.sh defines them
(decode b1: DECODE_LEN forwards of one token; batch B: output tok/s with prefill).
Quantized copies are made once per weights folder: WEIGHTS/quantized/<config>/ (ours) and
WEIGHTS/model-<type>.gguf (llama-quantize).
EOF2
}

cd "$(dirname "$0")/../.."
# shellcheck source=bench/peers/lib.sh
source bench/peers/lib.sh

WEIGHTS=${WEIGHTS:-}; SHAPE=${SHAPE:-}
ROUNDS=2; THREADS=2; DECODE_LEN=128; BATCH_SIZES=16; BATCH_PROMPT_LEN=128; BATCH_OUTPUT_LEN=128
OURS_LIST=fp32,gptq-int4,gptq-int4-a8,awq-int4,fp8; THEIRS_LIST=f32,q4_0,q8_0
OUT=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --weights) WEIGHTS="$2"; shift 2 ;;
        --shape) SHAPE="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --decode-len) DECODE_LEN="$2"; shift 2 ;;
        --batch-sizes) BATCH_SIZES="$2"; shift 2 ;;
        --batch-prompt-len) BATCH_PROMPT_LEN="$2"; shift 2 ;;
        --batch-output-len) BATCH_OUTPUT_LEN="$2"; shift 2 ;;
        --ours) OURS_LIST="$2"; shift 2 ;;
        --theirs) THEIRS_LIST="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

find_pagedserve
LLAMA_BENCH=$(find_llama llama-bench)
LLAMA_BATCHED=$(find_llama llama-batched-bench)
LLAMA_QUANTIZE=$(find_llama llama-quantize)
resolve_weights
OUT=${OUT:-build-peers/results/quantized-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/raw"
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
cp "$HF_DIR/config.json" "$OUT/config.json"  # the shape the figures are of
VOCAB=$(json_get "$HF_DIR/config.json" 'j.vocab_size')
IFS=, read -r -a BATCHES <<< "$BATCH_SIZES"

# The quantized copies, made once per weights folder (they depend on nothing else).
QDIR="$WEIGHTS/quantized"
make_ours() {  # make_ours NAME QUANTIZE-FLAGS...
    local dir="$QDIR/$1"; shift
    [[ -f "$dir/config.json" ]] && return 0
    nice -n 19 "$PAGEDSERVE" quantize --model "$HF_DIR" --out "$dir" "$@" >&2 \
        || die "pagedserve quantize $* failed"
}
make_gguf() {  # make_gguf TYPE
    local f="$WEIGHTS/model-$1.gguf"
    [[ -f "$f" ]] && return 0
    nice -n 19 "$LLAMA_QUANTIZE" "$GGUF" "$f" "$1" > "$OUT/raw/llama-quantize-$1.log" 2>&1 \
        || die "llama-quantize $1 failed; see $OUT/raw/llama-quantize-$1.log"
}
declare -A OURS=([fp32]="$HF_DIR" [gptq-int4]="$QDIR/gptq-int4" [gptq-int4-a8]="$QDIR/gptq-int4"
                 [awq-int4]="$QDIR/awq-int4" [fp8]="$QDIR/fp8")
# gptq-int4-a8: the same folder with int8 activations (cpu_activation_dtype int8: llama.cpp's
# Q4_0 x Q8_0 numerics where the processor has AVX512-VNNI).
declare -A OURS_FLAGS=([gptq-int4-a8]="--cpu-activation-dtype int8")
declare -A THEIRS=([f32]="$GGUF" [q4_0]="$WEIGHTS/model-q4_0.gguf" [q8_0]="$WEIGHTS/model-q8_0.gguf")
IFS=, read -r -a CONFIGS <<< "$OURS_LIST"
IFS=, read -r -a TYPES <<< "$THEIRS_LIST"
for c in "${CONFIGS[@]}"; do [[ -n "${OURS[$c]:-}" ]] || die "--ours: unknown configuration '$c' (${!OURS[*]})"; done
for t in "${TYPES[@]}"; do [[ -n "${THEIRS[$t]:-}" ]] || die "--theirs: unknown type '$t' (${!THEIRS[*]})"; done
uses() {  # uses NAME LIST...: is NAME in LIST
    local x n=$1; shift
    for x in "$@"; do [[ $x == "$n" ]] && return 0; done
    return 1
}
if uses gptq-int4 "${CONFIGS[@]}" || uses gptq-int4-a8 "${CONFIGS[@]}"; then
    make_ours gptq-int4 --method gptq --bits 4 --group-size 128 --sym --lm-head
fi
if uses awq-int4 "${CONFIGS[@]}"; then make_ours awq-int4 --method awq --group-size 128; fi
if uses fp8 "${CONFIGS[@]}"; then make_ours fp8 --method fp8-dynamic --lm-head; fi
for t in "${TYPES[@]}"; do [[ $t == f32 ]] || make_gguf "$t"; done

workload() { node "$PEERS_DIR/report.mjs" workload "$1" "$2" "$3" "$4" "$5" "$VOCAB"; }
workload "$OUT/decode.jsonl" 1 1 "$DECODE_LEN" 2
for b in "${BATCHES[@]}"; do workload "$OUT/batch$b.jsonl" "$b" "$BATCH_PROMPT_LEN" "$BATCH_OUTPUT_LEN" $((100 + b)); done

record() {  # record FIGURE CONFIG ROUND VALUE
    echo "{\"figure\":\"$1\",\"engine\":\"$2\",\"round\":$3,\"value\":$4}" >> "$RESULTS"
    log "  round $3  $1  $2: $4"
}
ours() {  # ours CONFIG WORKLOAD ROUND MAX_NUM_SEQS -> JSON path
    local f="$OUT/raw/pagedserve-$1-$2-r$3.json"
    # shellcheck disable=SC2086  # the flags are words
    OMP_NUM_THREADS=$THREADS "$PAGEDSERVE" bench offline --model "${OURS[$1]}" --workload "$OUT/$2.jsonl" \
        --max-num-seqs "$4" ${OURS_FLAGS[$1]:-} --json > "$f" 2> "${f%.json}.log" \
        || { tail -20 "${f%.json}.log" >&2; die "pagedserve bench offline failed ($1 $2)"; }
    echo "$f"
}
theirs_decode() {  # theirs_decode TYPE ROUND -> tok/s
    local f="$OUT/raw/llama-bench-$1-r$2.jsonl"
    "$LLAMA_BENCH" -m "${THEIRS[$1]}" -t "$THREADS" -r 1 -o jsonl -p 0 -n "$DECODE_LEN" > "$f" 2> "${f%.jsonl}.log" \
        || { tail -20 "${f%.jsonl}.log" >&2; die "llama-bench failed ($1)"; }
    node "$PEERS_DIR/report.mjs" avg-ts "$f"
}
theirs_batch() {  # theirs_batch TYPE B ROUND -> output tok/s (prefill included)
    local g="$OUT/raw/llama-batched-bench-$1-b$2-r$3.jsonl"
    "$LLAMA_BATCHED" -m "${THEIRS[$1]}" -t "$THREADS" -tb "$THREADS" -c $(($2 * (BATCH_PROMPT_LEN + BATCH_OUTPUT_LEN))) \
        -b 2048 -ub 512 -npp "$BATCH_PROMPT_LEN" -ntg "$BATCH_OUTPUT_LEN" -npl "$2" --output-format jsonl \
        > "$g.out" 2> "${g%.jsonl}.log" || { tail -20 "${g%.jsonl}.log" >&2; die "llama-batched-bench failed ($1)"; }
    grep -h '^{"n_kv_max"' "$g.out" "${g%.jsonl}.log" | head -1 > "$g" || true
    [[ -s "$g" ]] || die "no result line from llama-batched-bench ($1 B=$2)"
    json_get "$g" 'j.pl * j.tg / j.t'
}

log "weights: $WEIGHTS ($(describe_weights)); $ROUNDS round(s); $THREADS threads; results in $OUT"
for ((r = 1; r <= ROUNDS; r++)); do
    for c in "${CONFIGS[@]}"; do
        record "decode b1" "pagedserve $c" "$r" "$(json_get "$(ours "$c" decode "$r" 1)" "$DECODE_LEN / j.engine.wall_s")"
    done
    for t in "${TYPES[@]}"; do record "decode b1" "llama.cpp $t" "$r" "$(theirs_decode "$t" "$r")"; done
    for b in "${BATCHES[@]}"; do
        for c in "${CONFIGS[@]}"; do
            record "batch $b" "pagedserve $c" "$r" "$(json_get "$(ours "$c" "batch$b" "$r" "$b")" 'j.engine.output_tokens_per_s')"
        done
        for t in "${TYPES[@]}"; do record "batch $b" "llama.cpp $t" "$r" "$(theirs_batch "$t" "$b" "$r")"; done
    done
done
node "$PEERS_DIR/report.mjs" quantized "$RESULTS" "$ROUNDS" "$OUT"
log "table: $OUT/table.md; every run: $RESULTS and $OUT/raw/"
