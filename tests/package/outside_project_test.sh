#!/usr/bin/env bash
# The pagedserve package as an embedder meets it (tests/package/CMakeLists.txt runs this):
#   1. cmake --install <build> into a fresh prefix (no root needed)
#   2. the installed package names neither the build nor the source tree; its include tree
#      holds at most 40 headers, and every project include of an installed header is
#      installed too (an embedder's build cannot reach a header that was left out)
#   3. examples/ configured as its own project with find_package(pagedserve) from that
#      prefix; embed_engine built and run on the demo model: eight completions must finish
#   4. <prefix>/bin/pagedserve --version prints the project version
# Everything happens in one mktemp -d folder, removed on exit; CTest runs tests in parallel.
set -euo pipefail

cmake=cmake generator=Ninja make_program="" cxx=c++ cxx_flags="" version=""
build_dir="" source_dir=""
for arg in "$@"; do
  case "$arg" in
    --cmake=*) cmake=${arg#*=} ;;
    --build-dir=*) build_dir=${arg#*=} ;;
    --source-dir=*) source_dir=${arg#*=} ;;
    --generator=*) generator=${arg#*=} ;;
    --make-program=*) make_program=${arg#*=} ;;
    --cxx=*) cxx=${arg#*=} ;;
    --cxx-flags=*) cxx_flags=${arg#*=} ;;
    --version=*) version=${arg#*=} ;;
    *) echo "outside_project_test: unknown argument $arg" >&2; exit 2 ;;
  esac
done
if [[ -z "$build_dir" || -z "$source_dir" || -z "$version" ]]; then
  echo "usage: $0 --build-dir=DIR --source-dir=DIR --version=X.Y.Z [--cmake=..] [--cxx=..]" >&2
  exit 2
fi
build_dir=$(cd "$build_dir" && pwd -P)
source_dir=$(cd "$source_dir" && pwd -P)

work=$(mktemp -d "${TMPDIR:-/tmp}/pagedserve-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
consumer=$work/build

fail() {
  echo "outside_project_test: FAIL: $*" >&2
  exit 1
}

echo "== install $build_dir into $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" > "$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/pagedserve bin/pagedserve-bench include/pagedserve/actors/engine.h \
         include/pagedserve/actors/engine_actor.h include/pagedserve/common/result.h \
         lib/cmake/pagedserve/pagedserveConfig.cmake \
         lib/cmake/pagedserve/pagedserveConfigVersion.cmake \
         lib/cmake/pagedserve/pagedserveTargets.cmake lib/cmake/pagedserve/FindCAF.cmake; do
  [[ -e "$prefix/$f" ]] || fail "$f not installed"
done
echo "installed $(find "$prefix" -type f | wc -l) files"

# The public headers only (docs/embedding.md): at most 40, closed under their includes.
include_root=$prefix/include/pagedserve
num_headers=$(find "$include_root" -name '*.h' | wc -l)
echo "installed $num_headers headers"
((num_headers <= 40)) || fail "$num_headers headers installed, more than the 40 public ones allow"
while IFS= read -r header; do
  while IFS= read -r included; do
    [[ -e "$include_root/$included" ]] ||
      fail "${header#"$include_root"/} includes $included, which is not installed"
  done < <(sed -nE 's/^#include "([^"]+)".*/\1/p' "$header")
done < <(find "$include_root" -name '*.h')

# The package must stand alone: no path into the build or source tree in its CMake files,
# nor in the programs' RPATH (project libraries are static).
if grep -rlF -e "$build_dir" -e "$source_dir" "$prefix/lib/cmake"; then
  fail "the installed CMake files above name the build or source tree"
fi
if command -v readelf > /dev/null; then
  for program in pagedserve pagedserve-bench; do
    rpath=$(readelf -d "$prefix/bin/$program" | grep -E 'R(UN)?PATH' || true)
    if grep -qF -e "$build_dir" -e "$source_dir" <<< "$rpath"; then
      fail "bin/$program has an RPATH into the build or source tree"
    fi
  done
fi

echo "== examples/ as an outside project"
make_args=()
[[ -n "$make_program" ]] && make_args=(-DCMAKE_MAKE_PROGRAM="$make_program")
"$cmake" -S "$source_dir/examples" -B "$consumer" -G "$generator" "${make_args[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxx_flags" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$work/configure.log" ||
  { cat "$work/configure.log"; fail "configuring examples/ against the installed package"; }
grep -F "pagedserve_DIR" "$consumer/CMakeCache.txt" | grep -qF "$prefix/" ||
  fail "find_package(pagedserve) did not take the installed prefix"
"$cmake" --build "$consumer" -j "$(nproc)" --target embed_engine ||
  fail "building embed_engine against the installed package"

echo "== embed_engine (the random demo model)"
rc=0
"$consumer/embed_engine" --model demo-random --max-tokens 4 > "$work/embed.out" 2>&1 || rc=$?
embed_fail() {
  cat "$work/embed.out"
  fail "$@"
}
((rc == 0)) || embed_fail "embed_engine exited with $rc"
# Each of the eight clients gets its whole completion (ignore_eos: always 4 tokens; a final
# may carry held-back text as its tail), and the engine shuts down with every KV block back
# in the pool.
done_re='^\[client [0-7]\] done: length(, tail ".*")?, prompt 5 tokens, completion 4 tokens$'
finished=$(grep -cE "$done_re" "$work/embed.out" || true)
[[ "$finished" == 8 ]] || embed_fail "$finished of 8 completions finished"
grep -qE '^engine shut down: .*, 0 leaked blocks$' "$work/embed.out" ||
  embed_fail "no clean engine shutdown"
grep -E "$done_re|^engine shut down" "$work/embed.out"

echo "== installed pagedserve --version"
line=$("$prefix/bin/pagedserve" --version) || fail "pagedserve --version exited with $?"
echo "$line"
expected="^pagedserve ${version//./\\.} \\((unknown|[0-9a-f]{12}(-dirty)?)\\)$"
[[ "$line" =~ $expected ]] ||
  fail "pagedserve --version printed '$line', not 'pagedserve $version (<commit>)'"

echo "outside_project_test: OK"
