#!/usr/bin/env bash
# Lowers one PP-OCR model with the htp_lowering package and checks it: og-opt verifies the result
# against the op definitions and compares the interpreter's outputs before and after on 3 random
# inputs (--check, 1e-4 relative); then no onnx.Conv may be left and convolutions must be
# ConvLayer(Relu)s; it prints the count of Concats (AUTOSPLIT's joins when tiling). With
# --in-place it also lowers without it and compares the counts of each op name. Exits 77 (skipped) when the models are not fetched (tools/fetch-models.sh).
#   lower_check.sh OG_OPT MODELS_DIR WORK_DIR MODEL_FILE INPUT_DIMS [og-opt options...]
set -euo pipefail
og_opt=$1 models=$2 work=$3 file=$4 dims=$5
shift 5
model=$models/ocr-models/assets/$file
if [ ! -f "$model" ]; then echo "SKIPPED: $model is missing (run tools/fetch-models.sh)"; exit 77; fi
mkdir -p "$work"
out=$work/${file%.onnx}$(printf '%s' "$*" | tr -c 'a-z0-9' '_')
"$og_opt" --rules htp_lowering "$model" --input-shape "x=$dims" --check 3 -o "$out.ogt" --dot "$out.dot" "$@"
left=$(grep -c '= onnx\.Conv(' "$out.ogt" || true)
lowered=$(grep -c '= ConvLayer\(Relu\)\?(' "$out.ogt" || true)
joins=$(grep -c '= Concat(' "$out.ogt" || true)
echo "onnx.Conv left: $left, ConvLayer(Relu): $lowered, Concat: $joins"
test "$left" -eq 0 && test "$lowered" -gt 0
# With --in-place, the same lowering appending its ops must give the same ops, name for name.
names() { grep -o '= [^ (]*(' "$1" | sort | uniq -c; }
for a in "$@"; do
  if [ "$a" = --in-place ]; then
    args=()
    for b in "$@"; do [ "$b" = --in-place ] || args+=("$b"); done
    "$og_opt" --rules htp_lowering "$model" --input-shape "x=$dims" -o "$out.appended.ogt" --dot "$out.appended.dot" \
      ${args[@]+"${args[@]}"} >/dev/null
    if ! diff <(names "$out.appended.ogt") <(names "$out.ogt"); then
      echo "in place and appended lowerings differ (op name counts above)"
      exit 1
    fi
    echo "in place: the same op name counts as appended ($(grep -c ' = ' "$out.ogt") ops)"
  fi
done
