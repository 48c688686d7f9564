// Writes an ONNX backend test folder for a model with ONNX Runtime's outputs as the expected
// ones: OUTDIR/model.onnx and OUTDIR/test_data_set_0/{input_0,output_K}.pb. The input (the
// model's first, of the dims given) holds a fixed pattern: float32 in [0, 1), or with
// `--int64 V` int64 token ids in [0, V). `--no-optimization` runs ONNX Runtime with its graph
// optimizations off (each node as the model states it, e.g. QuantizeLinear and DequantizeLinear
// as such rather than fused into integer kernels). A model's further inputs: `--shape NAME=D0,D1`
// gives a float32 one the same pattern, `--scalar NAME=V` makes an int64 scalar of value V (e.g.
// a sample rate); input_K.pb follow the model's input order.
//   node ort_reference.js [--int64 V] [--no-optimization] [--shape NAME=D0,...] [--scalar NAME=V]
//                         MODEL OUTDIR D0 D1 ...
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
  const types = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11 };
  if (!(tensor.type in types)) throw new Error('output type ' + tensor.type + ' not written');
  const parts = tensor.dims.map((d) => field(1, 0, varint(d)));
  parts.push(field(2, 0, varint(types[tensor.type])));
  parts.push(bytesField(8, Buffer.from(name, 'utf8')));
  const d = tensor.data;
  parts.push(bytesField(9, Buffer.from(d.buffer, d.byteOffset, d.byteLength)));
  return Buffer.concat(parts);
}

async function main() {
  const args = process.argv.slice(2);
  let tokens = 0;
  const options = {};
  const shapes = {}, scalars = {};
  const named = (spec) => { const eq = spec.indexOf('='); return [spec.slice(0, eq), spec.slice(eq + 1)]; };
  for (;;) {
    if (args[0] === '--int64') tokens = Number(args.splice(0, 2)[1]);
    else if (args[0] === '--no-optimization') options.graphOptimizationLevel = 'disabled', args.shift();
    else if (args[0] === '--shape') { const [n, v] = named(args.splice(0, 2)[1]); shapes[n] = v.split(',').map(Number); }
    else if (args[0] === '--scalar') { const [n, v] = named(args.splice(0, 2)[1]); scalars[n] = BigInt(v); }
    else break;
  }
  const [model, outdir, ...dimArgs] = args;
  const dims = dimArgs.map(Number);
  const s = await ort.InferenceSession.create(model, options);
  const pattern = (d) => {
    const n = d.reduce((a, b) => a * b, 1);
    const x = new Float32Array(n);
    for (let i = 0; i < n; ++i) x[i] = (Math.sin(i * 0.37) + 1) / 2 * 0.999;
    return new ort.Tensor('float32', x, d);
  };
  const inputs = {};
  s.inputNames.forEach((name, k) => {
    if (name in scalars) inputs[name] = new ort.Tensor('int64', BigInt64Array.from([scalars[name]]), []);
    else if (name in shapes) inputs[name] = pattern(shapes[name]);
    else if (k > 0) throw new Error(`input '${name}' needs --shape or --scalar`);
    else if (tokens > 0) {
      const n = dims.reduce((a, b) => a * b, 1);
      const x = new BigInt64Array(n);
      for (let i = 0; i < n; ++i) x[i] = BigInt((i * 37 + 11) % tokens);
      inputs[name] = new ort.Tensor('int64', x, dims);
    } else inputs[name] = pattern(dims);
  });
  const out = await s.run(inputs);
  const set = path.join(outdir, 'test_data_set_0');
  fs.mkdirSync(set, { recursive: true });
  fs.copyFileSync(model, path.join(outdir, 'model.onnx'));
  s.inputNames.forEach((name, k) => fs.writeFileSync(path.join(set, `input_${k}.pb`), tensorProto(name, inputs[name])));
  s.outputNames.forEach((name, k) => fs.writeFileSync(path.join(set, `output_${k}.pb`), tensorProto(name, out[name])));
  console.log(`${path.basename(model)}: ${s.outputNames.map((o) => o + ' ' + JSON.stringify(out[o].dims)).join(', ')}`);
}
main().catch((e) => { console.error(e.message || e); process.exit(1); });
