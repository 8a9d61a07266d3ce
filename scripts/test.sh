#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs dependencies, checks formatting,
# builds (CUDA parts too where a toolkit exists), runs every test, then builds the tests
# again with ASan + UBSan and runs them there, then fuzzes the request path with libFuzzer
# (clang) for a minute per target. Exit status 0 means all of it passed.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/format-check.sh

jobs=$(nproc)
echo "== release build =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
# Random order (--schedule-random), so tests that share state or a path show it.
ctest --test-dir build --output-on-failure -j "$jobs" --schedule-random

echo "== sanitizer build (ASan + UBSan) =="
# -O1 -g1 (line tables only): ASan's recommended level, and half the compile time of -O2 -g on
# the Beast and CAF files, which dominate this build; reports still name file and line.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAGEDSERVE_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DPAGEDSERVE_ENABLE_CUDA=OFF -DPAGEDSERVE_EMULATED_CUDA_BACKEND=ON \
  -DPAGEDSERVE_BUILD_BENCHMARKS=OFF
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --schedule-random -LE "gpu|no_asan"

echo "== fuzz build (clang, libFuzzer + ASan + UBSan) =="
# Only the request path's fuzz targets and what they link (net/ and the tokenizer, chat and
# config libraries); each runs PAGEDSERVE_FUZZ_SECONDS (60) from its seeds in tests/net/fuzz.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DPAGEDSERVE_FUZZ=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DPAGEDSERVE_ENABLE_CUDA=OFF -DPAGEDSERVE_BUILD_BENCHMARKS=OFF
cmake --build build-fuzz -j "$jobs" --target fuzz_http fuzz_ws fuzz_openai_body
ctest --test-dir build-fuzz --output-on-failure -j "$jobs" -L fuzz
