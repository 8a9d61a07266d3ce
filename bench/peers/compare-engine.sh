#!/usr/bin/env bash
# Engine-level comparison of pagedserve and llama.cpp on the same weights (make-weights.mjs),
# interleaved: every round runs each figure on pagedserve, then on llama.cpp; the table holds
# the medians over the rounds and the ratio pagedserve / llama.cpp.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bash bench/peers/compare-engine.sh [--weights DIR | --shape "MAKE-WEIGHTS FLAGS"] [--rounds 3]
           [--threads 2] [--prefill-len 512] [--decode-len 128] [--batch-sizes 8,16]
           [--batch-prompt-len 128] [--batch-output-len 128] [--llama-kv f32] [--llama-reps 1]
           [--llama-args "EXTRA FLAGS"] [--only prefill,decode,batch] [--out DIR]

  --weights DIR        a folder made by make-weights.mjs; --shape FLAGS makes (or reuses) one
                       with those flags (neither: the default 156M Llama shape; the Qwen3-MoE
                       shape: --shape "--arch qwen3_moe", 489M parameters, 137M active)
  --rounds N           interleaved rounds; the table shows medians (default 3)
  --threads N          llama.cpp -t/-tb N, pagedserve OMP_NUM_THREADS=N (default 2)
  --llama-kv TYPE      llama.cpp KV cache type, -ctk/-ctv (default f16, llama.cpp's default;
                       llama-bench takes no f32 KV, so pagedserve's fp32 KV cannot be matched)
  --llama-reps N       llama-bench -r N per round (default 1; llama-bench warms up first)
  --llama-args S       extra flags for llama-bench and llama-batched-bench (e.g. "--poll 0")
  --only LIST          run only these figures (prefill, decode, batch)
  --out DIR            results folder (default build-peers/results/engine-<time>)

Figures (tokens/s; pagedserve: `pagedserve bench offline --json`, one process per run):
  prefill   pagedserve: 1 request, PREFILL_LEN prompt ids, max_tokens 1: PREFILL_LEN / wall_s
            (wall_s: first submit to final, so it holds the one forward over the prompt plus
            scheduling, sampling and the final); llama.cpp: llama-bench -p PREFILL_LEN (pp t/s)
  decode    pagedserve: 1 request, a 1-token prompt, max_tokens DECODE_LEN: DECODE_LEN / wall_s
            (DECODE_LEN forwards of one token, as llama-bench's tg); llama.cpp: llama-bench -n
  batch B   B requests of BATCH_PROMPT_LEN random ids + max_tokens BATCH_OUTPUT_LEN, all at once:
            output tokens / wall (prefill included) = bench offline's output_tokens_per_s;
            llama.cpp: llama-batched-bench -npp P -ntg T -npl B: B*T / T_total (T_PP + T_TG).
            Also printed, llama.cpp only: S_TG (decode-only tok/s) and S_PP.
Env: PAGEDSERVE, LLAMA_BIN_DIR. Timings on a shared machine are noisy: read the ratios.
EOF
}

cd "$(dirname "$0")/../.."
# shellcheck source=bench/peers/lib.sh
source bench/peers/lib.sh

WEIGHTS=${WEIGHTS:-}; SHAPE=${SHAPE:-}
ROUNDS=3; THREADS=2; PREFILL_LEN=512; DECODE_LEN=128; BATCH_SIZES=8,16
BATCH_PROMPT_LEN=128; BATCH_OUTPUT_LEN=128; LLAMA_KV=f16; LLAMA_REPS=1; ONLY=prefill,decode,batch
LLAMA_ARGS=""
OUT=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --weights) WEIGHTS="$2"; shift 2 ;;
        --shape) SHAPE="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --prefill-len) PREFILL_LEN="$2"; shift 2 ;;
        --decode-len) DECODE_LEN="$2"; shift 2 ;;
        --batch-sizes) BATCH_SIZES="$2"; shift 2 ;;
        --batch-prompt-len) BATCH_PROMPT_LEN="$2"; shift 2 ;;
        --batch-output-len) BATCH_OUTPUT_LEN="$2"; shift 2 ;;
        --llama-kv) LLAMA_KV="$2"; shift 2 ;;
        --llama-reps) LLAMA_REPS="$2"; shift 2 ;;
        --llama-args) LLAMA_ARGS="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ $LLAMA_KV != f32 ]] || die "--llama-kv f32: llama-bench has no f32 KV cache (f16, bf16, q8_0, ...)"
# shellcheck disable=SC2206  # LLAMA_ARGS holds flags
LLAMA_EXTRA=($LLAMA_ARGS)
want() { [[ ",$ONLY," == *",$1,"* ]]; }

find_pagedserve
LLAMA_BENCH=$(find_llama llama-bench)
LLAMA_BATCHED=$(find_llama llama-batched-bench)
resolve_weights
OUT=${OUT:-build-peers/results/engine-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/raw"
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
cp "$HF_DIR/config.json" "$OUT/config.json"  # the shape the figures are of
VOCAB=$(json_get "$HF_DIR/config.json" 'j.vocab_size')
IFS=, read -r -a BATCHES <<< "$BATCH_SIZES"

# workload FILE N PROMPT_LEN MAX_TOKENS SEED: N requests of random ids in [259, VOCAB)
workload() {
    node "$PEERS_DIR/report.mjs" workload "$1" "$2" "$3" "$4" "$5" "$VOCAB"
}
workload "$OUT/prefill.jsonl" 1 "$PREFILL_LEN" 1 1
workload "$OUT/decode.jsonl" 1 1 "$DECODE_LEN" 2
for b in "${BATCHES[@]}"; do workload "$OUT/batch$b.jsonl" "$b" "$BATCH_PROMPT_LEN" "$BATCH_OUTPUT_LEN" $((100 + b)); done

record() {  # record FIGURE ENGINE ROUND VALUE [UNIT]
    echo "{\"figure\":\"$1\",\"engine\":\"$2\",\"round\":$3,\"value\":$4}" >> "$RESULTS"
    log "  round $3  $1  $2: $4"
}

# pagedserve bench offline on a workload; prints the path of its JSON
ps_bench() {  # ps_bench NAME ROUND MAX_NUM_SEQS
    local f="$OUT/raw/pagedserve-$1-r$2.json"
    OMP_NUM_THREADS=$THREADS "$PAGEDSERVE" bench offline --model "$HF_DIR" --workload "$OUT/$1.jsonl" \
        --max-num-seqs "$3" --json > "$f" 2> "${f%.json}.log" \
        || { tail -20 "${f%.json}.log" >&2; die "pagedserve bench offline failed ($1)"; }
    echo "$f"
}
ll_bench() {  # ll_bench NAME ROUND ARGS...: llama-bench -o jsonl; prints the path of its output
    local name=$1 round=$2; shift 2
    local f="$OUT/raw/llama-bench-$name-r$round.jsonl"
    "$LLAMA_BENCH" -m "$GGUF" -t "$THREADS" -r "$LLAMA_REPS" -ctk "$LLAMA_KV" -ctv "$LLAMA_KV" -o jsonl "${LLAMA_EXTRA[@]}" "$@" \
        > "$f" 2> "${f%.jsonl}.log" || { tail -20 "${f%.jsonl}.log" >&2; die "llama-bench failed ($name)"; }
    echo "$f"
}

log "weights: $WEIGHTS ($(describe_weights)); $ROUNDS round(s); $THREADS threads; llama.cpp KV $LLAMA_KV; results in $OUT"
for ((r = 1; r <= ROUNDS; r++)); do
    if want prefill; then
        f=$(ps_bench prefill "$r" 1)
        record "prefill $PREFILL_LEN tok/s" pagedserve "$r" "$(json_get "$f" "$PREFILL_LEN / j.engine.wall_s")"
        f=$(ll_bench "pp$PREFILL_LEN" "$r" -p "$PREFILL_LEN" -n 0)
        record "prefill $PREFILL_LEN tok/s" llama.cpp "$r" "$(node "$PEERS_DIR/report.mjs" avg-ts "$f")"
    fi
    if want decode; then
        f=$(ps_bench decode "$r" 1)
        record "decode b1 $DECODE_LEN tok/s" pagedserve "$r" "$(json_get "$f" "$DECODE_LEN / j.engine.wall_s")"
        f=$(ll_bench "tg$DECODE_LEN" "$r" -p 0 -n "$DECODE_LEN")
        record "decode b1 $DECODE_LEN tok/s" llama.cpp "$r" "$(node "$PEERS_DIR/report.mjs" avg-ts "$f")"
    fi
    if want batch; then
        for b in "${BATCHES[@]}"; do
            fig="batch $b x ($BATCH_PROMPT_LEN+$BATCH_OUTPUT_LEN) out tok/s"
            f=$(ps_bench "batch$b" "$r" "$b")
            record "$fig" pagedserve "$r" "$(json_get "$f" 'j.engine.output_tokens_per_s')"
            g="$OUT/raw/llama-batched-bench-b$b-r$r.jsonl"
            ctx=$((b * (BATCH_PROMPT_LEN + BATCH_OUTPUT_LEN)))
            "$LLAMA_BATCHED" -m "$GGUF" -t "$THREADS" -tb "$THREADS" -c "$ctx" -b 2048 -ub 512 \
                -ctk "$LLAMA_KV" -ctv "$LLAMA_KV" -npp "$BATCH_PROMPT_LEN" -ntg "$BATCH_OUTPUT_LEN" -npl "$b" \
                --output-format jsonl "${LLAMA_EXTRA[@]}" > "$g.out" 2> "${g%.jsonl}.log" \
                || { tail -20 "${g%.jsonl}.log" >&2; die "llama-batched-bench failed (B=$b)"; }
            grep -h '^{"n_kv_max"' "$g.out" "${g%.jsonl}.log" | head -1 > "$g" || true
            [[ -s "$g" ]] || die "no result line from llama-batched-bench (B=$b); see ${g%.jsonl}.log"
            record "$fig" llama.cpp "$r" "$(json_get "$g" 'j.pl * j.tg / j.t')"
            record "  llama.cpp S_TG (decode only) B=$b" llama.cpp "$r" "$(json_get "$g" 'j.speed_tg')"
            record "  llama.cpp S_PP (prefill) B=$b" llama.cpp "$r" "$(json_get "$g" 'j.speed_pp')"
        done
    fi
done

# the table: medians over rounds, ratio pagedserve / llama.cpp
node "$PEERS_DIR/report.mjs" engine "$RESULTS" "$ROUNDS" "$OUT"
log "table: $OUT/table.md; every run: $RESULTS and $OUT/raw/"
