#!/usr/bin/env bash
# Builds og-opt (g++-12, Release) and runs it on the built-in default graph. Extra arguments go
# to og-opt (e.g. --blocks 10, --trace -).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh
cmake -S . -B build/og-opt -G Ninja -DCMAKE_CXX_COMPILER=g++-12 -DCMAKE_BUILD_TYPE=Release \
      -DOPTGRAMMAR_BUILD_TESTS=OFF -DOPTGRAMMAR_BUILD_BENCH=OFF >/dev/null
cmake --build build/og-opt --target og-opt -j "$(nproc)" >/dev/null
mkdir -p build/og-opt-out
exec build/og-opt/tools/og-opt/og-opt -o build/og-opt-out/w1.opt.ogt --dot build/og-opt-out/w1.opt.dot "$@"
