#!/usr/bin/env bash
# Builds the GPU bundle on the Debian build machine (docs/design/gpu-runbook.md): the CUDA
# targets in build-gpu/ (Release, sm_90a), then a self-contained folder build-gpu/bundle/
#   bin/       the test and benchmark binaries, and `pagedserve` (bench offline end to end)
#   lib/       every shared library they need that is neither glibc nor CUDA (per ldd)
#   fixtures/  fixtures from tests/data that bundled tests read, laid out as tests/data is
#              (PAGEDSERVE_TESTDATA_DIR): GPU_BUNDLE_FIXTURES, by default goldens/models (the
#              forward tests read them) and bench/nano-256.jsonl (the offline benchmark's
#              workload). The carry limit is 64 MiB, so bundle little. fixtures/speculative:
#              speculative decoding's workloads, made here (GPU_BUNDLE_SKIP=speculative: not)
# packs it as build-gpu/bundle.tar.xz (the folder is over the 64 MiB carry limit, the archive,
# ~20 MiB, well under it) and prints the `carry` list for the GPU machine, where
# scripts/gpu-check.sh unpacks and runs it. The model shapes the benchmarks run
# (config/models/*.json) are tracked files: they travel with the checkout, not the bundle.
#
#   scripts/gpu-bundle.sh                       # the CUDA tests, benchmarks and pagedserve
#   GPU_BUNDLE_TARGETS="test_forward" scripts/gpu-bundle.sh   # add more targets
#   JOBS=2 (default) limits the build's parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."

build="build-gpu"
bundle=$build/bundle
targets="test_cuda_device test_cuda_ops test_forward_cuda test_step_executor_cuda test_engine_cuda bench_cuda_kernels bench_cuda_decode bench_cuda_gemm bench_cuda_qgemm bench_cuda_moe pagedserve ${GPU_BUNDLE_TARGETS:-}"
testdata_dir=${PAGEDSERVE_TESTDATA_DIR:-$(pwd)/tests/data}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPAGEDSERVE_ENABLE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90a -DPAGEDSERVE_BUILD_BENCHMARKS=OFF
# (the list goes through a file: `grep -q` on a pipe ends it early, and pipefail then sees
# ninja's SIGPIPE as a failure)
cmake --build "$build" --target help > "$build/targets.txt"
grep -q '^test_cuda_ops:' "$build/targets.txt" ||
  { echo "gpu-bundle: the CUDA targets are missing (no nvcc found?)" >&2; exit 1; }
# shellcheck disable=SC2086
cmake --build "$build" --target $targets -j "${JOBS:-2}"

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/fixtures"
for target in $targets; do
  binary=$(find "$build" -path "$bundle" -prune -o -type f -name "$target" -perm -u+x -print | head -n 1)
  [[ -n "$binary" ]] || { echo "gpu-bundle: no binary for target $target" >&2; exit 1; }
  cp "$binary" "$bundle/bin/"
done

# Libraries the GPU machine lacks. glibc's own libraries and the loader come from the
# machine; CUDA (driver, cuBLAS) too: the machine has CUDA 13 under /usr/local/cuda.
is_provided() {
  case "$(basename "$1")" in
    linux-vdso* | ld-linux* | libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* \
      | libcuda.so* | libcudart.so* | libcublas.so* | libcublasLt.so* | libnvidia*) return 0 ;;
    *) return 1 ;;
  esac
}
for binary in "$bundle"/bin/*; do
  ldd "$binary" | awk '/=> \// { print $3 }' | while read -r lib; do
    if ! is_provided "$lib" && [[ ! -e "$bundle/lib/$(basename "$lib")" ]]; then
      cp -L "$lib" "$bundle/lib/"
    fi
  done
done

fixtures=${GPU_BUNDLE_FIXTURES-goldens/models bench/nano-256.jsonl}
for fixture in $fixtures; do
  mkdir -p "$bundle/fixtures/$(dirname "$fixture")"
  cp -r "$testdata_dir/$fixture" "$bundle/fixtures/$fixture"
done

# Speculative decoding's workloads (bench/speculative/workloads.mjs: held-out demo corpus text,
# the repeat answers found by running the demo model here); gpu-check's step `speculative`.
if [[ " ${GPU_BUNDLE_SKIP:-} " != *" speculative "* ]]; then
  node bench/speculative/workloads.mjs "$bundle/bin/pagedserve" "$build/speculative-work"
  mkdir -p "$bundle/fixtures/speculative"
  cp "$build"/speculative-work/{repeat,heldout,repeat16,heldout16}.jsonl "$bundle/fixtures/speculative/"
fi

strip --strip-unneeded "$bundle"/bin/*
# The archive, not the folder, travels: it is several times smaller.
tar -C "$build" -cf - bundle | xz -T "${JOBS:-2}" -6 > "$build/bundle.tar.xz"
echo "bundle: $(du -sh "$bundle" | cut -f1) in $bundle, $(du -sh "$build/bundle.tar.xz" | cut -f1) as $build/bundle.tar.xz"
ls "$bundle/bin" "$bundle/lib"
archive_bytes=$(stat -c %s "$build/bundle.tar.xz")
if (( archive_bytes > 60 * 1024 * 1024 )); then
  echo "gpu-bundle: $build/bundle.tar.xz is $archive_bytes bytes, too close to the 64 MiB carry limit" >&2
  exit 1
fi
echo "carry: [\"$build/bundle.tar.xz\"]"
echo "run there: bash scripts/gpu-check.sh   (it unpacks the archive first)"
