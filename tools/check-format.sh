#!/usr/bin/env bash
# Checks that the C++ sources follow the repository's .clang-format (clang-format-14): prints each
# file it would change and how to fix it, and fails. With --fix, formats them in place.
# The sources are the tracked files of a git clone, else every C++ file outside build/ and
# node_modules/. Folders whose own .clang-format disables formatting (test inputs laid out as rule
# authors write them) and regions fenced with `// clang-format off` / `on` are left as they are.
# Usage: tools/check-format.sh [--fix]     (CLANG_FORMAT=program overrides clang-format-14)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cf=${CLANG_FORMAT:-clang-format-14}
command -v "$cf" >/dev/null || { echo "check-format: $cf is not installed (tools/install-deps.sh installs it)" >&2; exit 2; }
files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r -d '' f; do [ -f "$f" ] && files+=("$f"); done \
    < <(git ls-files -z -- '*.hpp' '*.cpp' '*.h' '*.cc' '*.c')
else
  while IFS= read -r -d '' f; do files+=("$f"); done \
    < <(find . \( -path ./build -o -name node_modules -o -name .git \) -prune -o -type f \
          \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.cc' -o -name '*.c' \) -print0)
fi
[ ${#files[@]} -gt 0 ] || { echo "check-format: no C++ sources found" >&2; exit 2; }
if [ "${1:-}" = --fix ]; then
  printf '%s\0' "${files[@]}" | xargs -0 "$cf" -i
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi
[ $# -eq 0 ] || { echo "usage: tools/check-format.sh [--fix]" >&2; exit 2; }
if ! out=$(printf '%s\0' "${files[@]}" | xargs -0 "$cf" --dry-run --Werror 2>&1); then
  printf '%s\n' "$out" | grep -oE '^[^:]+:[0-9]+:[0-9]+: error' | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  printf '%s\n' "$out" | head -20
  echo "check-format: run tools/check-format.sh --fix to format them" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
