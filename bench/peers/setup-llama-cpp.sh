#!/usr/bin/env bash
# Installs node-llama-cpp (pinned) from npm into build-peers/npm and builds llama.cpp's
# llama-bench, llama-batched-bench and llama-server (CPU only) from the llama.cpp source
# bundle that node-llama-cpp ships (node_modules/node-llama-cpp/llama/gitRelease.bundle).
# Idempotent: every step is skipped when its output is already there.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bash bench/peers/setup-llama-cpp.sh [--jobs N] [--out DIR]

  --jobs N   parallel compile jobs (default 1: the machine is shared)
  --out DIR  where everything goes (default build-peers/, git-ignored)

Steps (each skipped when already done):
  1. npm install --ignore-scripts node-llama-cpp@3.22.1 @node-llama-cpp/linux-x64@3.22.1
     into DIR/npm (no postinstall: it would download or build binaries itself)
  2. git clone of the llama.cpp source bundle the package ships into DIR/llama.cpp
  3. cmake + ninja (nice -n 19): llama-bench, llama-batched-bench, llama-server, CPU only
     (no CUDA/Vulkan/Metal, no curl, no OpenSSL, no web UI download), into DIR/llama.cpp/build
Prints the binaries' paths at the end.
EOF
}

JOBS=1
cd "$(dirname "$0")/../.."   # the repository root
OUT=build-peers
while [[ $# -gt 0 ]]; do
    case "$1" in
        --jobs) JOBS="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

NLC_VERSION=3.22.1
NPM_DIR="$OUT/npm"
SRC="$OUT/llama.cpp"
BUILD="$SRC/build"
BINS=(llama-bench llama-batched-bench llama-server llama-quantize)

# 1. npm
PKG="$NPM_DIR/node_modules/node-llama-cpp"
if [[ -f "$PKG/package.json" ]] && grep -q "\"version\": \"$NLC_VERSION\"" "$PKG/package.json"; then
    echo "[setup] node-llama-cpp@$NLC_VERSION already installed in $NPM_DIR"
else
    echo "[setup] npm install node-llama-cpp@$NLC_VERSION into $NPM_DIR"
    mkdir -p "$NPM_DIR"
    [[ -f "$NPM_DIR/package.json" ]] || echo '{"name": "pagedserve-peers", "private": true}' > "$NPM_DIR/package.json"
    (cd "$NPM_DIR" && nice -n 19 npm install --ignore-scripts --omit=optional --no-audit --no-fund \
        --save-exact "node-llama-cpp@$NLC_VERSION" "@node-llama-cpp/linux-x64@$NLC_VERSION")
fi
BUNDLE="$PKG/llama/gitRelease.bundle"
[[ -f "$BUNDLE" ]] || { echo "[setup] no llama.cpp source bundle at $BUNDLE" >&2; exit 1; }

# 2. llama.cpp source from the bundle
if [[ -f "$SRC/CMakeLists.txt" ]]; then
    echo "[setup] llama.cpp source already in $SRC"
else
    echo "[setup] cloning the llama.cpp source bundle into $SRC"
    git -c advice.detachedHead=false clone -q "$BUNDLE" "$SRC"
fi
echo "[setup] llama.cpp: $(tr -d '\n ' < "$PKG/llama/llama.cpp.info.json"), commit $(git -C "$SRC" rev-parse --short HEAD)"

# 3. build
missing=0
for b in "${BINS[@]}"; do [[ -x "$BUILD/bin/$b" ]] || missing=1; done
if [[ $missing -eq 0 ]]; then
    echo "[setup] binaries already built"
else
    if [[ ! -f "$BUILD/build.ninja" ]]; then
        echo "[setup] configuring $BUILD"
        nice -n 19 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
            -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON \
            -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DGGML_OPENCL=OFF -DGGML_RPC=OFF \
            -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
            -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
            -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF
    fi
    echo "[setup] building ${BINS[*]} with $JOBS job(s) (nice -n 19; this takes a while)"
    nice -n 19 ninja -C "$BUILD" -j "$JOBS" "${BINS[@]}"
fi

for b in "${BINS[@]}"; do
    [[ -x "$BUILD/bin/$b" ]] || { echo "[setup] missing $BUILD/bin/$b" >&2; exit 1; }
done
echo "[setup] binaries:"
for b in "${BINS[@]}"; do echo "  $BUILD/bin/$b"; done
