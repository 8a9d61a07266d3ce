#!/usr/bin/env bash
# Greedy agreement: pagedserve serve (HF folder) and llama-server (GGUF of the same weights)
# decode the same prompt ids greedily; the token ids must be identical. This is what proves
# that make-weights.mjs wrote the same model twice (names, Q/K permutation, eps, rope theta).
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bash bench/peers/check-greedy.sh [--weights DIR | --shape "MAKE-WEIGHTS FLAGS"]
                                        [--prompt-ids 1,2,3] [--max-tokens 16] [--threads 2]
                                        [--llama-args "EXTRA LLAMA-SERVER FLAGS"] [--logprob-tol 0.01]

  --weights DIR      a folder made by make-weights.mjs (DIR/hf, DIR/model.gguf)
  --shape FLAGS      make (or reuse) weights with these make-weights.mjs flags instead
                     (neither: the default 156M Llama shape; "--arch qwen3_moe": the 489M
                     Qwen3-MoE shape, 32 experts, 4 per token)
  --prompt-ids IDS   comma-separated prompt (default: BOS + 31 fixed pseudo-random ids)
  --max-tokens N     greedy tokens to compare (default 16)
  --threads N        threads of both servers (default 2)
  --llama-args S     extra llama-server flags (default "-ctk f32 -ctv f32 -fa off": fp32 KV as
                     pagedserve, and no flash attention: llama.cpp's CPU flash attention moves
                     logprobs by ~1e-3, enough to break a MoE router near-tie; without it the
                     engines agree to ~1e-5)
  --logprob-tol X    largest |difference| of a top-5 logprob that still agrees (default 0.01)
Agreement: the same token ids, and every top-5 logprob both list within 1e-2 (random weights
often repeat one token, which a wrong conversion still picks; its logprobs then move by ~1e-1).
When they disagree, node bench/peers/reference-forward.mjs --weights DIR --check-json
build-peers/logs/check-greedy.json says which side matches a float64 reference.
Exit 0 when they agree, 1 when they do not. Logs: build-peers/logs/check-greedy-*.log
Env: PAGEDSERVE (binary), LLAMA_BIN_DIR (llama.cpp bin folder).
EOF
}

cd "$(dirname "$0")/../.."
# shellcheck source=bench/peers/lib.sh
source bench/peers/lib.sh

WEIGHTS=${WEIGHTS:-}; SHAPE=${SHAPE:-}
PROMPT_IDS=""; MAX_TOKENS=16; THREADS=2; LLAMA_ARGS="-ctk f32 -ctv f32 -fa off"; LOGPROB_TOL=0.01
while [[ $# -gt 0 ]]; do
    case "$1" in
        --weights) WEIGHTS="$2"; shift 2 ;;
        --shape) SHAPE="$2"; shift 2 ;;
        --prompt-ids) PROMPT_IDS="$2"; shift 2 ;;
        --max-tokens) MAX_TOKENS="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --llama-args) LLAMA_ARGS="$2"; shift 2 ;;
        --logprob-tol) LOGPROB_TOL="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

find_pagedserve
LLAMA_SERVER=$(find_llama llama-server)
resolve_weights
log "weights: $WEIGHTS ($(describe_weights))"
if [[ -z "$PROMPT_IDS" ]]; then
    PROMPT_IDS=$(node -e "let s=12345,a=[1];for(let i=0;i<31;i++){s=(Math.imul(s,1103515245)+12345)>>>0;a.push(259+(s>>>8)%31000)}console.log(a.join(','))")
fi

LOG_DIR=build-peers/logs
mkdir -p "$LOG_DIR"
PS_PID=""; LL_PID=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    [[ -n "$PS_PID" ]] && stop_pid "$PS_PID"
    [[ -n "$LL_PID" ]] && stop_pid "$LL_PID"
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PS_PORT=$(free_port)
log "pagedserve serve --model $HF_DIR on 127.0.0.1:$PS_PORT"
OMP_NUM_THREADS=$THREADS "$PAGEDSERVE" serve --model "$HF_DIR" --host 127.0.0.1 --port "$PS_PORT" \
    --max-num-seqs 4 --max-model-len 2048 > "$LOG_DIR/check-greedy-pagedserve.log" 2>&1 &
PS_PID=$!
LL_PORT=$(free_port)
log "llama-server -m $GGUF on 127.0.0.1:$LL_PORT ($LLAMA_ARGS)"
# shellcheck disable=SC2086  # LLAMA_ARGS holds flags
"$LLAMA_SERVER" -m "$GGUF" --host 127.0.0.1 --port "$LL_PORT" -t "$THREADS" -tb "$THREADS" \
    -np 1 -c 2048 --no-warmup $LLAMA_ARGS > "$LOG_DIR/check-greedy-llama-server.log" 2>&1 &
LL_PID=$!

wait_health "http://127.0.0.1:$PS_PORT/health" "$PS_PID" 300 \
    || { tail -20 "$LOG_DIR/check-greedy-pagedserve.log" >&2; die "pagedserve did not start"; }
wait_health "http://127.0.0.1:$LL_PORT/health" "$LL_PID" 300 \
    || { tail -20 "$LOG_DIR/check-greedy-llama-server.log" >&2; die "llama-server did not start"; }

rc=0
node --experimental-websocket --no-warnings "$PEERS_DIR/greedy-client.mjs" \
    --pagedserve "http://127.0.0.1:$PS_PORT" --llama "http://127.0.0.1:$LL_PORT" \
    --prompt-ids "$PROMPT_IDS" --max-tokens "$MAX_TOKENS" --logprob-tol "$LOGPROB_TOL" --json-out "$LOG_DIR/check-greedy.json" || rc=$?
exit "$rc"
