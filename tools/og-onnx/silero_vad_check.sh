#!/usr/bin/env bash
# The Silero VAD models (npm @ricky0123/vad-web: the current one and the legacy one) against ONNX
# Runtime. Both branch (If) on their sample-rate input: og-onnx-test imports it as a constant
# (--fixed-input sr, 16000 as ONNX Runtime ran them), so the branches fold and are inlined. Exits
# 77 (skipped) when node, onnxruntime-node or the models are not present, saying which;
# tools/fetch-models.sh fetches them.
#   silero_vad_check.sh OG_ONNX_TEST MODELS_DIR WORK_DIR
set -euo pipefail
runner=$1 models=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null; then echo "SKIPPED: node is not installed (apt-get install nodejs)"; exit 77; fi
if [ ! -d "$models/node_modules/onnxruntime-node" ] || [ ! -f "$models/vad-web/dist/silero_vad_v5.onnx" ]; then
  echo "SKIPPED: $models has no onnxruntime-node or Silero VAD models (run tools/fetch-models.sh)"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
# One 512-sample chunk (32 ms at 16 kHz) and a recurrent state of the model's shape.
NODE_PATH=$models/node_modules node "$here/ort_reference.js" --shape state=2,1,128 --scalar sr=16000 \
  "$models/vad-web/dist/silero_vad_v5.onnx" "$work/silero_vad_v5" 1 512
NODE_PATH=$models/node_modules node "$here/ort_reference.js" --shape h=2,1,64 --shape c=2,1,64 --scalar sr=16000 \
  "$models/vad-web/dist/silero_vad_legacy.onnx" "$work/silero_vad_legacy" 1 512
"$runner" --stats --fixed-input sr "$work"/silero_vad_*
