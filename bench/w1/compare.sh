#!/usr/bin/env bash
# W1 side by side: optgrammar's DSL rules, the same rules hand-written (each appending the ops it
# makes and, with --in-place, putting them in their roots' slots), the floor (one read-only
# pass over the same graph, bench/common/floor.hpp) and MLIR 15's greedy driver
# (the MLIR peer of workload W1), each run ROUNDS times as separate processes.
#
#   bench/w1/compare.sh [BLOCKS] [ROUNDS]        defaults: 125000 9 (the target's nine rounds)
#
# Environment: W1_BENCH (our w1_bench binary; default build/gcc/bench/w1/w1_bench, built with
# the gcc preset when missing), MLIR_RUN (the peer's run.sh; by default the W1 peer in the folder
# beside the repository, as below; MLIR is left out when it is not there), HUGE_PAGES (on or off,
# default on: w1_bench's --huge-pages, the op and input records of our engines' graphs on
# transparent huge pages or from operator new), MLIR_HUGE_PAGES (on or off, default HUGE_PAGES's
# value, so that both sides run on the same kind of pages: on runs the peer with
# GLIBC_TUNABLES=glibc.malloc.hugetlb=1, glibc's huge pages for its large blocks). The summary
# says both.
#
# The order of the engines changes every round (bench/common/round_order.sh): on a small VM the
# process that runs right after MLIR (which frees 400 MB on exit) is sometimes slower, and each of
# ours takes that place in turn. Prints every JSON line, then per engine the median and range of
# build + rewrite time (first: what a user waits for), build and rewrite time, peak RSS and the
# minor page faults of the build and of the rewrite (ours only), and the ratios the targets are
# stated in, build + rewrite against MLIR first.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/bench/common/round_order.sh"
source "$repo/bench/common/host.sh"
blocks="${1:-125000}"
rounds="${2:-9}"
w1="${W1_BENCH:-$repo/build/gcc/bench/w1/w1_bench}"
mlir="${MLIR_RUN:-$repo/../shared/peers/mlir-w1/run.sh}"

huge="${HUGE_PAGES:-on}"
mlir_huge="${MLIR_HUGE_PAGES:-$huge}"
case "$huge $mlir_huge" in on\ on | on\ off | off\ on | off\ off) ;; *) echo "compare.sh: HUGE_PAGES and MLIR_HUGE_PAGES are on or off" >&2; exit 2 ;; esac
mlir_env=()
[ "$mlir_huge" = on ] && mlir_env=(env GLIBC_TUNABLES=glibc.malloc.hugetlb=1)
case "$blocks$rounds" in *[!0-9]*) echo "usage: compare.sh [BLOCKS] [ROUNDS] (positive integers)" >&2; exit 2 ;; esac
command -v python3 >/dev/null || { echo "compare.sh: needs python3 for the summary (apt-get install python3)" >&2; exit 2; }

if [ ! -x "$w1" ]; then
  echo "[compare] building w1_bench with the gcc preset" >&2
  (cd "$repo" && cmake --preset gcc >/dev/null && cmake --build --preset gcc --target w1_bench >/dev/null)
fi
engines=(dsl dsl-in-place handwritten handwritten-in-place floor)
if [ -x "$mlir" ]; then
  engines+=(mlir)
  "$mlir" 1000 >/dev/null  # builds the peer once, outside the timed rounds
else
  echo "[compare] no MLIR peer at $mlir: comparing the two optgrammar variants only" >&2
fi

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
host_lines "[compare]" before
echo "[compare] huge pages: ours $huge (w1_bench --huge-pages $huge), MLIR $mlir_huge$([ "$mlir_huge" = on ] && echo ' (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)')" >&2
for ((r = 0; r < rounds; r++)); do
  for e in $(round_order "$r" mlir "${engines[@]}"); do
    case "$e" in
      dsl) "$w1" "$blocks" --huge-pages "$huge" 2>/dev/null | tail -n 1 ;;
      dsl-in-place) "$w1" "$blocks" --in-place --huge-pages "$huge" 2>/dev/null | tail -n 1 ;;
      handwritten) "$w1" "$blocks" --engine handwritten --huge-pages "$huge" 2>/dev/null | tail -n 1 ;;
      handwritten-in-place) "$w1" "$blocks" --engine handwritten --in-place --huge-pages "$huge" 2>/dev/null | tail -n 1 ;;
      floor) "$w1" "$blocks" --engine floor --huge-pages "$huge" 2>/dev/null | tail -n 1 ;;
      mlir) "${mlir_env[@]}" "$mlir" "$blocks" 2>/dev/null | tail -n 1 ;;
    esac | tee -a "$out"
  done
done

host_lines "[compare]" after

python3 - "$out" "$huge" "$mlir_huge" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print(f"\nhuge pages: ours {sys.argv[2]}, MLIR {sys.argv[3]}", end="")
refused = sum(r.get("huge_page_refusals", 0) for r in rows)
print(f" (the kernel refused the advice for {refused} blocks)" if refused else "")
for r in rows:  # build + rewrite first: what a user waits for (the peer prints the two parts)
    r.setdefault("total_seconds", r["build_seconds"] + r["rewrite_seconds"])
med, fastest = {}, {}
print()
for e in dict.fromkeys(r["engine"] for r in rows):
    rs = [r for r in rows if r["engine"] == e]
    parts = []
    # (The peer does not count page faults; ours give the last run's build and rewrite.)
    for k in ("total_seconds", "build_seconds", "rewrite_seconds", "peak_rss_kb",
              "build_minor_faults", "rewrite_minor_faults"):
        if any(k not in r for r in rs):
            continue
        v = sorted(r[k] for r in rs)
        med[e, k] = statistics.median(v)
        fastest[e, k] = v[0]
        parts.append(f"{k} {med[e, k]:g} [{v[0]:g}-{v[-1]:g}]")
    print(f"{e:24s} " + "  ".join(parts) + f"  ({len(rs)} runs)")
def ratio(a, b, k):
    return med[a, k] / med[b, k] if (a, k) in med and (b, k) in med and med[b, k] else None
floor, mlir = "optgrammar-floor", "mlir15-greedy-drr"
# Each variant: appending made ops (the default) and DriverOptions::rewrite_in_place.
for suffix, what in (("", "DSL"), ("-in-place", "DSL in place")):
    dsl, hand = "optgrammar" + suffix, "optgrammar-handwritten" + suffix
    if (dsl, "rewrite_seconds") not in med:
        continue
    print()
    # Build + rewrite against MLIR first: what a user waits for.
    if ratio(mlir, dsl, "rewrite_seconds"):
        print(f"MLIR / {what} build + rewrite time: {ratio(mlir, dsl, 'total_seconds'):.1f}x (target >= 20x)")
        print(f"MLIR / {what} rewrite time: {ratio(mlir, dsl, 'rewrite_seconds'):.1f}x (target >= 40x)")
        print(f"MLIR / {what} build time: {ratio(mlir, dsl, 'build_seconds'):.1f}x (target >= 5x)")
        print(f"{what} / MLIR peak RSS: {ratio(dsl, mlir, 'peak_rss_kb'):.2f} (target <= 0.5)")
    if ratio(dsl, hand, "rewrite_seconds"):
        print(f"{what} / hand-written rewrite time: {ratio(dsl, hand, 'rewrite_seconds'):.3f} (target <= 1.05)")
    print(f"{what} rewrite / floor: {ratio(dsl, floor, 'rewrite_seconds'):.1f}x (target <= 4x)", end="")
    # The medians of both swing with the VM's hour; the fastest runs of each swing much less.
    if (floor, "rewrite_seconds") in fastest and fastest[floor, "rewrite_seconds"]:
        print(f"; fastest run / fastest run {fastest[dsl, 'rewrite_seconds'] / fastest[floor, 'rewrite_seconds']:.1f}x", end="")
    print()
EOF
