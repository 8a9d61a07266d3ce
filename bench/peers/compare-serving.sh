#!/usr/bin/env bash
# Serving comparison: llama-server and pagedserve serve on the same weights, both up at once
# (loopback, free ports, stopped on exit), loaded by pagedserve-bench one server at a time,
# interleaved per request rate (pagedserve, then llama-server, at each rate). Per rate: output
# tok/s, mean TTFT, mean TPOT, median and mean ITL (a server that sends tokens in bursts has a
# tiny median ITL but a mean ITL near its TPOT).
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bash bench/peers/compare-serving.sh [--weights DIR | --shape "MAKE-WEIGHTS FLAGS"]
           [--rates 1,2,4,inf] [--num-prompts 48] [--input-len 128] [--output-len 64]
           [--max-num-seqs 16] [--threads 2] [--num-warmups 2] [--llama-kv f32]
           [--llama-args "EXTRA FLAGS"] [--plot-dir DIR] [--out DIR]

  --weights DIR      a folder made by make-weights.mjs; --shape FLAGS makes (or reuses) one
                     with those flags (neither: the default 156M Llama shape; "--arch qwen3_moe":
                     the 489M Qwen3-MoE shape)
  --rates LIST       request rates, req/s or inf (default 1,2,4,inf)
  --num-prompts N    measured requests per rate and server (default 48); random prompts of
                     --input-len ids in [259, vocab), --output-len tokens, streamed, greedy
                     (temperature 0), ignore_eos; rate i uses seed 1000+i for both servers
                     (same prompts on both; new prompts per rate, so no prefix-cache reuse)
  --max-num-seqs N   pagedserve --max-num-seqs N and llama-server -np N (default 16)
  --threads N        llama-server -t/-tb N; pagedserve OMP_NUM_THREADS=N (default 2)
  --num-warmups N    pagedserve-bench --num-warmups per run (default 2)
  --llama-kv TYPE    llama-server -ctk/-ctv (default f16, llama.cpp's default as in
                     compare-engine.sh; f32 matches pagedserve's KV cache)
  --llama-args S     extra llama-server flags (e.g. "--poll 0")
  --plot-dir DIR     also draw DIR/serving.png (gnuplot): TTFT and ITL against output tok/s
  --out DIR          results folder (default build-peers/results/serving-<time>)
Env: PAGEDSERVE, PAGEDSERVE_BENCH, LLAMA_BIN_DIR. Timings on a shared machine are noisy.
EOF
}

cd "$(dirname "$0")/../.."
# shellcheck source=bench/peers/lib.sh
source bench/peers/lib.sh

WEIGHTS=${WEIGHTS:-}; SHAPE=${SHAPE:-}
RATES=1,2,4,inf; NUM_PROMPTS=48; INPUT_LEN=128; OUTPUT_LEN=64; MAX_NUM_SEQS=16; THREADS=2
NUM_WARMUPS=2; LLAMA_KV=f16; LLAMA_ARGS=""; PLOT_DIR=""; OUT=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --weights) WEIGHTS="$2"; shift 2 ;;
        --shape) SHAPE="$2"; shift 2 ;;
        --rates) RATES="$2"; shift 2 ;;
        --num-prompts) NUM_PROMPTS="$2"; shift 2 ;;
        --input-len) INPUT_LEN="$2"; shift 2 ;;
        --output-len) OUTPUT_LEN="$2"; shift 2 ;;
        --max-num-seqs) MAX_NUM_SEQS="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --num-warmups) NUM_WARMUPS="$2"; shift 2 ;;
        --llama-kv) LLAMA_KV="$2"; shift 2 ;;
        --llama-args) LLAMA_ARGS="$2"; shift 2 ;;
        --plot-dir) PLOT_DIR="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

find_pagedserve
find_pagedserve_bench
LLAMA_SERVER=$(find_llama llama-server)
resolve_weights
OUT=${OUT:-build-peers/results/serving-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/raw"
VOCAB=$(json_get "$HF_DIR/config.json" 'j.vocab_size')
SEQ_LEN=$((INPUT_LEN + OUTPUT_LEN + 64))   # per-sequence room, with slack
CTX=$((MAX_NUM_SEQS * SEQ_LEN))

PS_PID=""; LL_PID=""; BENCH_PID=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    [[ -n "$BENCH_PID" ]] && stop_pid "$BENCH_PID"
    [[ -n "$PS_PID" ]] && stop_pid "$PS_PID"
    [[ -n "$LL_PID" ]] && stop_pid "$LL_PID"
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2206  # LLAMA_ARGS holds flags
LLAMA_EXTRA=($LLAMA_ARGS)
PS_PORT=$(free_port)
log "pagedserve serve --model $HF_DIR --max-num-seqs $MAX_NUM_SEQS on 127.0.0.1:$PS_PORT"
OMP_NUM_THREADS=$THREADS "$PAGEDSERVE" serve --model "$HF_DIR" --host 127.0.0.1 --port "$PS_PORT" \
    --max-num-seqs "$MAX_NUM_SEQS" --max-model-len "$SEQ_LEN" > "$OUT/pagedserve-serve.log" 2>&1 &
PS_PID=$!
wait_health "http://127.0.0.1:$PS_PORT/health" "$PS_PID" 300 \
    || { tail -20 "$OUT/pagedserve-serve.log" >&2; die "pagedserve did not start"; }
LL_PORT=$(free_port)
log "llama-server -m $GGUF -np $MAX_NUM_SEQS -c $CTX -t $THREADS -ctk/-ctv $LLAMA_KV on 127.0.0.1:$LL_PORT"
"$LLAMA_SERVER" -m "$GGUF" --host 127.0.0.1 --port "$LL_PORT" -np "$MAX_NUM_SEQS" -c "$CTX" \
    -t "$THREADS" -tb "$THREADS" -ctk "$LLAMA_KV" -ctv "$LLAMA_KV" "${LLAMA_EXTRA[@]}" > "$OUT/llama-server.log" 2>&1 &
LL_PID=$!
wait_health "http://127.0.0.1:$LL_PORT/health" "$LL_PID" 300 \
    || { tail -20 "$OUT/llama-server.log" >&2; die "llama-server did not start"; }

IFS=, read -r -a RATE_LIST <<< "$RATES"
i=0
for rate in "${RATE_LIST[@]}"; do
    seed=$((1000 + i)); i=$((i + 1))
    for engine in pagedserve llama-server; do
        if [[ $engine == pagedserve ]]; then port=$PS_PORT; else port=$LL_PORT; fi
        f="$OUT/raw/$engine-rate-$rate.json"
        log "rate $rate: $engine ($NUM_PROMPTS requests, $INPUT_LEN in / $OUTPUT_LEN out)"
        rc=0
        "$PAGEDSERVE_BENCH" --base-url "http://127.0.0.1:$port" --num-prompts "$NUM_PROMPTS" \
            --random-input-len "$INPUT_LEN" --random-output-len "$OUTPUT_LEN" \
            --token-id-range "259:$VOCAB" --ignore-eos --temperature 0 --request-rate "$rate" \
            --seed "$seed" --num-warmups "$NUM_WARMUPS" --no-progress --json > "$f" 2> "${f%.json}.log" &
        BENCH_PID=$!   # in the background, so that a SIGTERM runs the trap at once
        wait "$BENCH_PID" || rc=$?
        BENCH_PID=""
        if [[ $rc -eq 3 ]]; then
            log "  warning: some requests failed on $engine at rate $rate (see $f)"
        elif [[ $rc -ne 0 ]]; then
            tail -5 "${f%.json}.log" >&2; die "pagedserve-bench failed against $engine (exit $rc)"
        fi
    done
done

node "$PEERS_DIR/report.mjs" serving "$OUT" "$RATES" "$PLOT_DIR"
if [[ -n "$PLOT_DIR" ]]; then
    if command -v gnuplot > /dev/null; then
        gnuplot "$PLOT_DIR/serving.gp" && log "plot: $PLOT_DIR/serving.png"
    else
        log "gnuplot not found: data and script left in $PLOT_DIR"
    fi
fi
log "tables: $OUT/table.md; raw pagedserve-bench JSON: $OUT/raw/"
