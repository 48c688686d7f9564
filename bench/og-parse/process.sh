#!/usr/bin/env bash
# og-parse as a user runs it: `og-parse FILE` as a process on the generated 10,000-rule file of
# og_parse_bench (`og_parse_bench --write-input`: comments, helper macros, no diagnostics), RUNS
# times from a warm page cache and once from a cold one, each under /usr/bin/time.
#
#   bench/og-parse/process.sh [RUNS] [-- OG_PARSE_OPTIONS...]       default: 9 warm runs
#
# Environment: OG_PARSE (the og-parse binary; default build/gcc/tools/og-parse/og-parse),
# OG_PARSE_BENCH (og_parse_bench, which writes the input; default build/gcc/bench/og-parse/
# og_parse_bench); both are built with the gcc preset when missing.
#
# Prints the host (CPU model, load average before and after), one line per run (wall, user and
# system seconds, peak RSS, minor and major page faults) and the median of the warm runs: MB/s of
# wall time (10^6 bytes a second) and peak RSS over the input's size. The cold run needs the page
# cache dropped (`echo 3 > /proc/sys/vm/drop_caches`, root only); without that permission it
# says so and is left out.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/bench/common/host.sh"
runs="${1:-9}"
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
case "$runs" in '' | *[!0-9]* | 0) echo "usage: process.sh [RUNS] [-- OG_PARSE_OPTIONS...] (RUNS a positive integer)" >&2; exit 2 ;; esac
og_parse="${OG_PARSE:-$repo/build/gcc/tools/og-parse/og-parse}"
gen="${OG_PARSE_BENCH:-$repo/build/gcc/bench/og-parse/og_parse_bench}"
[ -x /usr/bin/time ] || { echo "process.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
for t in "$og_parse:og-parse" "$gen:og_parse_bench"; do
  if [ ! -x "${t%%:*}" ]; then
    echo "[og-parse process] building ${t##*:} with the gcc preset" >&2
    (cd "$repo" && cmake --preset gcc >/dev/null && cmake --build --preset gcc --target "${t##*:}" >/dev/null)
  fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
input="$work/generated.cpp"
"$gen" --write-input "$input" 2>/dev/null
bytes="$(stat -c %s "$input")"

# one run: "wall user sys maxrss_kb minor major exit"
one_run() {
  /usr/bin/time -o "$work/time" -f '%e %U %S %M %R %F %x' "$og_parse" "$@" "$input" >/dev/null 2>"$work/err" || true
  local line
  line="$(tail -n 1 "$work/time")"
  case "$line" in
    *' 0')
      [ -s "$work/err" ] && echo "process.sh: note: og-parse printed $(wc -l <"$work/err") diagnostic lines" >&2
      echo "$line" ;;
    *) echo "process.sh: og-parse failed on the generated file:" >&2; head -n 5 "$work/err" >&2; exit 1 ;;
  esac
}
report() {  # KIND "wall user sys rss minor major exit"
  awk -v kind="$1" -v bytes="$bytes" '{
    printf "%-5s wall %6.3f s  user %6.3f s  sys %6.3f s  peak RSS %7.1f MB  minor faults %6d  major %d  %7.1f MB/s\n",
      kind, $1, $2, $3, $4 / 1000, $5, $6, ($1 > 0 ? bytes / $1 / 1e6 : 0) }' <<<"$2"
}

echo "[og-parse process] input: $bytes bytes ($(grep -c '^DEF_PACKAGE_OPTIMIZATION' "$input") rules); og-parse $*" >&2
host_lines "[og-parse process]" before
one_run "$@" >/dev/null  # the binary and the input in the page cache
results=()
for ((r = 0; r < runs; r++)); do
  results+=("$(one_run "$@")")
  report warm "${results[-1]}"
done
if sync 2>/dev/null && (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
  report cold "$(one_run "$@")"
else
  echo "cold: not measured: dropping the page cache (/proc/sys/vm/drop_caches) is not permitted for $(id -un)"
fi
host_lines "[og-parse process]" after

printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
bytes_ = int(sys.argv[1])
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
col = lambda k: statistics.median(r[k] for r in rows)
wall, rss = col(0), col(3)
print(f"median of {len(rows)} warm runs: wall {wall:.3f} s ({bytes_ / wall / 1e6:.1f} MB/s), user {col(1):.3f} s, "
      f"sys {col(2):.3f} s, peak RSS {rss / 1000:.1f} MB ({rss * 1024 / bytes_:.2f}x the input), "
      f"minor faults {col(4):.0f}; fastest {bytes_ / min(r[0] for r in rows) / 1e6:.1f} MB/s")
' "$bytes"
