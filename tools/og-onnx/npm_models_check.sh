#!/usr/bin/env bash
# Public models from npm against ONNX Runtime: ort_reference.js writes a test folder per model
# (fixed inputs, ONNX Runtime's outputs), og-onnx-test imports and interprets the model and
# compares (1e-4 relative). Exits 77 (skipped) when node, onnxruntime-node or the models are not
# present, saying which; tools/fetch-models.sh fetches them.
#   npm_models_check.sh OG_ONNX_TEST MODELS_DIR WORK_DIR ppocr|silero_vad
# ppocr: the PP-OCR det, rec and cls models. silero_vad: the Silero VAD model (v5) on a
# 512-sample chunk at 16 kHz; it branches (If) on its sample-rate input, which og-onnx-test
# imports as a constant (--fixed-input sr), so the branches fold and are inlined. (The legacy
# model of the package is left out: its STFT, a Conv whose sums nearly cancel, then a square
# root and a log, makes its output differ from ONNX Runtime's by about 1% from float rounding
# alone: 8e-4 relative after the square root where both agree to 1e-5 absolute.)
set -euo pipefail
runner=$1 models=$2 work=$3 set=$4
here=$(cd "$(dirname "$0")" && pwd)
case $set in
  ppocr) dir=$models/ocr-models/assets fixed=() ;;
  silero_vad) dir=$models/vad-web/dist fixed=(--fixed-input sr) ;;
  *) echo "npm_models_check.sh: no model set '$set' (ppocr, silero_vad)" >&2; exit 2 ;;
esac
if ! command -v node >/dev/null; then echo "SKIPPED: node is not installed (apt-get install nodejs)"; exit 77; fi
if [ ! -d "$models/node_modules/onnxruntime-node" ] || [ ! -d "$dir" ]; then
  echo "SKIPPED: $models has no onnxruntime-node or $set models (run tools/fetch-models.sh)"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
# name, model file, ort_reference.js's options (the other inputs) | the first input's dims
# (det: a 96x96 image; rec: a 48x160 text line; cls: its fixed 48x192; VAD: one 32 ms chunk)
grep "^$set " <<'LIST' | while read -r _ name file args; do
ppocr ppocr_det ch_PP-OCRv4_det_infer.onnx | 1 3 96 96
ppocr ppocr_rec ch_PP-OCRv4_rec_infer.onnx | 1 3 48 160
ppocr ppocr_cls ch_ppocr_mobile_v2.0_cls_infer.onnx | 1 3 48 192
silero_vad silero_vad_v5 silero_vad_v5.onnx --shape state=2,1,128 --scalar sr=16000 | 1 512
LIST
  # shellcheck disable=SC2086  # options and dims are words
  NODE_PATH=$models/node_modules node "$here/ort_reference.js" ${args%%|*} "$dir/$file" "$work/$name" ${args#*|}
done
"$runner" --stats "${fixed[@]}" "$work"/*
