#!/usr/bin/env bash
# Builds the libFuzzer targets (clang++-14, ASan + UBSan) and runs each for SECONDS over its seed
# corpus: og_parse_fuzz (og-parse, seeds tests/og-parse/corpus and data), og_text_fuzz (the graph
# text reader) and og_pipeline_fuzz (og-opt's pipeline), both seeded by bench/fuzz/corpus/graph and
# tools/og-opt/testdata, and og_onnx_fuzz (the ONNX importer, seeds bench/fuzz/corpus/onnx: small
# models of ONNX's node tests).
# Prints the executions of each. A crash, timeout or out-of-memory input is copied to
# bench/fuzz/crashes/<target>/ (add it to git and to a regression test) and the exit status is 1.
# Usage: bench/fuzz/run.sh SECONDS|ci [build-dir=build/fuzz]
#   SECONDS  fuzz each target that long from a random seed: exploration, finds new inputs.
#   ci       what tools/test-all.sh runs: seed 1, each target for at most 60 s and at most the
#            number of executions given on its `run` line below (about what 60 s reach here).
#            Every machine walks a prefix of the same sequence of inputs, so a commit gets the
#            same verdict everywhere (only a code change moves it); exploring is the SECONDS mode.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../common/host.sh"
root="$(cd "$here/../.." && pwd)"
secs="${1:?usage: bench/fuzz/run.sh SECONDS|ci [build-dir]}"
if [ "$secs" != ci ] && ! [[ "$secs" =~ ^[1-9][0-9]*$ ]]; then
  echo "run.sh: '$secs' is neither a number of seconds nor 'ci'" >&2
  exit 2
fi
build="${2:-$root/build/fuzz}"
# A folder clang++ already configured (the asan preset's, as tools/test-all.sh passes) keeps its
# settings: the fuzz targets add their own flags, and its other objects are not rebuilt.
if ! grep -qs '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Release \
        -DOPTGRAMMAR_HEXAGON_TESTS=OFF -DOPTGRAMMAR_BUILD_BENCH=ON -DOPTGRAMMAR_BUILD_TESTS=ON >/dev/null
fi
cmake --build "$build" -j2 --target og_parse_fuzz og_text_fuzz og_pipeline_fuzz og_onnx_fuzz
# run NAME CI_RUNS EXE CORPUS... (exit status 1 when it saved a failing input)
run() {
  local name="$1" ci_runs="$2" exe="$3"
  shift 3
  local work limit found=0
  work="$(mktemp -d)"
  if [ "$secs" = ci ]; then limit=(-seed=1 -runs="$ci_runs" -max_total_time=60); else limit=(-max_total_time="$secs"); fi
  local t0=$SECONDS
  "$exe" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$work/" -print_final_stats=1 "$work" "$@" >"$work/log" 2>&1 || true
  local execs
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)"
  echo "$name: ${execs:-?} executions in $((SECONDS - t0)) s"
  for f in "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*; do
    [ -e "$f" ] || continue
    mkdir -p "$here/crashes/$name"
    cp "$f" "$here/crashes/$name/"
    grep -E "ERROR|SUMMARY|pipeline fuzz" "$work/log" | head -5 >&2 || true
    echo "run.sh: $name: saved $(basename "$f") to bench/fuzz/crashes/$name/" >&2
    found=1
  done
  rm -rf "$work"
  return $found
}
# A libFuzzer process keeps one core busy: the targets run two at a time, the next one starting as
# soon as one ends, the longest first by their usual times in ci mode; each writes its report and
# its exit status to a file, and the reports are printed in this order when all have ended.
status=0
reports="$(mktemp -d)"
og_parse_data="$root/tests/og-parse/data"
host_lines "[fuzz]" before
fuzz_1() { run og_parse_fuzz 20000 "$build/tests/og-parse/og_parse_fuzz" "$root/tests/og-parse/corpus" "$og_parse_data/valid" "$og_parse_data/invalid"; }
fuzz_2() { run og_text_fuzz 400000 "$build/bench/fuzz/og_text_fuzz" "$here/corpus/graph" "$root/tools/og-opt/testdata"; }
fuzz_3() { run og_pipeline_fuzz 200000 "$build/bench/fuzz/og_pipeline_fuzz" "$here/corpus/graph" "$root/tools/og-opt/testdata"; }
fuzz_4() { run og_onnx_fuzz 500000 "$build/bench/fuzz/og_onnx_fuzz" "$here/corpus/onnx"; }
started=0
for k in 1 4 2 3; do
  # (wait -n returns when one of the two running ends: it is called right after the second starts)
  if [ $started -ge 2 ]; then wait -n || true; fi
  { s=0; "fuzz_$k" >"$reports/$k" 2>&1 || s=1; echo $s >"$reports/$k.status"; } &
  started=$((started + 1))
done
wait
for k in 1 2 3 4; do [ "$(cat "$reports/$k.status" 2>/dev/null)" = 0 ] || status=1; done
cat "$reports"/1 "$reports"/2 "$reports"/3 "$reports"/4
rm -rf "$reports"
host_lines "[fuzz]" after
exit $status
