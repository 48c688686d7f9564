#!/usr/bin/env bash
# The lowering package on the real architectures tools/og-onnx/torch_models.py exports (and
# their QDQ versions, qdq.py): each is lowered by og-opt --rules htp_lowering, verified against
# the op definitions, and must leave no onnx.* op; models with float inputs are also checked by
# the interpreter before and after (--check 1: float models within TOLERANCE relative, QDQ models
# within four steps of their output, the .step file qdq.py writes: a rounding flip in an early
# layer moves an output by a few steps, as ONNX Runtime's optimized and unoptimized runs of a QDQ
# model differ). One line per model with the op counts (constants apart) before and after; exit
# 77 (skipped) when no exports are there. NAMEs limit the run to those models (and their QDQ
# versions), as in torch_models_check.sh.
#   torch_lowering_check.sh OG_OPT TORCH_DIR WORK_DIR TOLERANCE [NAME...]
set -uo pipefail
og_opt=$1 dir=$2 work=$3 tol=$4
shift 4
only=" $* "
if [ ! -s "$dir/models.txt" ]; then
  echo "SKIPPED: $dir/models.txt is missing (the og-onnx-test.torch_models_vs_onnxruntime test exports the models)"
  exit 77
fi
mkdir -p "$work"
failed=0 passed=0
count() { grep -v ' = \$Const\| = \$Shape' "$1" | grep -c ' = ' ; }
while read -r name file kind dims; do
  [ "$only" = "  " ] || [[ $only == *" $name "* ]] || continue
  for f in "$file" "${file%.onnx}_qdq.onnx"; do
    [ -f "$dir/$f" ] || continue
    label=${f%.onnx}
    args=(--rules htp_lowering "$dir/$f" -o "$work/$label.ogt" --dot /dev/null)
    [[ $kind == int64:* ]] && args+=(--input-shape "x=${dims// /,}") || args+=(--input-shape "x=${dims// /,}" --check 1)
    if [ "$f" != "$file" ] && [ -f "$dir/${f%.onnx}.step" ]; then
      step=$(awk 'BEGIN { s = 0 } { if ($2 > s) s = $2 } END { printf "%.9g", s * 4.01 }' "$dir/${f%.onnx}.step")
      args+=(--check-tolerance 0 --check-atol "$step")
    elif [[ $kind != int64:* ]]; then
      args+=(--check-tolerance "$tol")
    fi
    out=$("$og_opt" "${args[@]}" 2>&1)
    status=$?
    before=$(echo "$out" | sed -n 's/^ops: \([0-9]*\) before, \([0-9]*\) after.*/\1 -> \2/p')
    left=$(grep -o '= onnx\.[A-Za-z]*' "$work/$label.ogt" 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ',')
    check=$(echo "$out" | grep '^check: ' | head -1)
    if [ $status -eq 0 ] && [ -z "$left" ]; then
      echo "PASS $label: ops $before (all), not constants after: $(count "$work/$label.ogt"); ${check:-no check (token ids)}"
      passed=$((passed + 1))
    else
      echo "FAIL $label (exit $status): onnx.* left: ${left:-none}; ${check:-$(echo "$out" | grep -i error | head -2 | tr '\n' ' ')}"
      failed=$((failed + 1))
    fi
  done
done <"$dir/models.txt"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
