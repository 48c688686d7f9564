#!/usr/bin/env bash
# Builds the og-parse libFuzzer target with clang++-14 (ASan + UBSan) and runs it for a bounded
# time over the seed corpus (tests/og-parse/corpus and the data files). Any crashing input is
# copied to tests/og-parse/crashes/, which the Catch2 suite replays as a regression test.
# Usage: tests/og-parse/fuzz.sh [seconds=60] [build-dir=/tmp/b-ogparse-fuzz]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
secs="${1:-60}"
build="${2:-/tmp/b-ogparse-fuzz}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Release \
      -DOPTGRAMMAR_HEXAGON_TESTS=OFF -DOPTGRAMMAR_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j2 --target og_parse_fuzz
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
"$build/tests/og-parse/og_parse_fuzz" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
    -artifact_prefix="$work/" -print_final_stats=1 \
    "$work" "$here/corpus" "$here/data/valid" "$here/data/invalid" 2>&1 | tee "$work/log" | grep -E "^#[0-9]+ +DONE|stat::|ERROR|SUMMARY" || true
for f in "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*; do
  [ -e "$f" ] || continue
  mkdir -p "$here/crashes"
  cp "$f" "$here/crashes/"
  echo "fuzz.sh: saved $(basename "$f") to tests/og-parse/crashes/ (add it to git: it is replayed by the Catch2 suite)" >&2
  status=1
done
exit $status
