// Calibration for tools/og-onnx/qdq.py: runs a model (whose graph outputs are the tensors to
// calibrate) with ONNX Runtime on N inputs of seeded pseudo-random values and writes each
// output's smallest and largest value over all runs as JSON ({"name": [min, max], ...}). The
// input is the model's first: float32 uniform in [0, 1), or with `--int64 V` int64 in [0, V).
//   node ort_ranges.js [--int64 V] MODEL N OUT.json D0 D1 ...
// Needs onnxruntime-node (tools/fetch-models.sh); NODE_PATH or a node_modules above the script.
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const args = process.argv.slice(2);
  let tokens = 0;
  if (args[0] === '--int64') tokens = Number(args.splice(0, 2)[1]);
  const [model, runs, out, ...dimArgs] = args;
  const dims = dimArgs.map(Number);
  const n = dims.reduce((a, b) => a * b, 1);
  const s = await ort.InferenceSession.create(model);
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const ranges = {};
  for (let r = 0; r < Number(runs); ++r) {
    let input;
    if (tokens > 0) input = new ort.Tensor('int64', BigInt64Array.from({ length: n }, () => BigInt(Math.floor(next() * tokens))), dims);
    else input = new ort.Tensor('float32', Float32Array.from({ length: n }, next), dims);
    const res = await s.run({ [s.inputNames[0]]: input });
    for (const name of s.outputNames) {
      const d = res[name].data;
      let lo = Infinity, hi = -Infinity;
      for (let i = 0; i < d.length; ++i) {
        const v = Number(d[i]);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      const old = ranges[name] || [Infinity, -Infinity];
      ranges[name] = [Math.min(old[0], lo), Math.max(old[1], hi)];
    }
  }
  fs.writeFileSync(out, JSON.stringify(ranges));
}
main().catch((e) => { console.error(e.message || e); process.exit(1); });
