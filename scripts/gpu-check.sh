#!/usr/bin/env bash
# Runs the GPU checks on the GPU machine, from the repository root, on the bundle that
# scripts/gpu-bundle.sh made (carried as build-gpu/bundle): nvidia-smi, every test binary
# in the bundle (the CUDA kernels against the CPU reference, and any other test bundled),
# then the kernel benchmark. Full logs go to $OUT (when set) or build-gpu/bundle/logs; a
# short table comes last. Exit status 0 only if every test passed and none was skipped.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

bundle=${GPU_BUNDLE:-build-gpu/bundle}
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

if [[ -x "$bundle/bin/bench_cuda_kernels" ]]; then
  timeout "$step_timeout" "$bundle/bin/bench_cuda_kernels" > "$logs/bench_cuda_kernels.log" 2>&1
  rc=$?
  [[ $rc -eq 0 ]] || failed=1
  summary+=("$(printf '%-24s rc=%s' bench_cuda_kernels "$rc")")
  while IFS= read -r line; do summary+=("  $line"); done < <(grep -E '^(kernel|paged_attention|device)' "$logs/bench_cuda_kernels.log")
fi

echo
echo "== GPU check summary (logs in $logs) =="
printf '%s\n' "${summary[@]}"
exit "$failed"
