#!/usr/bin/env bash
# Installs every Debian 12 package that pagedserve's build, tests and benchmarks need.
# Idempotent: packages already present are skipped by apt; safe to run on every CI start.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  ccache      # the compiler launcher (cmake/pagedserve_ccache.cmake): a clone reuses earlier builds
  clang clang-format libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libspdlog-dev libfmt-dev libyaml-cpp-dev libcli11-dev
  libboost1.81-dev libboost-json1.81-dev libboost-context1.81-dev
  libcaf-dev
  libpcre2-dev libutf8proc-dev
  nodejs
  prometheus  # promtool: tests check the /metrics text format
  curl        # tests/net/e2e/curl_sse.mjs: raw SSE
  gnuplot-nox # pagedserve-bench draws its sweep plots with it
  chromium    # tests/net/e2e/playground.mjs drives the web playground headless
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi

# Node.js ships npm on some machines (nodesource) and not on others (Debian's nodejs).
if ! command -v npm >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive ${sudo_cmd:-} apt-get install -y -qq --no-install-recommends npm
fi
