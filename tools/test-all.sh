#!/usr/bin/env bash
# Builds everything with g++-12 and with clang++-14 (warnings as errors) and runs every test.
# Usage: tools/test-all.sh [gcc|clang]...   (default: both)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh
presets=("$@"); [ ${#presets[@]} -eq 0 ] && presets=(gcc clang)
for p in "${presets[@]}"; do
  echo "=== $p ===" >&2
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$(nproc)"
  ctest --preset "$p" -j "$(nproc)"
done
