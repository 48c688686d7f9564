// Writes an ONNX backend test folder for a model with ONNX Runtime's outputs as the expected
// ones: OUTDIR/model.onnx and OUTDIR/test_data_set_0/{input_0,output_K}.pb. The input (the
// model's first, float32, of the dims given) holds a fixed pattern in [0, 1).
//   node ort_reference.js MODEL OUTDIR D0 D1 ...
// Needs onnxruntime-node (tools/fetch-models.sh); NODE_PATH or a node_modules above OUTDIR.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}
function field(num, wire, payload) { return Buffer.concat([varint((num << 3) | wire), payload]); }
function bytesField(num, buf) { return field(num, 2, Buffer.concat([varint(buf.length), buf])); }

// TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9.
function tensorProto(name, tensor) {
  const types = { float32: 1, int64: 7, int32: 6 };
  if (!(tensor.type in types)) throw new Error('output type ' + tensor.type + ' not written');
  const parts = tensor.dims.map((d) => field(1, 0, varint(d)));
  parts.push(field(2, 0, varint(types[tensor.type])));
  parts.push(bytesField(8, Buffer.from(name, 'utf8')));
  const d = tensor.data;
  parts.push(bytesField(9, Buffer.from(d.buffer, d.byteOffset, d.byteLength)));
  return Buffer.concat(parts);
}

async function main() {
  const [model, outdir, ...dimArgs] = process.argv.slice(2);
  const dims = dimArgs.map(Number);
  const s = await ort.InferenceSession.create(model);
  const n = dims.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n);
  for (let i = 0; i < n; ++i) x[i] = (Math.sin(i * 0.37) + 1) / 2 * 0.999;
  const input = new ort.Tensor('float32', x, dims);
  const out = await s.run({ [s.inputNames[0]]: input });
  const set = path.join(outdir, 'test_data_set_0');
  fs.mkdirSync(set, { recursive: true });
  fs.copyFileSync(model, path.join(outdir, 'model.onnx'));
  fs.writeFileSync(path.join(set, 'input_0.pb'), tensorProto(s.inputNames[0], input));
  s.outputNames.forEach((name, k) => fs.writeFileSync(path.join(set, `output_${k}.pb`), tensorProto(name, out[name])));
  console.log(`${path.basename(model)}: ${s.outputNames.map((o) => o + ' ' + JSON.stringify(out[o].dims)).join(', ')}`);
}
main().catch((e) => { console.error(e.message || e); process.exit(1); });
