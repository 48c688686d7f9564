#!/usr/bin/env python3
"""og-opt's command line in every order: each option that takes a value (read off `og-opt --help`,
so that a new option is covered or this test fails) is given before the graph's path and after
it, as `--opt VALUE` and as `--opt=VALUE`; every order must give the same job (the same report,
exit status and output files) or the same clear error. The graph must be the one named, never
taken as an option's value. Prints the matrix it ran.

Usage: argument_order_test.py --og-opt PATH --work DIR --graph TEXT_GRAPH [--package LIB]
Exit status 0 when every order agrees, 1 otherwise, 77 (skipped) when Debian's python3-onnx is
missing (the ONNX options need a model, which the test writes with it).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def onnx_model(path):
    """A model with a symbolic input x [n,4] and an input k [1]: y = x + k."""
    import onnx
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
    k = helper.make_tensor_value_info("k", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])
    graph = helper.make_graph([helper.make_node("Add", ["x", "k"], ["y"])], "order", [x, k], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)


def value_options(help_text):
    """The long names of the options that take a value, as --help lists them."""
    names = []
    for line in help_text.splitlines():
        m = re.match(r"^  (?:-\w,)?(--[\w-]+) +([A-Z]+)(?=[:= ]|$)", line)
        if m:
            names.append(m.group(1))
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--og-opt", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--package")
    a = ap.parse_args()
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("SKIPPED: no python3-onnx (tools/install-deps.sh) to write the test's model")
        return SKIP
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    text = os.path.join(work, "graph.ogt")
    shutil.copy(a.graph, text)
    model = os.path.join(work, "model.onnx")
    onnx_model(model)
    out = os.path.join(work, "out")

    # Per option: a value, the graph it goes with, and options it needs (given first).
    onnx_shape = ["--input-shape", "x=2,4"]
    # A rule's name is its file and line, and compilers differ in the line of a rule written over
    # several lines: W1's R2 (an Add of a zero constant) is found by its canonical text.
    listed = subprocess.run([a.og_opt, "--list-rules"], capture_output=True, text=True).stdout
    r2 = next(l.split(": ")[0] for l in listed.splitlines() if 'Op("Add","x",LET("c"' in l)
    samples = {
        "--check": ("2", text, []),
        "--check-tolerance": ("0.001", text, ["--check", "1"]),
        "--check-atol": ("0.001", text, ["--check", "1"]),
        "--input-shape": ("x=2,4", model, []),
        "--input-value": ("k=1.5", model, onnx_shape),
        "--blocks": ("2", text, []),  # applies to the demo graph only: an error with a graph
        "--huge-pages": ("off", model, onnx_shape),
        "--output": (out + ".ogt", text, []),
        "--data": ("inline", text, []),
        "--data-inline-max": ("2", text, []),
        "--dot": (out + ".dot", text, []),
        "--trace": (out + ".trace", text, []),
        "--rewrite-budget": ("8", text, []),
        "--fold-max-elements": ("3", text, []),
        "--package": (a.package, text, []),
        "--rules": ("htp_lowering", text, []),
        "--option": ("htp_tile_elements=64", text, []),
        "--svg": (out + ".svg", text, []),
        "--svg-max-ops": ("5", text, ["--svg", out + ".svg"]),
        "--svg-context": ("2", text, ["--svg", out + ".svg"]),
        "--report": (out + ".md", text, []),
        "--why-not": (r2, text, []),
        "--at": ("%0", text, ["--why-not", r2]),
        "--verify": ("2", text, []),  # verifies a package on graphs of its own: an error with a graph
        "--seed": ("3", text, ["--verify", "2"]),
    }
    helped = subprocess.run([a.og_opt, "--help"], capture_output=True, text=True).stdout
    names = value_options(helped)
    faults = []
    for n in names:
        if n not in samples:
            faults.append(f"{n} takes a value and this test has no sample for it: add one")
    has_dot = shutil.which("dot") is not None
    files = [out + e for e in (".ogt", ".ogt.bin", ".dot", ".trace", ".svg", ".before.svg", ".md")]

    def run(args):
        for f in files:
            if os.path.exists(f):
                os.remove(f)
        r = subprocess.run([a.og_opt] + args, capture_output=True, text=True, cwd=work)
        # Times vary, and with them the width of the right-aligned time column.
        said = re.sub(r" +", " ", re.sub(r"\d+\.\d+", "#", r.stdout + r.stderr))
        said = said.replace(a.og_opt, "og-opt")
        written = {}
        for f in files:
            if os.path.exists(f):
                with open(f, "rb") as fh:
                    written[os.path.basename(f)] = re.sub(rb"\d+\.\d+", b"#", fh.read())  # times
        return r.returncode, said, written

    print(f"{'option':22} {'graph':6} {'form':14} {'before the graph':28} {'after the graph':28} same")
    for n in names:
        if n not in samples:
            continue
        value, graph, needs = samples[n]
        if value is None:
            print(f"{n:22} (no package given to this test: not run)")
            continue
        if n.startswith("--svg") and not has_dot:
            print(f"{n:22} (no Graphviz dot: not run)")
            continue
        base = needs + ([] if n == "--output" else ["-o", out + ".ogt"]) + ([] if n == "--dot" else ["--dot", out + ".dot"])
        for form in ("--opt VALUE", "--opt=VALUE"):
            opt = [n, value] if form == "--opt VALUE" else [f"{n}={value}"]
            before = run(base + opt + [graph])
            after = run(base + [graph] + opt)
            same = before == after
            kind = "onnx" if graph == model else "text"
            outcome = lambda r: "exit 0" if r[0] == 0 else f"exit {r[0]}: " + r[1].strip().splitlines()[0].removeprefix("og-opt: error: ")[:19]
            print(f"{n:22} {kind:6} {form:14} {outcome(before):28} {outcome(after):28} {'yes' if same else 'NO'}")
            if not same:
                faults.append(f"{n} ({form}): the order of arguments changes the job:\n  before: {before[:2]}\n  after: {after[:2]}")
                continue
            code, said, _ = before
            if n in ("--blocks", "--verify", "--seed"):
                # With a graph, --blocks (the demo graph) and --verify (graphs made from the rules) do
                # not apply: a clear error (status 2), not another job.
                first = "--blocks" if n == "--blocks" else "--verify"
                pair = (f"og-opt: error: {first} excludes graph", f"og-opt: error: graph excludes {first}")
                if code != 2 or not any(p in said for p in pair):
                    faults.append(f"{n} with a graph: want an error saying {first} excludes a graph, got exit {code}: {said}")
            elif code != 0:
                faults.append(f"{n} ({form}): exit {code}: {said}")
            elif f"graph: {graph}" not in said:
                faults.append(f"{n} ({form}): the graph read is not {graph}: {said}")
    # Repeatable options given twice around the graph, and the graph between values.
    twice = run(["--input-shape", "x=2,4", model, "--input-value", "k=1", "-o", out + ".ogt", "--dot", out + ".dot"])
    if twice[0] != 0 or f"graph: {model}" not in twice[1]:
        faults.append(f"--input-shape before and --input-value after the model: exit {twice[0]}: {twice[1]}")
    for f in faults:
        print("argument order:", f)
    print(f"{len(names)} options that take a value, {len(faults)} faults")
    return 1 if faults or not names else 0


if __name__ == "__main__":
    sys.exit(main())
