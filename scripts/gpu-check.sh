#!/usr/bin/env bash
# Runs the GPU checks on the GPU machine, from the repository root, on the bundle that
# scripts/gpu-bundle.sh made (carried as build-gpu/bundle.tar.xz, unpacked here), in one call:
#   1. nvidia-smi
#   2. every test binary in the bundle: the CUDA kernels against the CPU reference
#      (test_cuda_ops), the forward against the HF goldens in fp32 and bf16, decode graphs
#      and KV pool sizing (test_forward_cuda), the device query (test_cuda_device)
#   3. the benchmarks: bench_cuda_kernels (attention bandwidth, prefill TFLOP/s, sampling,
#      cuBLAS GEMMs) and bench_cuda_decode (a Llama-3.2-1B-shaped decode step at batch 1, 64
#      and 256 against its memory floor)
# Full logs go to $OUT (when set) or build-gpu/bundle/logs; a short table comes last. Exit
# status 0 only if every test passed, none was skipped and every benchmark ran.
#   STEP_TIMEOUT=300 (default) bounds each step; BENCH_RUNS=100 the kernel timings.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

bundle=${GPU_BUNDLE:-build-gpu/bundle}
if [[ ! -d "$bundle/bin" && -f "$bundle.tar.xz" ]]; then
  tar -C "$(dirname "$bundle")" -xJf "$bundle.tar.xz" || { echo "gpu-check: cannot unpack $bundle.tar.xz" >&2; exit 2; }
fi
logs=${OUT:-$bundle/logs}
mkdir -p "$logs"
[[ -d "$bundle/bin" ]] || { echo "gpu-check: no bundle in $bundle (run scripts/gpu-bundle.sh)" >&2; exit 2; }
export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PAGEDSERVE_SHARED_DIR="$bundle/fixtures"
step_timeout=${STEP_TIMEOUT:-300}

summary=()
failed=0

# gtest's closing lines give the counts: "[  PASSED  ] N tests", "[  SKIPPED ] N tests", ...
count() { grep -Eo "^\[  $1 *\] [0-9]+ test" "$2" | tail -n 1 | grep -Eo '[0-9]+' || echo 0; }

if ldd "$bundle"/bin/* | grep -q 'not found'; then
  echo "gpu-check: libraries missing on this machine:" >&2
  ldd "$bundle"/bin/* | grep 'not found' | sort -u >&2
fi
nvidia-smi > "$logs/nvidia-smi.log" 2>&1
summary+=("$(printf '%-24s %s' nvidia-smi "$(grep -m1 -Eo 'NVIDIA [A-Z0-9]+[^|]*' "$logs/nvidia-smi.log" | head -c 40 || echo 'not found')")")

for test in "$bundle"/bin/test_*; do
  name=$(basename "$test")
  timeout "$step_timeout" "$test" --gtest_color=no > "$logs/$name.log" 2>&1
  rc=$?
  passed=$(count PASSED "$logs/$name.log")
  skipped=$(count SKIPPED "$logs/$name.log")
  failures=$(count FAILED "$logs/$name.log")
  verdict=ok
  if [[ $rc -ne 0 || $failures -ne 0 ]]; then verdict=FAILED; failed=1; fi
  if [[ $rc -eq 0 && $skipped -ne 0 ]]; then verdict=SKIPPED; failed=1; fi
  summary+=("$(printf '%-24s %-8s rc=%-3s passed=%-4s failed=%-4s skipped=%s' "$name" "$verdict" "$rc" "$passed" "$failures" "$skipped")")
  echo "== $name: $verdict (log $logs/$name.log)"
  grep -E '^\[  FAILED  \]|Failure|check failed|CUDA call failed' "$logs/$name.log" | head -n 20
done

# bench name | arguments | lines of its table to keep in the summary
run_bench() {
  local name=$1 args=$2 keep=$3
  [[ -x "$bundle/bin/$name" ]] || return 0
  # shellcheck disable=SC2086
  timeout "$step_timeout" "$bundle/bin/$name" $args > "$logs/$name.log" 2>&1
  local rc=$?
  [[ $rc -eq 0 ]] || failed=1
  summary+=("$(printf '%-24s rc=%s' "$name" "$rc")")
  while IFS= read -r line; do summary+=("  $line"); done < <(grep -E "$keep" "$logs/$name.log")
}
run_bench bench_cuda_kernels "--runs ${BENCH_RUNS:-100}" '^(kernel|decode|prefill|sample|gemm|device)'
run_bench bench_cuda_decode "--model-config config/models/llama-3.2-1b.json --batches 1,64,256 --context 1024" \
  '^(batch|[0-9]|captured|weights|device)'

echo
echo "== GPU check summary (logs in $logs) =="
printf '%s\n' "${summary[@]}"
exit "$failed"
