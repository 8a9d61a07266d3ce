#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs dependencies and test data, checks
# formatting, builds (CUDA parts too where a toolkit exists), runs every test, then builds
# the tests again with ASan + UBSan and runs them there, then fuzzes the request path and the
# model-folder readers with libFuzzer (clang). Exit status 0 means all of it passed.
#
#   bash scripts/test.sh                 every stage, in order
#   bash scripts/test.sh asan fuzz       only these stages (setup always runs first)
#
# Stages: setup, release, asan, fuzz (docs/testing.md says what each holds and where the
# time goes). Each step prints its duration, and a table of them closes the run.
# Builds go through ccache (cmake/pagedserve_ccache.cmake), so a clone in another folder
# reuses the objects of an earlier build of the same tree.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
stages=("$@")
((${#stages[@]})) || stages=(release asan fuzz)
for stage in "${stages[@]}"; do
  case "$stage" in
    release | asan | fuzz) ;;
    *) echo "test.sh: unknown stage '$stage' (release, asan, fuzz)" >&2; exit 2 ;;
  esac
done

# step NAME COMMAND...: runs COMMAND, prints and records its duration.
timings=()
run_started=$(date +%s)
step() {
  local name=$1 started
  shift
  echo "== $name =="
  started=$(date +%s)
  "$@"
  local took=$(($(date +%s) - started))
  timings+=("$(printf '%-26s %6d s' "$name" "$took")")
  echo "== $name: ${took} s =="
}
print_timings() {
  local status=$?
  echo "== step durations (exit $status) =="
  local line
  for line in "${timings[@]}"; do echo "  $line"; done
  printf '  %-26s %6d s\n' total $(($(date +%s) - run_started))
  command -v ccache >/dev/null && ccache --show-stats 2>/dev/null | grep -E 'Hits|Misses' | sed 's/^/  ccache /' || true
}
trap print_timings EXIT

# The cache must hold the three builds (about 6 GiB); ccache's default is 5 GiB.
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}

step deps bash scripts/install-deps.sh
step test-data bash scripts/test-data.sh
step format-check bash scripts/format-check.sh

wants() {
  local stage
  for stage in "${stages[@]}"; do [[ "$stage" == "$1" ]] && return 0; done
  return 1
}

if wants release; then
  step release-configure cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
  step release-build cmake --build build -j "$jobs"
  # Random order (--schedule-random), so tests that share state or a path show it.
  step release-test ctest --test-dir build --output-on-failure -j "$jobs" --schedule-random
fi

if wants asan; then
  # -O1 -g1 (line tables only): ASan's recommended level, and half the compile time of -O2 -g
  # on the Beast and CAF files, which dominate this build; reports still name file and line.
  # Benchmarks are not built: they run no assertion a sanitizer could add to. Left out of the
  # run (docs/testing.md): labels gpu (no device), no_asan (the load test, the 50-seed
  # structured outputs, the emulator's second warp order) and browser (the playground's page
  # in chromium: its server side is the HTTP and WebSocket paths the other e2e tests drive).
  step asan-configure cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPAGEDSERVE_SANITIZE=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DPAGEDSERVE_ENABLE_CUDA=OFF -DPAGEDSERVE_EMULATED_CUDA_BACKEND=ON \
    -DPAGEDSERVE_BUILD_BENCHMARKS=OFF
  step asan-build cmake --build build-asan -j "$jobs"
  step asan-test env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" --schedule-random -LE "gpu|no_asan|browser"
fi

if wants fuzz; then
  # The request path's fuzz targets and the model-folder readers' (net/ and the model,
  # tokenizer, chat and config libraries); each runs PAGEDSERVE_FUZZ_SECONDS (60) from its
  # committed seeds.
  fuzz_targets=(fuzz_http fuzz_ws fuzz_openai_body
    fuzz_safetensors fuzz_model_config fuzz_tokenizer_json fuzz_chat_template)
  step fuzz-configure cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DPAGEDSERVE_FUZZ=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DPAGEDSERVE_ENABLE_CUDA=OFF -DPAGEDSERVE_BUILD_BENCHMARKS=OFF
  step fuzz-build cmake --build build-fuzz -j "$jobs" --target "${fuzz_targets[@]}"
  step fuzz-run ctest --test-dir build-fuzz --output-on-failure -j "$jobs" -L fuzz
fi
