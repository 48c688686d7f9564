#!/usr/bin/env bash
# Real architectures against ONNX Runtime: exports the models of torch_models.py (cached in
# TORCH_DIR), makes QDQ versions of some with qdq.py (cached), has ONNX Runtime compute each
# model's outputs on a fixed input (ort_reference.js), and runs og-onnx-test on them: floats
# within 1e-4 relative, QDQ models within one quantization step of their outputs (the lowering
# of these exports is tests/htp_lowering/torch_lowering_check.sh's). One line per model, then
# `N passed, M failed, K skipped`; a check is skipped only for a missing tool (SKIPPED: at the
# top, exit 77 when nothing can run: node, onnxruntime-node or PyTorch missing).
#   torch_models_check.sh OG_ONNX_TEST MODELS_DIR TORCH_DIR WORK_DIR [NAME...]
# MODELS_DIR holds onnxruntime-node (tools/fetch-models.sh); NAMEs limit the run to those models
# (and their QDQ versions, NAME_qdq).
set -uo pipefail
runner=$1 models=$2 torch_dir=$3 work=$4
shift 4
only=("$@")
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null; then echo "SKIPPED: node is not installed (apt-get install nodejs)"; exit 77; fi
if [ ! -d "$models/node_modules/onnxruntime-node" ]; then
  echo "SKIPPED: $models has no onnxruntime-node (run tools/fetch-models.sh)"; exit 77
fi
if ! why=$(/usr/bin/python3 -c 'import torch, torchvision, torchaudio, onnx, numpy' 2>&1); then
  echo "SKIPPED: Debian's PyTorch or ONNX for python is missing ($(echo "$why" | tail -1)); apt-get install python3-torch python3-torchvision python3-torchaudio python3-onnx"
  exit 77
fi
export NODE_PATH=$models/node_modules
# The models made QDQ: per-channel Conv weights (CNNs, a YOLO-style head), per-channel MatMul and
# Gemm weights (transformer encoders).
qdq_models="mobilenet_v3_small resnet18 yolo_style transformer_encoder vit_16"
passed=0 failed=0 skipped=0
result() {  # result PASS|FAIL|SKIP TEXT
  echo "$1 $2"
  case $1 in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; *) skipped=$((skipped + 1)) ;; esac
}
wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local n
  for n in "${only[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

mkdir -p "$torch_dir"
only_list=$(IFS=,; echo "${only[*]}")
start=$(date +%s)
if ! /usr/bin/python3 "$here/torch_models.py" "$torch_dir" ${only_list:+--only "$only_list"} >"$torch_dir/export.log" 2>&1; then
  [ -s "$torch_dir/failed.txt" ] || { echo "FAIL export: $(tail -3 "$torch_dir/export.log")"; failed=$((failed + 1)); }
fi
while read -r name reason; do result FAIL "$name: export: $reason"; done <"$torch_dir/failed.txt"
echo "export: $(($(date +%s) - start)) s (cached files are kept)"

# The QDQ versions are remade when qdq.py changes.
stamp=$(sha256sum "$here/qdq.py" | cut -d' ' -f1)
if [ "$(cat "$torch_dir/qdq.stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -f "$torch_dir"/*_qdq.onnx "$torch_dir"/*_qdq.step
  echo "$stamp" >"$torch_dir/qdq.stamp"
fi
rm -rf "$work" && mkdir -p "$work"
list=()
while read -r name file kind dims; do
  list+=("$name $file $kind $dims")
  if [[ " $qdq_models " == *" $name "* ]]; then
    qfile=${file%.onnx}_qdq.onnx
    int64=()
    [[ $kind == int64:* ]] && int64=(--int64 "${kind#int64:}")
    if [ ! -f "$torch_dir/$qfile" ] &&
       ! /usr/bin/python3 "$here/qdq.py" "${int64[@]}" "$torch_dir/$file" "$torch_dir/$qfile" $dims >"$work/$name.qdq.log" 2>&1; then
      result FAIL "${name}_qdq: qdq.py: $(tail -1 "$work/$name.qdq.log")"
      continue
    fi
    list+=("${name}_qdq $qfile $kind $dims")
  fi
done <"$torch_dir/models.txt"

for entry in "${list[@]}"; do
  read -r name file kind dims <<<"$entry"
  base=${name%_qdq}
  wanted "$base" || continue
  args=()
  [[ $kind == int64:* ]] && args=(--int64 "${kind#int64:}")
  # A QDQ model is compared with ONNX Runtime both as it runs it by default (Q/DQ pairs fused
  # into integer kernels) and with its graph optimizations off (each node as the model states
  # it): the two differ from each other by more than a step (an intermediate value that rounds
  # to the other side of a step moves the outputs by several), and the model's semantics are
  # either's. It passes within one step of either.
  modes=("")
  [ "$name" != "$base" ] && modes=("" --no-optimization)
  tol=()
  if [ "$name" != "$base" ]; then
    # One quantization step of the outputs (the largest, where there are several).
    step=$(awk 'BEGIN { s = 0 } { if ($2 > s) s = $2 } END { printf "%.9g", s * 1.0001 }' "$torch_dir/${file%.onnx}.step")
    tol=(--rtol 0 --atol "$step")
  fi
  line="" lines=""
  for mode in "${modes[@]}"; do
    dir=$work/$name${mode:+.unoptimized}
    if ! node "$here/ort_reference.js" $mode "${args[@]}" "$torch_dir/$file" "$dir" $dims >"$dir.ort.log" 2>&1; then
      line="FAIL $name: ONNX Runtime: $(tail -1 "$dir.ort.log")"
      break
    fi
    l=$("$runner" --stats "${tol[@]}" "$dir" 2>/dev/null | head -1)
    if [ -n "$mode" ]; then l="${l/$name.unoptimized/$name} [ONNX Runtime unoptimized]"
    elif [ ${#modes[@]} -gt 1 ]; then l="$l [ONNX Runtime default]"; fi
    lines="${lines:+$lines; }$l"
    case $l in PASS*) line=${line:-$l} ;; *) [ -n "$line" ] || last=$l ;; esac
  done
  [ -n "$line" ] || line=${last:-$line}
  [ ${#modes[@]} -gt 1 ] && line="${line%% *} $name: ${lines//PASS $name /}"
  case $line in
    PASS*) result PASS "${line#PASS }" ;;
    SKIP*) result FAIL "${line#SKIP }" ;;  # an op the importer does not claim fails this test
    *) result FAIL "${line#FAIL }" ;;
  esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
