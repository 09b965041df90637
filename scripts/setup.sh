#!/usr/bin/env bash
# Installs what `npm start` and `npm test` need and is missing: Debian packages (when run as
# root; otherwise prints the exact command) and npm packages. Quiet when nothing is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# package → a file or command that proves it is installed
declare -A NEEDS=(
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [make]=/usr/bin/make
  [libeigen3-dev]=/usr/include/eigen3/Eigen/Core
  [googletest]=/usr/src/googletest/CMakeLists.txt
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [libbenchmark-dev]=/usr/include/benchmark/benchmark.h
  [emscripten]=/usr/bin/emcc
  [chromium]=/usr/bin/chromium
  [firefox-esr]=/usr/bin/firefox-esr
  [clang]=/usr/bin/clang++
  [clang-format]=/usr/bin/clang-format
  [libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
  [fonts-dejavu-core]=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
  [nlohmann-json3-dev]=/usr/include/nlohmann/json.hpp
  [nodejs]=/usr/bin/node
)
# Optional: only used to regenerate fixtures and as a native benchmark anchor.
if [ "${ATTN_WITH_TORCH:-0}" = 1 ]; then
  NEEDS[python3-torch]=/usr/lib/python3/dist-packages/torch/__init__.py
  NEEDS[libopenblas0-openmp]=/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0
  # The fixture scripts compute with the reference BLAS (tests/fixtures/reference_blas.py).
  NEEDS[libblas3]=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
  NEEDS[liblapack3]=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
  # GPT-2's tokenizer fixture: the Python reference splits text with Python's regex module.
  NEEDS[python3-regex]=/usr/lib/python3/dist-packages/regex/__init__.py
fi

missing=()
for pkg in "${!NEEDS[@]}"; do
  [ -e "${NEEDS[$pkg]}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing packages: ${missing[*]}" >&2
    echo "setup: run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v npm >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq npm >/dev/null; else
    echo "setup: run as root:  apt-get install -y npm" >&2; exit 1; fi
fi

# npm packages: install when node_modules is missing or older than the manifest/lock.
stamp=node_modules/.attn-installed
if [ ! -f "$stamp" ] || [ package.json -nt "$stamp" ] || { [ -f package-lock.json ] && [ package-lock.json -nt "$stamp" ]; }; then
  echo "setup: installing npm packages"
  export PUPPETEER_SKIP_DOWNLOAD=1   # puppeteer-core drives the system Firefox; never fetch a browser
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
  touch "$stamp"
fi
