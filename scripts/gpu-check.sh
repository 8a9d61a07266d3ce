#!/usr/bin/env bash
# Runs the GPU checks on the GPU machine, from the repository root, on the bundle that
# scripts/gpu-bundle.sh made (carried as build-gpu/bundle.tar.xz, unpacked here), in one call:
#   1. nvidia-smi
#   2. the test binaries of the bundle but test_engine_cuda: the CUDA kernels against the CPU
#      reference (test_cuda_ops), the forward against the HF goldens in fp32 and bf16, decode
#      graphs and KV pool sizing (test_forward_cuda), the device query (test_cuda_device)
#   3. the benchmarks: bench_cuda_kernels (attention bandwidth, prefill TFLOP/s, sampling,
#      cuBLAS GEMMs) and bench_cuda_decode (a Llama-3.2-1B-shaped decode step at batch 1, 64
#      and 256 against its memory floor), bench_cuda_gemm (the bf16 GEMMs of Llama-3.2-1B and
#      Llama-3-8B at M = 1, 16, 64, 256, 4096 against the roofline: the quantized GEMMs' baseline)
#      and bench_cuda_qgemm (the same shapes through each quantized route: W4A16 and FP8
#      W8A16 mixed-input GEMMs, int4 dequantize + cuBLAS, FP8 W8A8; ratios over bf16)
#   4. test_engine_cuda: the actor engine driving the CUDA backend
#   4b. speculative: `pagedserve bench offline` of the demo model with and without
#      --speculative-config, same run (bench/speculative/compare.sh's workloads, carried in
#      the bundle): repeat b1 with ngram, held-out b1 with the demo's draft model, repeat x16
#      with ngram; output tok/s ratios on over off and the acceptance rates (SPEC_TIMEOUT=60
#      each run)
#   5. `pagedserve bench offline` on nano-256 (dummy bf16 weights) for each shape of
#      OFFLINE_SHAPES, most important first: llama-3.2-1b (against the physical ceiling and
#      HF transformers measured on this card, docs/design/peer-figures.md), qwen3-0.6b, llama-3-8b; then
#      OFFLINE_FP8_KV_SHAPES again with an fp8 e4m3 KV cache
#   6. quantized: `pagedserve quantize --dummy-weights` writes QUANT_SHAPE in each of
#      QUANT_METHODS, and bench offline runs each with every QUANT_KV cache; a last table gives
#      their tok/s over the bf16 run of step 5 (the CUDA backend computes with the codes:
#      kernels/cuda/quantized_linear.h)
#   7. quant-eval: the demo model (trained weights) quantized by `pagedserve quantize` in each
#      of QUANT_EVAL_METHODS with --dequantized-out, and `pagedserve eval` of each on the
#      device against its dequantized twin, both in bf16 (the quantized GEMMs against cuBLAS on
#      the same values): mean KL, top-1 agreement, max |logit diff|
#   8. moe: the mixture-of-experts kernel tests alone (test_cuda_ops' cuda_moe* suites: moe_route,
#      fused_moe over dense and int4/int8/fp8 stacks against the CPU, determinism, graph replay;
#      step 2 runs them too, among the rest), bench_cuda_moe (fused_moe of one Qwen3-30B-A3B
#      sparse layer at M = 1, 16, 64, 256 in bf16, int4 and fp8 against its active experts'
#      bytes floor), then `pagedserve bench offline` of MOE_SHAPE (dummy bf16 weights: 61 GB for
#      qwen3-30b-a3b) on nano-256 with prompts and max_tokens scaled by MOE_LENGTH_SCALE (0.25:
#      36k prompt and 33k output tokens over the same 256 requests), sized for ~2 minutes with
#      the grouped GEMMs on SIMT FMAs. Last of the default steps: a full run leaves it little of
#      the budget; run it alone with GPU_CHECK_PARTS=moe (~3 minutes at most).
# Full logs go to build-gpu/bundle/logs, packed at the end into $OUT/gpu-check-logs.tar.gz when
# $OUT is set (the device tool returns at most 8 files); a short table comes last. Exit
# status 0 only if every test passed, none was skipped and every benchmark ran.
#
# Time: the whole script keeps within GPU_CHECK_BUDGET seconds (default 560, under the
# device tool's 600 s a call; a whole run took 130 s on the H200 before step 6, which adds
# about 4 minutes). Each step runs under `timeout`, at most its own limit and at most what is
# left of the budget; steps 2 and 3 also leave E2E_RESERVE seconds (default 300) for steps 4
# to 6, so one hung test cannot starve the end-to-end runs. A step with
# under 20 s left is skipped and counts as a failure.
#   STEP_TIMEOUT=120     each test binary and benchmark of steps 2 and 3
#   ENGINE_TIMEOUT=120   test_engine_cuda
#   OFFLINE_TIMEOUT=150  each bench offline run
#   GPU_CHECK_PARTS="tests benchmarks engine speculative offline quantized quant-eval moe"
#                        the steps (a rerun may pick)
#   QUANT_EVAL_METHODS="awq gptq-act-order gptq-int8 fp8-dynamic fp8-block"  step 7
#   QUANT_SHAPE=llama-3.2-1b  QUANT_METHODS="fp8-dynamic fp8-block awq gptq"
#   QUANT_KV="auto fp8_e4m3"  QUANT_TIMEOUT=120   step 6
#   OFFLINE_SHAPES="llama-3.2-1b qwen3-0.6b llama-3-8b"  config/models/<shape>.json each
#   OFFLINE_FP8_KV_SHAPES="llama-3.2-1b llama-3-8b"     again with kv_cache_dtype fp8_e4m3
#   OFFLINE_ARGS=""      more bench offline flags (e.g. --enforce-eager)
#   OFFLINE_BACKEND=cuda OFFLINE_DTYPE=bfloat16   (cpu/float32: a dry run of steps 5-6 here)
#   BENCH_RUNS=100       the kernel timings
#   MOE_SHAPE=qwen3-30b-a3b  MOE_LENGTH_SCALE=0.25  MOE_OFFLINE_TIMEOUT=150   step 8
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

bundle=${GPU_BUNDLE:-build-gpu/bundle}
if [[ ! -d "$bundle/bin" && -f "$bundle.tar.xz" ]]; then
  tar -C "$(dirname "$bundle")" -xJf "$bundle.tar.xz" || { echo "gpu-check: cannot unpack $bundle.tar.xz" >&2; exit 2; }
fi
logs=$bundle/logs
rm -rf "$logs"
mkdir -p "$logs"
# Packed on any exit, a timeout's too, so that what ran comes back.
pack_logs() { [[ -n "${OUT:-}" ]] && tar -C "$logs" -czf "$OUT/gpu-check-logs.tar.gz" . ; }
trap pack_logs EXIT
[[ -d "$bundle/bin" ]] || { echo "gpu-check: no bundle in $bundle (run scripts/gpu-bundle.sh)" >&2; exit 2; }
export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PAGEDSERVE_TESTDATA_DIR="$bundle/fixtures"
budget=${GPU_CHECK_BUDGET:-560}
e2e_reserve=${E2E_RESERVE:-300}
parts=" ${GPU_CHECK_PARTS:-tests benchmarks engine speculative offline quantized quant-eval moe} "

summary=()
failed=0

wants() { [[ $parts == *" $1 "* ]]; }

# Seconds a step may run: its own limit, within what is left of the budget less `reserve`;
# empty (skip the step) when under 20 s would be left.
step_limit() {
  local want=$1 reserve=${2:-0}
  local left=$((budget - SECONDS - reserve))
  ((left < want)) && want=$left
  ((want >= 20)) && echo "$want"
}

# gtest's closing lines give the counts: "[  PASSED  ] N tests", "[  SKIPPED ] N tests", ...
count() { grep -Eo "^\[  $1 *\] [0-9]+ test" "$2" | tail -n 1 | grep -Eo '[0-9]+' || echo 0; }

# test binary | its limit | seconds to leave for later steps | a gtest filter (default: all) |
# its name in the summary and the log's (default: the binary's)
run_test() {
  local test=$1 want=$2 reserve=$3 filter=${4:-} name=${5:-$(basename "$1")} limit
  if ! limit=$(step_limit "$want" "$reserve"); then
    summary+=("$(printf '%-24s %-8s no time left in the %s s budget' "$name" SKIPPED "$budget")")
    failed=1
    return
  fi
  timeout -k 10 "$limit" "$test" --gtest_color=no ${filter:+"--gtest_filter=$filter"} \
    > "$logs/$name.log" 2>&1
  local rc=$?
  local passed skipped failures verdict=ok
  passed=$(count PASSED "$logs/$name.log")
  skipped=$(count SKIPPED "$logs/$name.log")
  failures=$(count FAILED "$logs/$name.log")
  if [[ $rc -ne 0 || $failures -ne 0 ]]; then verdict=FAILED; failed=1; fi
  if [[ $rc -eq 0 && $skipped -ne 0 ]]; then verdict=SKIPPED; failed=1; fi
  [[ $rc -eq 124 || $rc -eq 137 ]] && verdict="TIMEOUT(${limit}s)"
  summary+=("$(printf '%-24s %-8s rc=%-3s passed=%-4s failed=%-4s skipped=%s' "$name" "$verdict" "$rc" "$passed" "$failures" "$skipped")")
  echo "== $name: $verdict (log $logs/$name.log)"
  grep -E '^\[  FAILED  \]|Failure|check failed|CUDA call failed' "$logs/$name.log" | head -n 20
}

# bench name | arguments | lines of its table to keep in the summary | seconds to leave for
# later steps (default E2E_RESERVE)
run_bench() {
  local name=$1 args=$2 keep=$3 reserve=${4:-$e2e_reserve} limit
  [[ -x "$bundle/bin/$name" ]] || return 0
  if ! limit=$(step_limit "${STEP_TIMEOUT:-120}" "$reserve"); then
    summary+=("$(printf '%-24s SKIPPED no time left' "$name")")
    failed=1
    return
  fi
  # shellcheck disable=SC2086
  timeout -k 10 "$limit" "$bundle/bin/$name" $args > "$logs/$name.log" 2>&1
  local rc=$?
  [[ $rc -eq 0 ]] || failed=1
  summary+=("$(printf '%-24s rc=%s' "$name" "$rc")")
  while IFS= read -r line; do summary+=("  $line"); done < <(grep -E "$keep" "$logs/$name.log")
}

# One line of the offline table from the JSON of a bench offline run (stdout; its last line
# that is a JSON object), or the run's last error line.
offline_row() {
  python3 - "$@" <<'PY'
import json, sys
shape, rc, out_path, err_path = sys.argv[1:5]
def fmt(v, spec):  # spec: alignment, width, precision
    if v is None:
        width = "".join(ch for ch in spec.split(".")[0] if ch.isdigit())
        return format("n/a", spec[0] + width if width else "")
    return format(v, spec)
doc = None
try:
    with open(out_path) as f:
        lines = [l for l in f if l.lstrip().startswith("{")]
    doc = json.loads(lines[-1]) if lines else None
except (OSError, ValueError):
    doc = None
if doc is None:
    try:
        with open(err_path) as f:
            errors = [l.strip() for l in f if l.strip()]
    except OSError:
        errors = []
    print(f"{shape:<28} rc={rc:<3} no result: {errors[-1][:140] if errors else 'no output'}")
    sys.exit(0)
e, c = doc.get("engine", {}), doc.get("config", {})
ratios = " ".join(f"{p['name']}={p['ratio']:.4f}" for p in doc.get("peers", []))
print(f"{shape:<28} rc={rc:<3} {fmt(e.get('completed'), '>4')}/{fmt(e.get('num_requests'), '<4')} "
      f"{fmt(e.get('wall_s'), '>8.2f')} {fmt(e.get('output_tokens_per_s'), '>10.1f')} "
      f"{fmt(e.get('device_idle_fraction'), '>8.4f')} {fmt(e.get('host_ms_per_step'), '>8.3f')} "
      f"{fmt(e.get('device_ms_per_step'), '>8.3f')} {fmt(e.get('graph_steps'), '>6')} "
      f"{fmt(c.get('num_blocks'), '>10')}  {ratios}")
PY
}

offline_rows=()
eval_rows=()
# shape (config/models/<shape>.json) | more flags | the row's name (default: the shape) |
# the model's flags (default: dummy bf16 weights of the shape) | its limit (OFFLINE_TIMEOUT)
run_offline() {
  local shape=$1 extra=$2 name=${3:-$1} limit
  local model=${4:-"--load-format dummy --model-config config/models/$shape.json"}
  local want=${5:-${OFFLINE_TIMEOUT:-150}}
  local out="$logs/bench_offline_$name.json" err="$logs/bench_offline_$name.log"
  if [[ ! -x "$bundle/bin/pagedserve" ]]; then
    offline_rows+=("$(printf '%-28s MISSING: no pagedserve in %s/bin' "$name" "$bundle")")
    failed=1
    return
  fi
  if ! limit=$(step_limit "$want"); then
    offline_rows+=("$(printf '%-28s SKIPPED: no time left in the %s s budget' "$name" "$budget")")
    failed=1
    return
  fi
  echo "== bench offline $name (limit ${limit}s, log $err)"
  # shellcheck disable=SC2086
  timeout -k 10 "$limit" "$bundle/bin/pagedserve" bench offline $model \
    --workload "$bundle/fixtures/bench/nano-256.jsonl" \
    --backend "${OFFLINE_BACKEND:-cuda}" --dtype "${OFFLINE_DTYPE:-bfloat16}" --json $extra \
    ${OFFLINE_ARGS:-} > "$out" 2> "$err"
  local rc=$?
  [[ $rc -eq 0 ]] || failed=1
  [[ $rc -eq 124 || $rc -eq 137 ]] && echo "timed out after ${limit}s" >> "$err"
  offline_rows+=("$(offline_row "$name" "$rc" "$out" "$err")")
}

# One `bench offline` of the demo model for step 4b: name | workload file | max_num_seqs |
# speculative config (empty: off). Its JSON in $logs/bench_spec_<name>.json.
run_speculative() {
  local name=$1 workload=$2 seqs=$3 config=$4 limit
  local out="$logs/bench_spec_$name.json" err="$logs/bench_spec_$name.log"
  if ! limit=$(step_limit "${SPEC_TIMEOUT:-60}"); then
    failed=1
    return
  fi
  echo "== speculative $name (limit ${limit}s, log $err)"
  local spec_args=()
  [[ -n $config ]] && spec_args=(--speculative-config "$config")
  timeout -k 10 "$limit" "$bundle/bin/pagedserve" bench offline --model models/pagedserve-demo \
    --workload "$bundle/fixtures/speculative/$workload" --max-num-seqs "$seqs" \
    --max-model-len 512 --backend "${OFFLINE_BACKEND:-cuda}" --dtype "${OFFLINE_DTYPE:-bfloat16}" \
    --json "${spec_args[@]}" > "$out" 2> "$err" || failed=1
}

# Step 4b's table: each pair's output tok/s, ratio and acceptance.
speculative_table() {
  python3 - "$logs" "$@" <<'PY'
import json, os, sys
logs, names = sys.argv[1], sys.argv[2:]
def engine(name):
    try:
        with open(os.path.join(logs, f"bench_spec_{name}.json")) as f:
            lines = [l for l in f if l.lstrip().startswith("{")]
        return json.loads(lines[-1])["engine"]
    except (OSError, ValueError, KeyError, IndexError):
        return None
print(f"{'workload':<14} {'off tok/s':>10} {'on tok/s':>10} {'ratio':>7}  accepted / proposed")
for name in names:
    off, on = engine(name + "-off"), engine(name + "-on")
    if off is None or on is None:
        print(f"{name:<14} no result (see bench_spec_{name}-*.log)")
        continue
    drafted = on.get("spec_decode_num_draft_tokens", 0)
    accepted = on.get("spec_decode_num_accepted_tokens", 0)
    rate = f"{accepted / drafted:.3f}" if drafted else "-"
    print(f"{name:<14} {off['output_tokens_per_s']:>10.1f} {on['output_tokens_per_s']:>10.1f} "
          f"{on['output_tokens_per_s'] / off['output_tokens_per_s']:>7.3f}  {accepted} / {drafted} ({rate})")
PY
}

# A checkpoint of `shape` in `method` (pagedserve quantize --dummy-weights: seeded random
# weights quantized; speed only) in $work/<shape>-<method>; false when it could not be made.
work=$bundle/work
quantize_dummy() {
  local shape=$1 method=$2 limit
  local dir="$work/$shape-$method" log="$logs/quantize_$shape-$method.log"
  [[ -f "$dir/config.json" ]] && return 0
  limit=$(step_limit "${QUANT_TIMEOUT:-120}") || return 1
  mkdir -p "$work/$shape-config"
  cp "config/models/$shape.json" "$work/$shape-config/config.json"
  echo "== quantize $shape $method (limit ${limit}s, log $log)"
  timeout -k 10 "$limit" "$bundle/bin/pagedserve" quantize --model "$work/$shape-config" \
    --dummy-weights --method "$method" --out "$dir" > "$log" 2>&1
}

# Step 7 for one method: quantize the demo model with its dequantized twin, then eval the
# quantized folder against the twin on the device; one row of eval_rows.
quant_eval() {
  local method=$1 workload=$2 limit flags
  local dir="$work/demo-$method" log="$logs/quant_eval_$method.log"
  case $method in
    gptq-act-order) flags="--method gptq --desc-act" ;;
    gptq-int8) flags="--method gptq --bits 8" ;;
    awq) flags="--method awq --group-size 64" ;;  # 704 inputs in the MLP: 128 does not divide them
    *) flags="--method $method" ;;
  esac
  if ! limit=$(step_limit "${QUANT_TIMEOUT:-120}"); then
    eval_rows+=("$(printf '%-18s SKIPPED: no time left' "$method")")
    failed=1
    return
  fi
  echo "== quant-eval $method (limit ${limit}s, log $log)"
  rm -rf "$dir"
  # shellcheck disable=SC2086
  timeout -k 10 "$limit" "$bundle/bin/pagedserve" quantize --model models/pagedserve-demo \
    $flags --out "$dir/quantized" --dequantized-out "$dir/twin" > "$log" 2>&1 &&
    timeout -k 10 "$limit" "$bundle/bin/pagedserve" eval --model "$dir/quantized" \
      --reference "$dir/twin" --workload "$workload" --wrap-token-ids --json \
      --backend "${OFFLINE_BACKEND:-cuda}" --dtype "${OFFLINE_DTYPE:-bfloat16}" \
      > "$dir.json" 2>> "$log"
  local rc=$?
  [[ $rc -eq 0 ]] || failed=1
  eval_rows+=("$(python3 - "$method" "$rc" "$dir.json" <<'PY'
import json, sys
method, rc, path = sys.argv[1:4]
try:
    r = json.loads(open(path).read().strip().splitlines()[-1])
    print(f"{method:<18} {rc:<4} {r['mean_kl']:12.3e} {r['top1_agreement']:8.4f} {r['max_abs_logit_diff']:12.4g}")
except Exception:
    print(f"{method:<18} {rc:<4} no result (see the log)")
PY
)")
}

# The quantized rows of the offline runs against the bf16 row of their shape (same KV cache
# type): out tok/s ratio and KV blocks.
quant_table() {
  python3 - "$logs" "$@" <<'PY'
import json, os, sys
logs, names = sys.argv[1], sys.argv[2:]
def figures(name):
    try:
        with open(os.path.join(logs, f"bench_offline_{name}.json")) as f:
            lines = [l for l in f if l.lstrip().startswith("{")]
        doc = json.loads(lines[-1])
        return doc["engine"]["output_tokens_per_s"], doc["config"]["num_blocks"]
    except (OSError, ValueError, KeyError, IndexError):
        return None
print(f"{'run':<32} {'out tok/s':>10} {'x bf16':>7} {'blocks':>9}")
for name in names:
    shape, rest = name.split("+", 1)
    base = shape + ("+fp8kv" if rest.endswith("+fp8kv") else "")
    got, ref = figures(name), figures(base)
    if got is None:
        print(f"{name:<32} {'no result':>10}")
        continue
    ratio = f"{got[0] / ref[0]:.3f}" if ref else "n/a"
    print(f"{name:<32} {got[0]:>10.1f} {ratio:>7} {got[1]:>9}")
PY
}

if ldd "$bundle"/bin/* | grep -q 'not found'; then
  echo "gpu-check: libraries missing on this machine:" >&2
  ldd "$bundle"/bin/* | grep 'not found' | sort -u >&2
fi
nvidia-smi > "$logs/nvidia-smi.log" 2>&1
summary+=("$(printf '%-24s %s' nvidia-smi "$(grep -m1 -Eo 'NVIDIA [A-Z0-9]+[^|]*' "$logs/nvidia-smi.log" | head -c 40 || echo 'not found')")")

if wants tests; then
  for test in "$bundle"/bin/test_*; do
    [[ $(basename "$test") == test_engine_cuda ]] && continue  # step 4
    run_test "$test" "${STEP_TIMEOUT:-120}" "$e2e_reserve"
  done
fi

if wants benchmarks; then
  run_bench bench_cuda_kernels "--runs ${BENCH_RUNS:-100}" '^(kernel|decode|prefill|sample|process_logits|gemm|device)'
  run_bench bench_cuda_decode "--model-config config/models/llama-3.2-1b.json --batches 1,64,256 --context 1024" \
    '^(batch|[0-9]|captured|weights|device)'
  run_bench bench_cuda_gemm "--runs ${BENCH_RUNS:-100}" '^gemm'
  run_bench bench_cuda_qgemm "--runs ${BENCH_RUNS:-100}" '^(qgemm|device)'
fi

if wants engine; then
  if [[ -x "$bundle/bin/test_engine_cuda" ]]; then
    run_test "$bundle/bin/test_engine_cuda" "${ENGINE_TIMEOUT:-120}" 0
  else
    summary+=("$(printf '%-24s MISSING (not in the bundle)' test_engine_cuda)")
    failed=1
  fi
fi

spec_rows=()
if wants speculative; then
  ngram='{"method": "ngram", "num_speculative_tokens": 8, "prompt_lookup_max": 4, "prompt_lookup_min": 2}'
  draft='{"method": "draft_model", "model": "models/pagedserve-demo-draft", "num_speculative_tokens": 4}'
  if [[ -d "$bundle/fixtures/speculative" ]]; then
    for pair in "repeat-b1:repeat.jsonl:1:$ngram" "draft-b1:heldout.jsonl:1:$draft" \
      "repeat-x16:repeat16.jsonl:16:$ngram"; do
      IFS=: read -r name workload seqs config <<<"$pair"
      run_speculative "$name-off" "$workload" "$seqs" ""
      run_speculative "$name-on" "$workload" "$seqs" "$config"
      spec_rows+=("$name")
    done
  else
    summary+=("$(printf '%-24s MISSING (no fixtures/speculative in the bundle)' speculative)")
    failed=1
  fi
fi

if wants offline; then
  for shape in ${OFFLINE_SHAPES:-llama-3.2-1b qwen3-0.6b llama-3-8b}; do
    extra=""
    [[ $shape == llama-3.2-1b ]] && extra="--peer physical-ceiling=68000 --peer hf-transformers=890"
    run_offline "$shape" "$extra"
  done
  # The same with an fp8 e4m3 KV cache (half the bytes of bf16: twice the blocks).
  for shape in ${OFFLINE_FP8_KV_SHAPES-llama-3.2-1b llama-3-8b}; do
    run_offline "$shape" "--kv-cache-dtype fp8_e4m3" "$shape+fp8kv"
  done
fi

quant_rows=()
if wants quantized; then
  shape=${QUANT_SHAPE:-llama-3.2-1b}
  for method in ${QUANT_METHODS:-fp8-dynamic fp8-block awq gptq}; do
    if ! quantize_dummy "$shape" "$method"; then
      offline_rows+=("$(printf '%-28s no checkpoint: quantize failed or no time left' "$shape+$method")")
      failed=1
      continue
    fi
    for kv in ${QUANT_KV:-auto fp8_e4m3}; do
      name="$shape+$method"
      [[ $kv == fp8_e4m3 ]] && name="$name+fp8kv"
      run_offline "$shape" "--kv-cache-dtype $kv" "$name" "--model $work/$shape-$method"
      quant_rows+=("$name")
    done
  done
fi

if wants quant-eval; then
  eval_workload="$work/eval-workload.jsonl"
  mkdir -p "$work"
  # nano-256's first 16 prompts cut to 400 tokens (the demo model's context is 512).
  python3 - "$bundle/fixtures/bench/nano-256.jsonl" "$eval_workload" <<'PY'
import json, sys
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as dst:
    for i, line in enumerate(src):
        if i == 16:
            break
        ids = json.loads(line)["prompt_token_ids"][:400]
        dst.write(json.dumps({"prompt_token_ids": ids}) + "\n")
PY
  for method in ${QUANT_EVAL_METHODS:-awq gptq-act-order gptq-int8 fp8-dynamic fp8-block}; do
    quant_eval "$method" "$eval_workload"
  done
fi

if wants moe; then
  moe_timeout=${MOE_OFFLINE_TIMEOUT:-150}
  # The tests and the bench leave the engine run its limit; they skip (a failure) otherwise.
  run_test "$bundle/bin/test_cuda_ops" "${STEP_TIMEOUT:-120}" "$moe_timeout" '*cuda_moe*' \
    test_cuda_ops_moe
  run_bench bench_cuda_moe "--runs ${BENCH_RUNS:-100}" '^(moe|device)' "$moe_timeout"
  [[ -x "$bundle/bin/bench_cuda_moe" ]] ||
    { summary+=("$(printf '%-24s MISSING (not in the bundle)' bench_cuda_moe)"); failed=1; }
  moe_shape=${MOE_SHAPE:-qwen3-30b-a3b}
  moe_scale=${MOE_LENGTH_SCALE:-0.25}
  run_offline "$moe_shape" "--length-scale $moe_scale" "$moe_shape@x$moe_scale" "" "$moe_timeout"
fi

echo
echo "== GPU check summary (logs in $logs, ${SECONDS}s of the ${budget}s budget) =="
printf '%s\n' "${summary[@]}"
if ((${#offline_rows[@]} > 0)); then
  echo
  echo "bench offline, nano-256: dummy weights in bf16 or quantized (+method), bf16 or fp8 (+fp8kv) KV cache, @xF: lengths scaled by F (ratios: measured / peer output tok/s)"
  printf '%-28s %-6s %9s %8s %10s %8s %8s %8s %6s %10s  %s\n' shape rc completed wall_s \
    'out tok/s' dev_idle host_ms dev_ms graphs num_blocks ratios
  printf '%s\n' "${offline_rows[@]}"
fi
if ((${#spec_rows[@]} > 0)); then
  echo
  echo "speculative decoding, demo model in ${OFFLINE_DTYPE:-bfloat16}, same run: output tok/s on over off"
  speculative_table "${spec_rows[@]}"
fi
if ((${#eval_rows[@]} > 0)); then
  echo
  echo "quantized demo model against its dequantized twin, both on the device in ${OFFLINE_DTYPE:-bfloat16}"
  printf '%-18s %-4s %12s %8s %12s\n' method rc mean_kl top1 max_diff
  printf '%s\n' "${eval_rows[@]}"
fi
if ((${#quant_rows[@]} > 0)); then
  echo
  echo "quantized checkpoints (dummy weights), nano-256: out tok/s over the bf16 run of the shape"
  quant_table "${quant_rows[@]}"
fi
exit "$failed"
