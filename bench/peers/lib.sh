# Helpers shared by bench/peers/*.sh (sourced, not run). The caller has cd'ed to the repo root.
# shellcheck shell=bash

PEERS_DIR=bench/peers
LLAMA_BIN_DIR=${LLAMA_BIN_DIR:-build-peers/llama.cpp/build/bin}

log() { echo "[$(basename "$0" .sh)] $*" >&2; }
die() { log "error: $*"; exit 1; }

# The pagedserve binaries: $PAGEDSERVE / $PAGEDSERVE_BENCH, else build/bin/, else build/cli/.
find_pagedserve() {
    if [[ -n "${PAGEDSERVE:-}" ]]; then :
    elif [[ -x build/bin/pagedserve ]]; then PAGEDSERVE=build/bin/pagedserve
    elif [[ -x build/cli/pagedserve ]]; then PAGEDSERVE=build/cli/pagedserve
    else die "no pagedserve binary (build/bin/pagedserve); build the project or set PAGEDSERVE"
    fi
    [[ -x "$PAGEDSERVE" ]] || die "$PAGEDSERVE is not executable"
}
find_pagedserve_bench() {
    if [[ -n "${PAGEDSERVE_BENCH:-}" ]]; then :
    elif [[ -x build/bin/pagedserve-bench ]]; then PAGEDSERVE_BENCH=build/bin/pagedserve-bench
    elif [[ -x build/loadtest/pagedserve-bench ]]; then PAGEDSERVE_BENCH=build/loadtest/pagedserve-bench
    else die "no pagedserve-bench binary (build/bin/pagedserve-bench); build the project or set PAGEDSERVE_BENCH"
    fi
}
find_llama() {  # find_llama NAME -> prints the path
    local b="$LLAMA_BIN_DIR/$1"
    [[ -x "$b" ]] || die "no $b: run bash bench/peers/setup-llama-cpp.sh (or set LLAMA_BIN_DIR)"
    echo "$b"
}

# make_weights ARGS... -> prints the weights folder (OUT/hf and OUT/model.gguf)
make_weights() {
    nice -n 19 node "$PEERS_DIR/make-weights.mjs" "$@" | tail -1
}

free_port() {
    node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close();})"
}

# wait_health URL PID SECONDS: polls URL until HTTP 200; fails when PID exits or time runs out.
wait_health() {
    local url=$1 pid=$2 limit=$3 i
    for ((i = 0; i < limit * 4; i++)); do
        if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then return 0; fi
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.25
    done
    return 1
}

# stop_pid PID: SIGTERM, then SIGKILL after 10 s.
stop_pid() {
    local pid=$1 i
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }; sleep 0.25; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# json_get FILE EXPR: evaluates the JS expression EXPR on the parsed JSON `j` of FILE.
json_get() {
    node -e "const j=JSON.parse(require('fs').readFileSync(process.argv[1],'utf8')); const v=($2); console.log(typeof v==='object'?JSON.stringify(v):v)" "$1"
}

# describe_weights: one line on the model of $HF_DIR (model_type, size, experts)
describe_weights() {
    # shellcheck disable=SC2016  # a JS template literal, not shell
    json_get "$HF_DIR/config.json" '`${j.model_type}, hidden ${j.hidden_size}, ${j.num_hidden_layers} layers` +
        (j.num_experts ? `, ${j.num_experts} experts, ${j.num_experts_per_tok} per token, expert size ${j.moe_intermediate_size}` +
            `, norm_topk_prob ${j.norm_topk_prob}` : `, intermediate ${j.intermediate_size}`)'
}

# resolve_weights: sets WEIGHTS (a make-weights.mjs folder) from $WEIGHTS, else makes (or reuses)
# the weights of the shape in $SHAPE (make-weights.mjs flags, word-split; default: the 156M Llama
# shape; "--arch qwen3_moe ...": a Qwen3-MoE shape).
resolve_weights() {
    if [[ -z "${WEIGHTS:-}" ]]; then
        local -a shape_args=()
        # shellcheck disable=SC2206  # SHAPE holds flags to split on spaces
        [[ -n "${SHAPE:-}" ]] && shape_args=(${SHAPE})
        WEIGHTS=$(make_weights "${shape_args[@]}")
    fi
    [[ -f "$WEIGHTS/hf/config.json" && -f "$WEIGHTS/model.gguf" ]] \
        || die "$WEIGHTS has no hf/config.json + model.gguf (make it with node $PEERS_DIR/make-weights.mjs)"
    # shellcheck disable=SC2034  # used by the scripts that source this file
    HF_DIR="$WEIGHTS/hf" GGUF="$WEIGHTS/model.gguf"
}
