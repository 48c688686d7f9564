#!/usr/bin/python3
"""Makes the QDQ version of a float ONNX model, calibrated, in the form ONNX Runtime's static
quantizer writes (QOperator-free "QDQ" format):

- every float activation that a quantizable op reads, and every graph output, passes through a
  QuantizeLinear/DequantizeLinear pair: uint8, per tensor, asymmetric, its scale and zero point
  from the smallest and largest value seen in calibration (the range widened to hold 0);
- the weights of Conv, MatMul and Gemm are int8 initializers, symmetric (zero point 0), one
  scale per output channel (DequantizeLinear's `axis`: 0 for Conv and a transposed Gemm B,
  1 for MatMul and Gemm B), read through a DequantizeLinear;
- their biases are int32 with the scale input scale x weight scale, zero point 0.

Calibration runs the float model with every tensor to quantize added as a graph output, through
ONNX Runtime for node (tools/og-onnx/ort_ranges.js), on a few seeded random inputs.

    qdq.py MODEL OUT [--runs N] [--int64 V] [--node-path DIR] D0 D1 ...

Writes OUT and OUT's name with `.step` for `.onnx`: the quantization step (scale) of each graph
output, one `NAME SCALE` line each. Needs python3-onnx and node with onnxruntime-node.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

# Ops whose float activation inputs are quantized (what ONNX Runtime's QDQ quantizer handles).
QUANTIZED_OPS = {"Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "Mul", "Relu", "Clip", "LeakyRelu", "Sigmoid",
                 "MaxPool", "AveragePool", "GlobalAveragePool", "Concat", "Resize", "Transpose", "Reshape",
                 "Squeeze", "Unsqueeze", "Flatten", "Split", "Pad", "Softmax", "HardSigmoid", "HardSwish"}
# Weight input and its per-channel axis (None: the axis depends on the node) of the weighted ops.
WEIGHTED = {"Conv": 1, "MatMul": 1, "Gemm": 1}


def weight_axis(node):
    if node.op_type == "Conv":
        return 0
    if node.op_type == "MatMul":
        return 1
    trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
    return 0 if trans_b else 1


def activation_params(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zero = int(np.clip(round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zero)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("dims", nargs="+", type=int)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--int64", type=int, default=0, help="the input is int64 token ids below this")
    ap.add_argument("--node-path", default=os.environ.get("NODE_PATH", ""), help="node_modules with onnxruntime-node")
    args = ap.parse_args()

    model = shape_inference.infer_shapes(onnx.load(args.model))
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    elem = {v.name: v.type.tensor_type.elem_type for v in list(g.value_info) + list(g.input) + list(g.output)}
    for t in g.initializer:
        elem[t.name] = t.data_type
    is_float = lambda name: elem.get(name) == TensorProto.FLOAT  # noqa: E731

    # Which tensors get a Q/DQ pair: float activations read by a quantized op, and the outputs.
    weights = {}  # (node index, input index) -> axis
    acts = []
    seen = set()

    def want(name):
        if name and name not in seen and name not in inits and is_float(name):
            seen.add(name)
            acts.append(name)

    for k, n in enumerate(g.node):
        if n.op_type not in QUANTIZED_OPS:
            continue
        for i, name in enumerate(n.input):
            if n.op_type in WEIGHTED and i == WEIGHTED[n.op_type] and name in inits and is_float(name) \
                    and len(inits[name].dims) >= 2:
                weights[(k, i)] = weight_axis(n)
            elif n.op_type in ("Conv", "Gemm") and i == 2 and name in inits:
                weights[(k, i)] = "bias"
            else:
                want(name)
    for o in g.output:
        want(o.name)

    # Calibration: the float model with those tensors as its outputs, run by ONNX Runtime.
    calib = onnx.ModelProto()
    calib.CopyFrom(model)
    known_outputs = {o.name for o in calib.graph.output}
    for name in acts:
        if name not in known_outputs:
            calib.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        cpath, rpath = os.path.join(tmp, "calib.onnx"), os.path.join(tmp, "ranges.json")
        onnx.save(calib, cpath)
        cmd = ["node", os.path.join(here, "ort_ranges.js")] + (["--int64", str(args.int64)] if args.int64 else [])
        cmd += [cpath, str(args.runs), rpath] + [str(d) for d in args.dims]
        env = dict(os.environ, NODE_PATH=args.node_path)
        subprocess.run(cmd, check=True, env=env)
        with open(rpath) as f:
            ranges = json.load(f)

    new_nodes, new_inits = [], []
    act_scale = {}

    def qdq(name):
        """The Q/DQ pair of activation `name`; returns the dequantized tensor's name."""
        scale, zero = activation_params(*ranges[name])
        act_scale[name] = float(scale)
        s, z = f"{name}_scale", f"{name}_zero_point"
        new_inits.extend([numpy_helper.from_array(np.array(scale, np.float32), s),
                          numpy_helper.from_array(np.array(zero, np.uint8), z)])
        new_nodes.append(helper.make_node("QuantizeLinear", [name, s, z], [f"{name}_quantized"], name=f"{name}_QuantizeLinear"))
        new_nodes.append(helper.make_node("DequantizeLinear", [f"{name}_quantized", s, z], [f"{name}_dequantized"],
                                          name=f"{name}_DequantizeLinear"))
        return f"{name}_dequantized"

    dq = {name: qdq(name) for name in acts}
    # Weights per channel; biases from the input's and the weight's scales.
    weight_scale = {}
    for (k, i), axis in sorted(weights.items(), key=lambda e: e[1] == "bias"):
        n, name = g.node[k], g.node[k].input[i]
        w = numpy_helper.to_array(inits[name]).astype(np.float64)
        qname = f"{name}_quantized_{k}"
        if axis == "bias":
            x_scale = act_scale.get(n.input[0])
            ws = weight_scale.get(k)
            if x_scale is None or ws is None:
                continue
            scale = (x_scale * ws).astype(np.float32)
            q = np.clip(np.round(w / scale), -2**31, 2**31 - 1).astype(np.int32)
            zero = np.zeros(scale.shape, np.int32)
            axis_value = 0
        else:
            moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
            scale = (np.abs(moved).max(axis=1) / 127.0).astype(np.float32)
            scale[scale == 0] = 1.0
            shape = [1] * w.ndim
            shape[axis] = -1
            q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
            zero = np.zeros(scale.shape, np.int8)
            weight_scale[k] = scale.astype(np.float64)
            axis_value = axis
        new_inits.extend([numpy_helper.from_array(q, qname), numpy_helper.from_array(scale, f"{qname}_scale"),
                          numpy_helper.from_array(zero, f"{qname}_zero_point")])
        new_nodes.append(helper.make_node("DequantizeLinear", [qname, f"{qname}_scale", f"{qname}_zero_point"],
                                          [f"{qname}_dequantized"], name=f"{qname}_DequantizeLinear", axis=axis_value))
        n.input[i] = f"{qname}_dequantized"

    # Consumers read the dequantized activations; graph outputs become them.
    quantizers = {nn.name for nn in new_nodes}
    for n in g.node:
        for i, name in enumerate(n.input):
            if name in dq:
                n.input[i] = dq[name]
    for o in g.output:
        if o.name in dq:
            o.name = dq[o.name]
    # Each Q/DQ pair right after its producer keeps the nodes in topological order.
    producer_of = {}
    for nn in new_nodes:
        src = nn.input[0]
        producer_of.setdefault(src, []).append(nn)
    ordered = []
    for nn in new_nodes:  # weights and inputs' pairs read initializers or graph inputs: first
        if nn.op_type == "DequantizeLinear" and nn.input[0] in {t.name for t in new_inits}:
            ordered.append(nn)

    def emit_after(name):
        for nn in producer_of.get(name, []):
            if nn.op_type == "QuantizeLinear":
                ordered.append(nn)
                emit_after(nn.output[0])
            elif nn not in ordered:
                ordered.append(nn)

    for inp in g.input:
        emit_after(inp.name)
    for n in list(g.node):
        ordered.append(n)
        for out in n.output:
            emit_after(out)
    assert all(nn.name in {x.name for x in ordered} for nn in new_nodes if nn.name in quantizers)
    del g.node[:]
    g.node.extend(ordered)
    g.initializer.extend(new_inits)
    # The weights' float originals are no longer read.
    read = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in read]
    del g.initializer[:]
    g.initializer.extend(keep)
    del g.value_info[:]
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    with open(os.path.splitext(args.out)[0] + ".step", "w") as f:
        for o in g.output:
            src = o.name[: -len("_dequantized")] if o.name.endswith("_dequantized") else o.name
            f.write(f"{o.name} {act_scale.get(src, 0.0)!r}\n")
    print(f"{os.path.basename(args.out)}: {len(acts)} activations and {len(weights)} weights quantized", file=sys.stderr)


if __name__ == "__main__":
    main()
