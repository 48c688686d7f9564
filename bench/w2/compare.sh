#!/usr/bin/env bash
# W2 side by side: optgrammar's rewrite (the DSL rules, and the same rules written by hand; each
# appending the ops it makes and, with --in-place, putting them in their roots' slots), its
# floor (one read-only pass over the same graph) and MLIR 15's greedy driver with DRR rules (the
# MLIR peer of workload W2), each run ROUNDS times as separate processes, for each package size.
#
#   bench/w2/compare.sh [BLOCKS] [ROUNDS] [RULES...]      defaults: 50000 9 64 256 1024
#
# Environment: W2_BENCH (our w2_bench_1024 binary, which holds every package size; default
# build/gcc/bench/w2/w2_bench_1024, built with the gcc preset when missing), MLIR_RUN (the peer's
# run.sh; by default the W2 peer in the folder beside the repository, as below; MLIR is left out
# when it is not there).
#
# The order of the engines changes from one package size and round to the next
# (bench/common/round_order.sh, as in bench/w1/compare.sh). Prints every JSON
# line, then per package size and engine the median and range of build and rewrite time,
# peak RSS and (ours) the minor page faults of the build and of the rewrite, and the ratios the
# targets are stated in.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/bench/common/round_order.sh"
source "$repo/bench/common/host.sh"
blocks="${1:-50000}"
rounds="${2:-9}"
shift $(($# < 2 ? $# : 2))
sizes=("$@"); [ ${#sizes[@]} -eq 0 ] && sizes=(64 256 1024)
w2="${W2_BENCH:-$repo/build/gcc/bench/w2/w2_bench_1024}"
mlir="${MLIR_RUN:-$repo/../shared/peers/mlir-w2/run.sh}"

case "$blocks$rounds${sizes[*]}" in *[!0-9\ ]*) echo "usage: compare.sh [BLOCKS] [ROUNDS] [RULES...] (positive integers)" >&2; exit 2 ;; esac
command -v python3 >/dev/null || { echo "compare.sh: needs python3 for the summary (apt-get install python3)" >&2; exit 2; }

if [ ! -x "$w2" ]; then
  echo "[compare] building w2_bench_1024 with the gcc preset" >&2
  (cd "$repo" && cmake --preset gcc >/dev/null && cmake --build --preset gcc --target w2_bench_1024 >/dev/null)
fi
engines=(dsl dsl-in-place handwritten handwritten-in-place floor)
if [ -x "$mlir" ]; then
  engines+=(mlir)
  "$mlir" 1000 64 >/dev/null  # builds the peer once, outside the timed rounds
else
  echo "[compare] no MLIR peer at $mlir: comparing optgrammar with its floor only" >&2
fi

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
order=0  # counts the groups (one round of one package size) run so far
host_lines "[compare]" before
for ((r = 0; r < rounds; r++)); do
  for rules in "${sizes[@]}"; do
    for e in $(round_order "$order" mlir "${engines[@]}"); do
      case "$e" in
        dsl) "$w2" "$blocks" "$rules" 2>/dev/null | tail -n 1 ;;
        dsl-in-place) "$w2" "$blocks" "$rules" --in-place 2>/dev/null | tail -n 1 ;;
        handwritten) "$w2" "$blocks" "$rules" --engine handwritten 2>/dev/null | tail -n 1 ;;
        handwritten-in-place) "$w2" "$blocks" "$rules" --engine handwritten --in-place 2>/dev/null | tail -n 1 ;;
        floor) "$w2" "$blocks" "$rules" --engine floor 2>/dev/null | tail -n 1 ;;
        mlir) "$mlir" "$blocks" "$rules" 2>/dev/null | tail -n 1 ;;
      esac | tee -a "$out"
    done
    order=$((order + 1))
  done
done
host_lines "[compare]" after

python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for x in rows:  # build + rewrite first: what a user waits for (the peer prints the two parts)
    x.setdefault("total_seconds", x["build_seconds"] + x["rewrite_seconds"])
med = {}
print()
for r in dict.fromkeys(x["rules"] for x in rows):
    for e in dict.fromkeys(x["engine"] for x in rows):
        rs = [x for x in rows if x["engine"] == e and x["rules"] == r]
        if not rs:
            continue
        parts = []
        # (The peer does not count page faults; ours give the last run's build and rewrite.)
        for k in ("total_seconds", "build_seconds", "rewrite_seconds", "peak_rss_kb",
                  "build_minor_faults", "rewrite_minor_faults"):
            if any(k not in x for x in rs):
                continue
            v = sorted(x[k] for x in rs)
            med[r, e, k] = statistics.median(v)
            parts.append(f"{k} {med[r, e, k]:g} [{v[0]:g}-{v[-1]:g}]")
        print(f"R={r:<5d} {e:18s} " + "  ".join(parts) + f"  ({len(rs)} runs)")
print()
floor, mlir = "optgrammar-floor", "mlir15-greedy-drr"
# Each variant: appending made ops (the default) and DriverOptions::rewrite_in_place.
for suffix in ("", "-in-place"):
    dsl, hand = "optgrammar" + suffix, "optgrammar-handwritten" + suffix
    per_op = {}
    for r in dict.fromkeys(x["rules"] for x in rows):
        ops = next(x["ops_before"] for x in rows if x["rules"] == r)
        if (r, dsl, "rewrite_seconds") not in med:
            continue
        t = med[r, dsl, "rewrite_seconds"]
        per_op[r] = t / ops
        line = f"R={r:<5d} {dsl} build + rewrite {1e9 * med[r, dsl, 'total_seconds'] / ops:.1f} ns/op"
        if (r, mlir, "total_seconds") in med:
            line += f" (MLIR / optgrammar {med[r, mlir, 'total_seconds'] / med[r, dsl, 'total_seconds']:.1f}x)"
        line += f", rewrite {1e9 * t / ops:.1f} ns/op"
        if (r, hand, "rewrite_seconds") in med:
            line += f"  DSL / hand-written {t / med[r, hand, 'rewrite_seconds']:.2f}"
        if (r, floor, "rewrite_seconds") in med and med[r, floor, "rewrite_seconds"]:
            line += f"  rewrite / floor {t / med[r, floor, 'rewrite_seconds']:.1f}x"
        if (r, mlir, "rewrite_seconds") in med:
            line += f"  MLIR / optgrammar rewrite {med[r, mlir, 'rewrite_seconds'] / t:.1f}x (target >= 25x)"
        print(line)
    if 64 in per_op and 1024 in per_op:
        print(f"{dsl}: rewrite time per op, R=1024 / R=64: {per_op[1024] / per_op[64]:.2f} (target <= 1.5)")
PY
