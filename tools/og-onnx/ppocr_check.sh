#!/usr/bin/env bash
# The three PP-OCR models against ONNX Runtime: ort_reference.js writes a test folder per model
# (fixed input, ONNX Runtime's outputs), og-onnx-test imports and interprets the model and
# compares (1e-4 relative). Exits 77 (skipped) when node, onnxruntime-node or the models are not
# present, saying which; tools/fetch-models.sh fetches them.
#   ppocr_check.sh OG_ONNX_TEST MODELS_DIR WORK_DIR
set -euo pipefail
runner=$1 models=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null; then echo "SKIPPED: node is not installed (apt-get install nodejs)"; exit 77; fi
if [ ! -d "$models/node_modules/onnxruntime-node" ] || [ ! -d "$models/ocr-models/assets" ]; then
  echo "SKIPPED: $models has no onnxruntime-node or PP-OCR models (run tools/fetch-models.sh)"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
assets=$models/ocr-models/assets
# model file, input dims (det: a 96x96 image; rec: a 48x160 text line; cls: its fixed 48x192)
while read -r name file dims; do
  NODE_PATH=$models/node_modules node "$here/ort_reference.js" "$assets/$file" "$work/$name" $dims
done <<'LIST'
ppocr_det ch_PP-OCRv4_det_infer.onnx 1 3 96 96
ppocr_rec ch_PP-OCRv4_rec_infer.onnx 1 3 48 160
ppocr_cls ch_ppocr_mobile_v2.0_cls_infer.onnx 1 3 48 192
LIST
"$runner" "$work"/ppocr_*
