#!/usr/bin/env bash
# Data parallel replicas on this machine (docs/scaling.md), measured in one run:
#  1. routing: the shared-prefix workload (--groups groups of --per-group requests sharing a
#     --prefix-len prefix) against `serve --replicas local x4`, once with least_load and once
#     with prefix_aware: prefix-cache hit rate (from the server's /metrics), mean and median
#     TTFT, output tok/s, and the ratios prefix_aware / least_load. Each replica's KV cache
#     has --num-blocks blocks of 16 tokens (default 192: the running requests plus about
#     two groups' prefixes), the case cache-aware routing is for: spread over every
#     replica, all groups compete for every replica's cache; kept apart, each replica holds
#     its own groups'.
#  2. throughput: random requests against one engine, against `--replicas local,local`
#     (least_load), and, as what this machine allows two engines, against two single-engine
#     servers at once (half the requests each, summed); OMP_NUM_THREADS=1 so each engine gets
#     one core. Output tok/s and the ratios two replicas / one engine and two replicas / two
#     servers (the router's efficiency: 1.0 is all the machine gives).
# Fresh servers per point (no point inherits another's cache). Timings on a shared machine
# are noisy; the ratios are the figures. Env: PAGEDSERVE, PAGEDSERVE_BENCH.
#   bash bench/replicas/compare-routing.sh [--groups 8] [--per-group 16] [--prefix-len 512]
#        [--suffix-len 64] [--output-len 32] [--num-blocks 192] [--concurrency 16]
#        [--num-prompts 128]
set -euo pipefail
cd "$(dirname "$0")/../.."

NUM_GROUPS=8; PER_GROUP=16; PREFIX_LEN=512; SUFFIX_LEN=64; OUTPUT_LEN=32; NUM_BLOCKS=192
CONCURRENCY=16; NUM_PROMPTS=128
while [[ $# -gt 0 ]]; do
    case "$1" in
        --groups) NUM_GROUPS="$2"; shift 2 ;;
        --per-group) PER_GROUP="$2"; shift 2 ;;
        --prefix-len) PREFIX_LEN="$2"; shift 2 ;;
        --suffix-len) SUFFIX_LEN="$2"; shift 2 ;;
        --output-len) OUTPUT_LEN="$2"; shift 2 ;;
        --num-blocks) NUM_BLOCKS="$2"; shift 2 ;;
        --concurrency) CONCURRENCY="$2"; shift 2 ;;
        --num-prompts) NUM_PROMPTS="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
PAGEDSERVE=${PAGEDSERVE:-build/bin/pagedserve}
PAGEDSERVE_BENCH=${PAGEDSERVE_BENCH:-build/bin/pagedserve-bench}
[[ -x "$PAGEDSERVE" && -x "$PAGEDSERVE_BENCH" ]] || { echo "build pagedserve and pagedserve-bench first" >&2; exit 2; }
WORK=$(mktemp -d); SERVER_PID=""
cleanup() { [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close();})"; }

# start_server NAME FLAGS...: a fresh `pagedserve serve` on a free port; sets PORT.
start_server() {
    local name=$1; shift
    PORT=$(free_port)
    "$PAGEDSERVE" serve --model demo-random --max-model-len 2048 --port "$PORT" "$@" \
        > "$WORK/$name.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$PORT/health" > /dev/null && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/$name.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "server $name did not start" >&2; exit 1
}
stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }
metric() {  # metric NAME: the unlabelled-family sum from /metrics
    curl -s "http://127.0.0.1:$PORT/metrics" | awk -v n="pagedserve:$1" '$1 ~ "^"n"[{ ]" {s += $2} END {print s+0}'
}
bench() {  # bench NAME ARGS...: pagedserve-bench --json into $WORK/NAME.json
    local name=$1; shift
    "$PAGEDSERVE_BENCH" --port "$PORT" --no-progress --json --temperature 0 --ignore-eos \
        --token-id-range 16:500 --request-rate inf --max-concurrency "$CONCURRENCY" "$@" \
        > "$WORK/$name.json"
}
field() { node -e "const j=require('$WORK/$1.json'); console.log(j.$2)"; }

echo "== routing over 4 local replicas of $NUM_BLOCKS KV blocks: shared-prefix, $NUM_GROUPS groups x $PER_GROUP, prefix $PREFIX_LEN + suffix $SUFFIX_LEN, output $OUTPUT_LEN, concurrency $CONCURRENCY =="
printf '%-14s %10s %14s %14s %12s\n' routing "hit rate" "mean TTFT ms" "med TTFT ms" "out tok/s"
declare -A HIT TTFT TPUT
for routing in least_load prefix_aware; do
    start_server "$routing" --replicas local,local,local,local --routing "$routing" \
        --num-blocks "$NUM_BLOCKS"
    bench "$routing" --dataset-name shared-prefix --shared-prefix-groups "$NUM_GROUPS" \
        --shared-prefix-requests-per-group "$PER_GROUP" --shared-prefix-len "$PREFIX_LEN" \
        --shared-prefix-suffix-len "$SUFFIX_LEN" --shared-prefix-output-len "$OUTPUT_LEN"
    hits=$(metric prefix_cache_hits_total); queries=$(metric prefix_cache_queries_total)
    stop_server
    HIT[$routing]=$(node -e "console.log(($hits / Math.max($queries, 1)).toFixed(3))")
    TTFT[$routing]=$(field "$routing" mean_ttft_ms)
    TPUT[$routing]=$(field "$routing" output_throughput)
    printf '%-14s %10s %14.1f %14.1f %12.1f\n' "$routing" "${HIT[$routing]}" "${TTFT[$routing]}" \
        "$(field "$routing" median_ttft_ms)" "${TPUT[$routing]}"
done
node -e "console.log('prefix_aware / least_load: hit rate x' + (${HIT[prefix_aware]} / ${HIT[least_load]}).toFixed(2) + ', mean TTFT x' + (${TTFT[prefix_aware]} / ${TTFT[least_load]}).toFixed(2) + ', out tok/s x' + (${TPUT[prefix_aware]} / ${TPUT[least_load]}).toFixed(2))"

echo "== throughput: random $NUM_PROMPTS x (128 in, 64 out), OMP_NUM_THREADS=1 =="
export OMP_NUM_THREADS=1
random_load=(--dataset-name random --random-input-len 128 --random-output-len 64)
start_server one
bench one "${random_load[@]}" --num-prompts "$NUM_PROMPTS"
stop_server
start_server two --replicas local,local --routing least_load
bench two "${random_load[@]}" --num-prompts "$NUM_PROMPTS"
stop_server
# Two independent single-engine servers loaded at once: what two engines get from this machine.
start_server pair_a; PID_A=$SERVER_PID; PORT_A=$PORT
start_server pair_b; PID_B=$SERVER_PID; PORT_B=$PORT
PORT=$PORT_A bench pair_a "${random_load[@]}" --num-prompts $((NUM_PROMPTS / 2)) &
BENCH_A=$!
PORT=$PORT_B bench pair_b "${random_load[@]}" --num-prompts $((NUM_PROMPTS / 2)) --seed 1
wait "$BENCH_A"
kill "$PID_A" "$PID_B"; wait "$PID_A" "$PID_B" 2>/dev/null || true; SERVER_PID=""
one=$(field one output_throughput); two=$(field two output_throughput)
pair=$(node -e "console.log($(field pair_a output_throughput) + $(field pair_b output_throughput))")
printf '%-34s %10s\n' setup "out tok/s"
printf '%-34s %10.1f\n' "one engine" "$one" "2 replicas behind one server" "$two" \
    "2 single-engine servers at once" "$pair"
node -e "console.log('2 replicas / one engine: x' + ($two / $one).toFixed(2) + '; 2 replicas / 2 servers: x' + ($two / $pair).toFixed(2))"
